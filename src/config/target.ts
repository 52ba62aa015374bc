// Where requests go: the configured target, or the embedded reference (optionally one of its modes or faults).
import { profilePath } from '../../reference/faults';
import type { ReferenceConfig } from './settings/reference';
import { REPLAY_SCHEME, type TargetConfig } from './settings/target';

/** Where the target is. */
type Where = Pick<TargetConfig, 'embedded' | 'targetUrl'>;
/** Which profile of the embedded reference. */
type Profile = Pick<ReferenceConfig, 'referenceMode' | 'referenceFault'>;

/** Where a replay's requests go (RSF_TARGET_URL=har:…): a host that resolves nowhere, should one leave by mistake. */
export const REPLAY_API_BASE = 'http://recording.invalid/v1';

/** Set by the global setup to the root URL of the embedded reference server it started. */
export const EMBEDDED_URL_ENV = 'RSF_EMBEDDED_URL';

/** Strips trailing slashes and a trailing /v1, so that RSF_TARGET_URL may be given either way. */
export function normalizeTargetUrl(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/v1$/i, '').replace(/\/+$/, '');
}

/**
 * The embedded reference's profile chosen by RSF_REFERENCE_MODE or RSF_REFERENCE_FAULT:
 * '' (clean), or its path prefix.
 */
export function referenceProfilePath(config: Profile): string {
  return profilePath({ mode: config.referenceMode || undefined, fault: config.referenceFault || undefined });
}

/** The URL that operation paths are appended to, ending in /v1. */
export function apiBase(config: Where & Profile, profile = referenceProfilePath(config)): string {
  if (config.targetUrl.startsWith(REPLAY_SCHEME)) return REPLAY_API_BASE;
  if (!config.embedded) return `${normalizeTargetUrl(config.targetUrl)}/v1`;
  const root = process.env[EMBEDDED_URL_ENV];
  if (!root)
    throw new Error(
      `${EMBEDDED_URL_ENV} is not set: the embedded reference is started by the global setup of playwright.config.ts`,
    );
  return `${root}${profile}/v1`;
}

/** How the reports and the console name the embedded reference as the target. */
export const EMBEDDED_TARGET = 'embedded reference server';

/** The target as it may be shown in reports: no query string, no user info. */
export function displayTarget(config: Where): string {
  if (config.embedded) return EMBEDDED_TARGET;
  if (config.targetUrl.startsWith(REPLAY_SCHEME)) return `recording ${config.targetUrl.slice(REPLAY_SCHEME.length)}`;
  const url = new URL(normalizeTargetUrl(config.targetUrl));
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
}

/**
 * Whether the target answers at the cost of this machine's CPU: the embedded reference without an injected latency,
 * whose answers a loaded machine slows down without anything to overlap. Any other target's distance is measured.
 */
export function targetInProcess(config: Pick<TargetConfig, 'embedded'> & { referenceLatencyMs: number }): boolean {
  return config.embedded && config.referenceLatencyMs === 0;
}

/** What the transport (src/http/transport.ts) needs of the configuration: time-outs, caps, retries, rate, proxies. */
export function transportOptions(config: TargetConfig & { referenceLatencyMs: number }) {
  const { requestTimeoutMs, maxResponseBytes, maxRetries, retryMaxWaitMs, maxRequestsPerSecond, proxy } = config;
  const { clientCertificate, keepAlive } = config;
  const inProcess = targetInProcess(config);
  const options = { requestTimeoutMs, maxResponseBytes, maxRetries, retryMaxWaitMs, maxRequestsPerSecond, inProcess };
  const closing = !keepAlive && { keepAlive };
  return { ...options, ...(proxy && { proxy }), ...(clientCertificate && { clientCertificate }), ...closing };
}
