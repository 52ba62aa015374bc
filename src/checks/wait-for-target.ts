// A target that is not up yet (a server the CI job started just before the run, or one asleep until a request wakes
// it): RSF_WAIT_FOR_TARGET_MS says how long the preflight asks again, and the global setup waits so before it runs
// RSF_BEARER_TOKEN_COMMAND, which may mint its token at the target.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReferenceConfig } from '../config/settings/reference';
import type { TargetConfig } from '../config/settings/target';
import { apiBase, transportOptions } from '../config/target';
import type { Sent } from '../http/delivery';
import type { OutgoingRequest } from '../http/exchange';
import type { NoAnswerKind } from '../http/no-answer';
import { outgoingRequest } from '../http/request';
import { GATEWAY_STATUSES } from '../http/retry';
import { type TransportOptions, wireOptions } from '../http/transport';
import { wire } from '../http/wire';
import { OPERATIONS } from '../model/operations';

/** What a target that is not up yet gives: it is starting, or asleep until a request wakes it. */
export const NOT_UP_KINDS: readonly NoAnswerKind[] = ['refused', 'reset', 'timeout'];
/** A gateway's answers while the server behind it is not up (Cloudflare's 52x among them). */
export const NOT_UP_STATUSES: readonly number[] = [503, ...GATEWAY_STATUSES];
/** Between two tries while the target is not up: it is asked again soon after it is. */
const WAIT_STEP_MS = 1000;

/** Why `sent` says that the target is not up yet, or undefined when it says something else. */
function notUpReason(sent: Sent): string | undefined {
  if (sent.kind === 'no-answer') return NOT_UP_KINDS.includes(sent.failure.kind) ? sent.failure.message : undefined;
  if (sent.kind === 'answer' && NOT_UP_STATUSES.includes(sent.response.status)) return `HTTP ${sent.response.status}`;
  return undefined;
}

/**
 * Sends `request` again each second while the target is not up, for RSF_WAIT_FOR_TARGET_MS at most. On the bare wire:
 * a server that is still starting must not count toward the run's breaker. Tells `onWait` once, as it starts waiting.
 * Whether the target is up: false when it was still not up at the end.
 */
export async function waitForTarget(
  request: OutgoingRequest,
  options: TransportOptions,
  waitForTargetMs: number,
  onWait: (message: string) => void,
): Promise<boolean> {
  if (waitForTargetMs === 0) return true;
  const send = wire(wireOptions(options));
  const deadline = Date.now() + waitForTargetMs;
  for (let tries = 0; ; tries++) {
    const notUp = notUpReason(await send(request));
    if (notUp === undefined) return true;
    if (Date.now() >= deadline) return false;
    if (tries === 0)
      onWait(`The target is not up yet (${notUp}): waiting up to RSF_WAIT_FOR_TARGET_MS=${waitForTargetMs}.`);
    await sleep(Math.min(WAIT_STEP_MS, deadline - Date.now()));
  }
}

/**
 * For the global setup, before RSF_BEARER_TOKEN_COMMAND runs (a command may mint its token at the target): waits as
 * the preflight would, asking for the price list without a token, since any answer but a gateway's (NOT_UP_STATUSES)
 * says the target is up. Whether it is up; true at once without RSF_WAIT_FOR_TARGET_MS.
 */
export async function waitUntilUp(
  config: TargetConfig & Pick<ReferenceConfig, 'referenceMode' | 'referenceFault' | 'referenceLatencyMs'>,
  onWait: (message: string) => void,
): Promise<boolean> {
  const request = outgoingRequest(OPERATIONS.listPrices, { credentials: 'none' }, config, apiBase(config));
  return waitForTarget(request, transportOptions(config), config.waitForTargetMs, onWait);
}

/** What to do about an answer that says the target is not up (nothing for any other). */
export function waitAdvice(notUp: boolean, config: Pick<TargetConfig, 'waitForTargetMs'>): string {
  if (!notUp) return '';
  return config.waitForTargetMs > 0
    ? `\n  It was still not up after RSF_WAIT_FOR_TARGET_MS=${config.waitForTargetMs}.`
    : '\n  If the server was still starting, or wakes on its first request, set RSF_WAIT_FOR_TARGET_MS to wait for it.';
}
