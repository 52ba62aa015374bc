// Says once per run, as the target first throttles, why the run slows down: otherwise a user watching tests take
// their time learns why only from the report, at the end.
import type { Interceptor } from './delivery';
import { headerValue } from './exchange';
import { printable } from '../model/printable';

/** The run's one-time mark of its first throttled answer (run-state.ts). */
export interface ThrottleMark {
  firstThrottled(): boolean;
}

/** On the console, between the tests' lines: a worker's stderr reaches it through the console reporter. */
const toConsole = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** Tells `notify` of the run's first 429, once over all processes of the run (the runner's sending ahead too). */
export function throttleNoticed(mark: ThrottleMark, notify = toConsole): Interceptor {
  return (next) => async (request) => {
    const sent = await next(request);
    if (sent.kind === 'answer' && sent.response.status === 429 && mark.firstThrottled()) {
      const retryAfter = headerValue(sent.response, 'retry-after');
      const shown = retryAfter === undefined ? '' : `, Retry-After: ${printable(retryAfter, { maxChars: 40 })}`;
      const answer = `HTTP 429${shown}`;
      notify(
        `The target throttles (${answer}): the run slows down, all workers together, and speeds up again while ` +
          'it is not throttled. RSF_MAX_REQUESTS_PER_SECOND sets a pace it accepts from the start.',
      );
    }
    return sent;
  };
}
