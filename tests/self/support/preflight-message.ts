// The preflight against a target, in the test's own process: what it says is the same as in a run, without the cost
// of a run. How a run shows the message (said once, the verdict line, ERROR, no test run) is tested in child runs.
import { loadConfig } from '../../../src/config/config';
import { PreflightError, preflight } from '../../../src/checks/preflight';
import { RunState } from '../../../src/http/run-state';
import { scratchDir } from './scratch';

/**
 * The preflight of `env` (over the suite's defaults: a request's time-out of 10 s, which no loaded machine comes near
 * for a target that answers; a test of one that hangs names a shorter one): what it said while it waited
 * for the target (RSF_WAIT_FOR_TARGET_MS), its error's message if it failed, its breaker, and the slow-downs it handed
 * over for the tests to carry (RunState.handOverSlowDown). The breaker and pace
 * are its own, so that no other test of the worker sees its unanswered requests. Throws if it fails otherwise than
 * with its own error.
 */
export async function preflightOutcome(env: Record<string, string>) {
  const config = loadConfig(env);
  const state = new RunState(scratchDir('preflight-state'));
  const said: string[] = [];
  const error = await preflight(config, undefined, undefined, state, (m) => said.push(m)).catch((e: unknown) => e);
  if (error !== undefined && !(error instanceof PreflightError)) throw error;
  return { said, failed: error?.message, breaker: state.breakerOpen(), handedOver: state.takeHandedSlowDowns() };
}

/** The message of the preflight that `env` makes fail (preflightOutcome); throws if the preflight passes. */
export async function preflightMessage(env: Record<string, string>): Promise<string> {
  const { failed } = await preflightOutcome(env);
  if (failed === undefined) throw new Error('the preflight passed');
  return failed;
}
