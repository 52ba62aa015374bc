// A refusal that settings the preflight cannot check may explain (operation 15's channel token and user): the request
// is sent once more with the Bearer token, and with each setting made wrong on purpose in turn. Refused alike with the
// Bearer token and with one of them (the same status and body, but for what changes with each request), the test is
// inconclusive, naming the settings, and the run ERROR: a wrong setting is no failure of the target.
import { outcomeOf } from '../checks/outcome';
import type { Config } from '../config/config';
import type { Exchange } from '../http/exchange';
import type { WrongRequest, WrongSettings } from '../model/body-rules';
import { operationLabel } from '../model/operations';
import { type SettingKey, settingHint, settingValues } from './conformance';

export interface SettingsControl {
  /** The requests made wrong on purpose, and the settings named in the reason. */
  wrong: WrongSettings<SettingKey>;
  /** Sends a wrong settings' request (one of wrong.variants). */
  sendWrong: (variant: WrongRequest) => Promise<Exchange>;
  /** Sends the judged request again with the Bearer token. */
  sendWithBearer: () => Promise<Exchange>;
}

/** A timestamp (ISO 8601), a UUID, or a run of 8 or more hexadecimal digits (a trace, request or error id). */
const PER_REQUEST =
  /\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})?|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}|[0-9a-f]{8,}/gi;

/**
 * A refusal's text as two refusals alike share it: what changes with every request (a trace id, a time, as RFC 9457
 * problem details carry) masked, and so is each segment of the request's own path that the body echoes (the channel
 * token the request sent, made up or configured).
 */
export function sameRefusalText(exchange: Exchange): string {
  let text = exchange.rawBody.toString('utf8');
  const segments = new URL(exchange.request.url).pathname.split('/').map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  segments.forEach((segment, i) => {
    if (segment.length >= 6) text = text.split(segment).join(`<path segment ${i}>`);
  });
  return text.replace(PER_REQUEST, '#');
}

/**
 * A refusal a wrong setting may explain: a 4xx, not a server's error. Nor a 405 (RFC 9110 §15.5.6): the path names a
 * resource that does not take the spec's method, which no value of a setting changes (a wrong id names none: 404).
 */
export const refusedWith4xx = (x: Exchange, config: Config): boolean =>
  x.status >= 400 && x.status < 500 && x.status !== 405 && !outcomeOf(x, config).succeeded;

/**
 * Why `exchange`'s refusal may be its settings' fault, or undefined: the target refused it with a 4xx, and refused it
 * alike (the same status and body) with the Bearer token and with one of the wrong settings' requests, sent in turn.
 * A success, a server error, or a refusal that the Bearer token or every wrong setting changes (a message refused as
 * too long, not for its token or its user) is judged as it is.
 */
export async function refusedAsWrongSettings(
  exchange: Exchange,
  control: SettingsControl,
  config: Config,
): Promise<string | undefined> {
  if (!refusedWith4xx(exchange, config)) return undefined;
  const alike = (x: Exchange) =>
    refusedWith4xx(x, config) && x.status === exchange.status && sameRefusalText(x) === sameRefusalText(exchange);
  if (!alike(await control.sendWithBearer())) return undefined;
  let what: string | undefined;
  for (const variant of control.wrong.variants) {
    if (!alike(await control.sendWrong(variant))) continue;
    what = variant.what;
    break;
  }
  if (what === undefined) return undefined;
  const { settings } = control.wrong;
  // The settings first: the verdict line keeps a reason's first 300 characters.
  return (
    `${operationLabel(exchange.operation)} refused it with HTTP ${exchange.status}, as it refuses ` +
    `${what}, and with the Bearer token too: ${settingValues(config, settings)} may be wrong ` +
    `rather than the target, so it was not judged. ${settingHint(config, settings) ?? ''}`
  ).trim();
}
