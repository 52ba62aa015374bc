// Says once per run, as the target first slows the run down, why it does: otherwise a user watching tests take
// their time learns why only from the report, at the end.
import { type WireResponse, headerValue } from './exchange';
import { printable } from '../model/printable';

/** The run's one-time mark of its first slow-down (run-state.ts). */
export interface ThrottleMark {
  firstThrottled(): boolean;
}

/** On the console, between the tests' lines: a worker's stderr reaches it through the console reporter. */
export const toConsole = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/**
 * For limiter.ts's `paced`: tells `notify` of the answer (a 429, or an overloaded 503) that first slowed the run
 * down, once over all processes of the run (the runner's sending ahead too).
 */
export function throttleNotice(mark: ThrottleMark, notify = toConsole): (response: WireResponse) => void {
  return (response) => {
    if (!mark.firstThrottled()) return;
    const retryAfter = headerValue(response, 'retry-after');
    const shown = retryAfter === undefined ? '' : `, Retry-After: ${printable(retryAfter, { maxChars: 40 })}`;
    const answer = `HTTP ${response.status}${shown}`;
    // A 503 without Retry-After is an overloaded server's, or a rate limiter's (nginx's limit_req answers so).
    const what = response.status === 429 ? 'throttles' : 'refuses some requests as overloaded, or a rate limiter does';
    notify(
      `The target ${what} (${answer}): the run slows down, all workers together, and speeds up again while ` +
        'it is not throttled. RSF_MAX_REQUESTS_PER_SECOND sets a pace it accepts from the start.',
    );
  };
}
