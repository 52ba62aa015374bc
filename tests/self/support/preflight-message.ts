// The preflight against a target, in the test's own process: what it says is the same as in a run, without the cost
// of a run. How a run shows the message (said once, the verdict line, ERROR, no test run) is tested in child runs.
import { loadConfig } from '../../../src/config/config';
import { PreflightError, preflight } from '../../../src/checks/preflight';
import { RunState } from '../../../src/http/run-state';
import { scratchDir } from './scratch';

/**
 * The message of the preflight that `env` (over the suite's defaults, with RSF_REQUEST_TIMEOUT_MS=800) makes fail.
 * Its breaker and pace are its own, so that no other test of the worker sees its unanswered requests. Throws if
 * the preflight passes or fails otherwise than with its own error.
 */
export async function preflightMessage(env: Record<string, string>): Promise<string> {
  const config = loadConfig({ RSF_REQUEST_TIMEOUT_MS: '800', ...env });
  try {
    await preflight(config, undefined, undefined, new RunState(scratchDir('preflight-state')));
  } catch (e) {
    if (e instanceof PreflightError) return e.message;
    throw e;
  }
  throw new Error('the preflight passed');
}
