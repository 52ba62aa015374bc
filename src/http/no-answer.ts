// How a request went without an HTTP answer: the wire raises it, the pipeline's layers pass it on (delivery.ts).
/**
 * How a request went without an HTTP answer. 'operation-stopped': not sent, the operation's last requests got no
 * answer (run-state.ts, OPERATION_THRESHOLD). 'not-recorded': a replay (RSF_TARGET_URL=har:…) has no answer for it;
 * nothing was sent, so it says nothing of the target. 'interrupted': the run was interrupted (interrupt.ts) before the
 * answer came, or before the request went out; it says nothing of the target either. 'stopped-in-recording': a replay
 * of a run that stopped sending once the target refused its requests (its token, or every request): the recorded test
 * sent nothing more, and is not run, as it was; the message is the recorded reason. 'certificate': TLS refused the
 * target's certificate (not trusted here, expired, for other names); the message says the remedy.
 */
export type NoAnswerKind =
  | 'timeout'
  | 'refused'
  | 'reset'
  | 'not-http'
  | 'unreadable-body'
  | 'other'
  | 'certificate'
  | 'operation-stopped'
  | 'not-recorded'
  | 'stopped-in-recording'
  | 'interrupted';

/** The target gave no (complete) HTTP answer. The message carries no URL and no header: it is safe to show. */
export class NoAnswer extends Error {
  override name = 'NoAnswer';

  constructor(
    readonly kind: NoAnswerKind,
    message: string,
    readonly durationMs: number,
  ) {
    super(message);
  }
}
