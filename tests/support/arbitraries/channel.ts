// §4.15: {message: string}, required. Any string is a valid message, the empty one too: it is still a string.
import fc from 'fast-check';
import { anyText } from './text';

type Body = Record<string, unknown>;

/** The configured message body with message replaced by the configured text, '', ASCII or Unicode text. */
export function channelMessageBody(base: Body): fc.Arbitrary<Body> {
  return fc.oneof(fc.constant(String(base.message ?? '')), anyText()).map((message) => ({ ...base, message }));
}
