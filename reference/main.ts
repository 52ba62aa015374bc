// `npm run reference`: the reference server on RSF_REFERENCE_PORT (default 4010; 0 = a free port), accepting the
// tokens the suite sends (RSF_BEARER_TOKEN, RSF_CHANNEL_TOKEN), so that a user-set token works. It reads those
// variables, and .env, itself: the reference does not import the suite's configuration.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import dotenv from 'dotenv';
import { profilePath } from './faults';
import { startReferenceServer } from './server';
import { DEFAULT_BEARER_TOKEN, DEFAULT_CHANNEL_TOKEN } from './seed';

type Env = Record<string, string | undefined>;

interface CliSettings {
  port: number;
  latencyMs: number;
  bearerToken: string;
  channelToken: string;
  /** '' (the clean reference), '/_modes/<mode>' or '/_faults/<fault>': the profile whose URL is printed. */
  profile: string;
  profileName: string;
}

class SettingsProblem extends Error {}

/** A variable as the suite reads it: trimmed, and empty counts as unset. */
const settingOf = (env: Env, name: string): string => env[name]?.trim() ?? '';

function numberIn(env: Env, name: string, fallback: number, min: number, max: number, integer: boolean): number {
  const raw = settingOf(env, name);
  if (raw === '') return fallback;
  const n = Number(raw);
  const fits = /^\d+(\.\d+)?$/.test(raw) && n >= min && n <= max && (!integer || Number.isInteger(n));
  const expected = `${integer ? 'an integer' : 'a number'} from ${min} to ${max}`;
  if (!fits) throw new SettingsProblem(`${name}: expected ${expected}, got "${raw}"`);
  return n;
}

/** The settings of `npm run reference`, checked; a problem names its variable but never shows a token. */
export function readCliSettings(env: Env = process.env): CliSettings {
  const mode = settingOf(env, 'RSF_REFERENCE_MODE');
  const fault = settingOf(env, 'RSF_REFERENCE_FAULT');
  let profile: string;
  try {
    profile = profilePath({ mode: mode || undefined, fault: fault || undefined });
  } catch (e) {
    throw new SettingsProblem(`RSF_REFERENCE_MODE / RSF_REFERENCE_FAULT: ${(e as Error).message}`);
  }
  return {
    port: numberIn(env, 'RSF_REFERENCE_PORT', 4010, 0, 65535, true),
    latencyMs: numberIn(env, 'RSF_REFERENCE_LATENCY_MS', 0, 0, 10000, false),
    bearerToken: settingOf(env, 'RSF_BEARER_TOKEN') || DEFAULT_BEARER_TOKEN,
    channelToken: settingOf(env, 'RSF_CHANNEL_TOKEN') || DEFAULT_CHANNEL_TOKEN,
    profile,
    profileName: fault ? `fault ${fault}` : `mode ${mode}`,
  };
}

/** One line: the URL to point RSF_TARGET_URL at, and where the other profiles are. Never a token. */
function startLine(url: string, settings: CliSettings): string {
  const others = `${url}/_modes/<mode>/v1, ${url}/_faults/<fault>/v1`;
  const latency = settings.latencyMs > 0 ? ` Every answer waits ${settings.latencyMs} ms.` : '';
  const where = settings.profile
    ? `${url}${settings.profile}/v1, ${settings.profileName} (clean: ${url}/v1; profiles: ${others})`
    : `${url}/v1 (profiles: ${others})`;
  return `Reference server at ${where}; Ctrl-C stops it.${latency}`;
}

const USAGE = `usage: npm run reference
It takes no arguments: it reads these variables, from the environment or .env.
  RSF_REFERENCE_PORT        port on 127.0.0.1 (default 4010; 0 picks a free one)
  RSF_BEARER_TOKEN          the token it accepts (default: the suite's default)
  RSF_CHANNEL_TOKEN         the post-sale channel token it accepts (default: the suite's default)
  RSF_REFERENCE_MODE        a conforming mode whose URL it prints first (reference/README.md)
  RSF_REFERENCE_FAULT       a fault whose URL it prints first (reference/README.md)
  RSF_REFERENCE_LATENCY_MS  milliseconds each answer waits (default 0)`;

/** `--help`: the usage. Anything else given is refused, rather than ignored while the server starts. */
function readArguments(args: string[]): 'help' | 'serve' {
  const { values } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, strict: true });
  return values.help ? 'help' : 'serve';
}

async function main(): Promise<void> {
  // As the suite's entry point does: a variable already set, even to '', wins over .env.
  dotenv.config({ path: resolve(__dirname, '../.env'), quiet: true });
  const settings = readCliSettings();
  const server = await startReferenceServer({
    port: settings.port,
    bearerToken: settings.bearerToken,
    channelToken: settings.channelToken,
    latencyMs: settings.latencyMs,
  });
  console.log(startLine(server.url, settings));
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  let given: 'help' | 'serve';
  try {
    given = readArguments(process.argv.slice(2));
  } catch (e) {
    console.error(`${(e as Error).message.split('\n')[0]}\n\n${USAGE}`);
    process.exit(2);
  }
  if (given === 'help') {
    console.log(USAGE);
    process.exit(0);
  }
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
