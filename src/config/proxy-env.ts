// The forward proxies of the environment (src/http/proxy.ts), read as curl reads them and checked at start-up like
// the suite's own settings. A value is never shown: a proxy URL may carry credentials.
import { type ProxySettings, proxyRoute } from '../http/proxy';

type Env = Record<string, string | undefined>;

/** The variables read, as .env.example lists them (a .env file may set them too). */
export const PROXY_VARIABLES_DOC =
  'The forward proxy of an https target (https_proxy, or HTTPS_PROXY), of an http one (http_proxy, or HTTP_PROXY), ' +
  'of either whose own is not set (all_proxy, or ALL_PROXY; a SOCKS proxy there, which the suite does not speak, ' +
  'stops the run only when the target would be reached through it), and the hosts reached without one (no_proxy, ' +
  'or NO_PROXY: a comma-separated list of names, which cover their subdomains, IP addresses and subnets such as ' +
  '10.0.0.0/8), read as curl reads them. Checked at start; a value is never shown, since it may hold credentials.';
export const PROXY_VARIABLES = ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'NO_PROXY'] as const;

/** The first of `names` that is set (curl reads the lower-case name first). */
function firstSet(env: Env, names: string[]): { variable: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { variable: name, value };
  }
  return undefined;
}

type SetVariable = { variable: string; value: string };

const NOT_SHOWN = '(its value is not shown: it may hold credentials)';

/** The proxy `set` names, or undefined with what is wrong with it in `problems`. */
function proxyUrl(set: SetVariable, problems: string[]): ProxySettings['https'] {
  let url: URL | undefined;
  try {
    url = new URL(set.value.includes('://') ? set.value : `http://${set.value}`);
  } catch {}
  if (url?.protocol !== 'http:' || !url.hostname) {
    const socks = url?.protocol.startsWith('socks')
      ? `a SOCKS proxy (${url.protocol}//), which the suite does not speak: `
      : '';
    problems.push(`${set.variable}: ${socks}expected a proxy as http://host:port ${NOT_SHOWN}`);
    return undefined;
  }
  return { variable: set.variable, url: url.href };
}

/**
 * The proxy settings, or undefined when none is set; `problems` gets what is wrong with them. curl reads all_proxy
 * for a scheme whose own variable is not set; a value there that is no HTTP proxy (a SOCKS proxy, often, set for
 * other tools) is a problem only when `targetUrl` would be reached through it.
 */
export function proxySettings(env: Env, problems: string[], targetUrl = ''): ProxySettings | undefined {
  const httpsSet = firstSet(env, ['https_proxy', 'HTTPS_PROXY']);
  const httpSet = firstSet(env, ['http_proxy', 'HTTP_PROXY']);
  const allSet = httpsSet && httpSet ? undefined : firstSet(env, ['all_proxy', 'ALL_PROXY']);
  const allProblems: string[] = [];
  const all = allSet && proxyUrl(allSet, allProblems);
  const https = httpsSet ? proxyUrl(httpsSet, problems) : all;
  const http = httpSet ? proxyUrl(httpSet, problems) : all;
  const noProxy = (firstSet(env, ['no_proxy', 'NO_PROXY'])?.value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const own = allSet && allProblems.length > 0 && schemeReachedThrough(targetUrl, { https, http, noProxy });
  if (own)
    problems.push(
      `${allProblems.join('; ')}; curl would reach RSF_TARGET_URL through it. Set ${own} to an HTTP proxy for the ` +
        "target, or add the target's host to NO_PROXY to reach it directly",
    );
  if (!https && !http) return undefined;
  return { ...(https && { https }), ...(http && { http }), noProxy };
}

/**
 * The variable of `targetUrl`'s scheme (HTTPS_PROXY, HTTP_PROXY) when that scheme has no proxy in `settings`, and a
 * request to it would go through all_proxy; else undefined.
 */
function schemeReachedThrough(targetUrl: string, settings: ProxySettings): string | undefined {
  let target: URL;
  try {
    target = new URL(targetUrl);
  } catch {
    return undefined; // the embedded reference, or a URL its own setting's check refuses
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return undefined; // a recording
  const scheme = target.protocol === 'https:' ? 'https' : 'http';
  if (settings[scheme] !== undefined) return undefined;
  const stand = { variable: 'ALL_PROXY', url: 'http://all-proxy.invalid/' };
  return proxyRoute(target, { ...settings, [scheme]: stand }) ? `${scheme.toUpperCase()}_PROXY` : undefined;
}
