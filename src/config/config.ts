// Every target-specific value, read from the environment (and .env), checked once, typed. Each concern has its
// settings and its slice of Config in settings/; this module composes them and loads them.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import dotenv from 'dotenv';
import { DATA_SETTINGS, type DataConfig } from './settings/data';
import { PROPERTY_SETTINGS, type PropertiesConfig } from './settings/properties';
import { RECOGNITION_SETTINGS, type RecognitionConfig } from './settings/recognition';
import { REFERENCE_SETTINGS, type ReferenceConfig } from './settings/reference';
import { REPORTING_SETTINGS, type ReportingConfig, exitPolicy } from './settings/reporting';
import { ConfigError, ConfigProblem, type Setting } from './settings/setting';
import { proxySettings } from './proxy-env';
import { misspelledSettings } from './misspelled';
import { clientCertificate } from './client-certificate';
import { REPLAY_SCHEME, TARGET_SETTINGS, type TargetConfig } from './settings/target';

export { ConfigError } from './settings/setting';

/**
 * Reads .env into process.env; a variable already set, even to '', wins. The entry points call it
 * (playwright.config.ts, the merge config): importing this module reads nothing.
 */
export function loadEnvFile(): void {
  dotenv.config({ path: resolve(__dirname, '../../.env'), quiet: true });
}

type Env = Record<string, string | undefined>;

/** The settings, in the order the README and .env.example list them. */
export const SETTINGS = {
  ...TARGET_SETTINGS,
  ...DATA_SETTINGS,
  ...RECOGNITION_SETTINGS,
  ...PROPERTY_SETTINGS,
  ...REFERENCE_SETTINGS,
  ...REPORTING_SETTINGS,
};

type Settings = typeof SETTINGS;
const SETTING_NAMES = Object.values(SETTINGS).map((setting) => setting.name);
/** The whole configuration: each module that reads a few settings takes its concern's slice instead. */
export type Config = TargetConfig &
  DataConfig &
  RecognitionConfig &
  PropertiesConfig &
  ReferenceConfig &
  ReportingConfig;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[setting.name]?.trim() || setting.default;
    try {
      values[key] = setting.parse(raw);
    } catch (e) {
      const value = e instanceof ConfigProblem && e.shownValue !== undefined ? e.shownValue : raw;
      const shown = setting.secret ? '' : ` (${setting.name}=${value})`;
      problems.push(`${setting.name}: ${(e as Error).message}${shown}`);
    }
  }
  problems.push(...misspelledSettings(env, SETTING_NAMES));
  const proxy = proxySettings(env, problems, typeof values.targetUrl === 'string' ? values.targetUrl : '');
  const certificate = problems.length === 0 ? clientCertificate(values as Config, problems) : undefined;
  if (problems.length > 0) throw new ConfigError(problems);
  const config = values as Config;
  if (proxy) config.proxy = proxy;
  if (certificate) config.clientCertificate = certificate;
  config.embedded = config.targetUrl === '';
  config.recording = config.targetUrl.startsWith(REPLAY_SCHEME) ? config.targetUrl.slice(REPLAY_SCHEME.length) : '';
  config.writesEnabled = config.embedded || config.allowWrites;
  // Gentle on shared staging, flat out against our own reference (and a recording, which sends nothing).
  config.maxRequestsPerSecond ??= config.embedded || config.recording !== '' ? 0 : 10;
  config.fcNumRuns ??= config.embedded ? 100 : 25;
  if (config.invalidBearerToken === '') config.invalidBearerToken = `invalid-${randomBytes(12).toString('hex')}`;
  if (config.invalidBearerToken === config.bearerToken)
    throw new ConfigError(['RSF_INVALID_BEARER_TOKEN must differ from RSF_BEARER_TOKEN']);
  exitPolicy(config.failOn, config.strict, config.baseline); // checked before any test, applied by the reporter
  return config;
}

/** The secrets a setting's value holds: the value, or each value of an object (RSF_EXTRA_HEADERS). */
export function secretValues(value: unknown): string[] {
  // An unset secret (RSF_BEARER_TOKEN_COMMAND by default) hides nothing: '' would match between every character.
  const values = typeof value === 'object' && value !== null ? Object.values(value) : [value];
  return values.map(String).filter((v) => v !== '');
}

/** The secret settings of a config, with the variable that holds each. */
export function secretSettings(config: Config): { name: string; value: string }[] {
  return (Object.entries(SETTINGS) as [keyof Settings, Setting<unknown>][])
    .filter(([, s]) => s.secret)
    .flatMap(([key, s]) => secretValues(config[key]).map((value) => ({ name: s.name, value })));
}

/**
 * The settings that decide what a run sends and how it judges the answers, secrets left out: the test data, the
 * recognition patterns, the retries and the body cap. A recording keeps their values (replayedSettings), and its
 * replay takes them over, so that a re-grade elsewhere, without the run's .env, sends and judges as the run did.
 */
export const REPLAYED_SETTINGS: readonly Setting<unknown>[] = [
  ...Object.values(DATA_SETTINGS),
  ...Object.values(RECOGNITION_SETTINGS),
  TARGET_SETTINGS.maxRetries,
  TARGET_SETTINGS.maxResponseBytes,
].filter((setting) => !setting.secret);

/** The raw value of each of REPLAYED_SETTINGS in `env`, or its default, by name. */
export function replayedSettings(env: Env = process.env): Record<string, string> {
  return Object.fromEntries(REPLAYED_SETTINGS.map((s) => [s.name, env[s.name]?.trim() || s.default]));
}

/** The secret values of a config, for redaction. */
export function secretsOf(config: Config): string[] {
  return secretSettings(config).map((s) => s.value);
}
