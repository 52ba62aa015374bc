// The forward proxies of the environment (src/http/proxy.ts), read as curl reads them and checked at start-up like
// the suite's own settings. A value is never shown: a proxy URL may carry credentials.
import type { ProxySettings } from '../http/proxy';

type Env = Record<string, string | undefined>;

/** The variables read, as .env.example lists them (a .env file may set them too). */
export const PROXY_VARIABLES_DOC =
  'The forward proxy of an https target (https_proxy, or HTTPS_PROXY), of an http one (http_proxy, or HTTP_PROXY), ' +
  'and the hosts reached without one (no_proxy, or NO_PROXY: a comma-separated list of names, which cover their ' +
  'subdomains, IP addresses and subnets such as 10.0.0.0/8), read as curl reads them. ' +
  'Checked at start; a value is never shown, since it may hold credentials.';
export const PROXY_VARIABLES = ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'] as const;

/** The first of `names` that is set (curl reads the lower-case name first). */
function firstSet(env: Env, names: string[]): { variable: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { variable: name, value };
  }
  return undefined;
}

function proxyUrl(env: Env, names: string[], problems: string[]): ProxySettings['https'] {
  const set = firstSet(env, names);
  if (!set) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(set.value.includes('://') ? set.value : `http://${set.value}`);
  } catch {}
  if (url?.protocol !== 'http:' || !url.hostname) {
    problems.push(
      `${set.variable}: expected a proxy as http://host:port (its value is not shown: it may hold credentials)`,
    );
    return undefined;
  }
  return { variable: set.variable, url: url.href };
}

/** The proxy settings, or undefined when none is set; `problems` gets what is wrong with them. */
export function proxySettings(env: Env, problems: string[]): ProxySettings | undefined {
  const https = proxyUrl(env, ['https_proxy', 'HTTPS_PROXY'], problems);
  const http = proxyUrl(env, ['http_proxy', 'HTTP_PROXY'], problems);
  if (!https && !http) return undefined;
  const noProxy = (firstSet(env, ['no_proxy', 'NO_PROXY'])?.value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return { ...(https && { https }), ...(http && { http }), noProxy };
}
