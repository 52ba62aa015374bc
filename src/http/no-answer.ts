// How a request went without an HTTP answer: the wire raises it, the pipeline's layers pass it on (delivery.ts).
/** How a request went without an HTTP answer. */
export type NoAnswerKind =
  | 'timeout'
  | 'refused'
  | 'reset'
  | 'not-http'
  | 'unreadable-body'
  | 'other'
  /** Not sent: the operation's last requests got no answer (run-state.ts, OPERATION_THRESHOLD). */
  | 'operation-stopped';

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
