// §4.15: {message: string}, required. §4.15 and §8 show no limit on the message ("limits: not shown"), so a
// server may refuse an empty message, or characters outside ordinary text: a conforming one must accept only
// what no such free choice excludes, a short non-empty message of ordinary printable text.
import fc from 'fast-check';
import { messageText } from './text';

type Body = Record<string, unknown>;

/** The configured message body with message replaced by the configured text or other ordinary, non-empty text. */
export function channelMessageBody(base: Body): fc.Arbitrary<Body> {
  return fc.oneof(fc.constant(String(base.message ?? '')), messageText()).map((message) => ({ ...base, message }));
}
