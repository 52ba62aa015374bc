// The headers the HTTP client adds to every request it sends (wire.ts): what the recording and the curl lines of a
// failure show as sent, so that a failure that depends on them (a gzipped answer labelled other than JSON) is seen
// again from its curl line.
import { name as suiteName, version as suiteVersion } from '../../package.json';

/** Asks for compression as a browser would: a compressed body is capped by its inflated size. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';
/**
 * Names the suite, as curl and browsers name themselves: firewalls refuse requests without one (AWS WAF's common rule
 * set does), and a staging server's operators can tell the suite's requests apart, or let them through by it.
 */
export const USER_AGENT = `${suiteName}/${suiteVersion}`;

/** `headers` as the client sends them: its own first, which a request's own headers of the same name replace. */
export function sentHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return { 'Accept-Encoding': ACCEPT_ENCODING, 'User-Agent': USER_AGENT, ...headers };
}
