// Tells redaction (src/http/redact.ts, which reads no configuration) what this process must hide: the secret
// settings of its configuration, read at the first redaction, and the near misses of the Bearer token and of the
// channel token that the probes send (near-miss-tokens.ts), nearly the secret. Importing this module is enough.
import { type Config, SETTINGS, loadConfig, secretValues, secretsOf } from '../config/config';
import type { Setting } from '../config/settings/setting';
import { nearMissTokens } from '../http/near-miss-tokens';
import { hideSecretsOf, registerSecret } from '../http/redact';

/** What a process with this configuration hides: its secret settings, and the near misses of its two tokens. */
export function secretsToHide(config: Config): string[] {
  return [...secretsOf(config), ...nearMissTokens(config.bearerToken), ...nearMissTokens(config.channelToken)];
}

hideSecretsOf(() => secretsToHide(loadConfig()));

/** Hides a Bearer token found at run time (RSF_BEARER_TOKEN_COMMAND) and the near misses the probes send of it. */
export function registerBearerToken(token: string): void {
  registerSecret(token);
  for (const nearMiss of nearMissTokens(token)) registerSecret(nearMiss);
}

/** Also hides secret settings found in the environment (a merge or reporter may run without a loadable config). */
export function registerEnvSecrets(env: NodeJS.ProcessEnv = process.env): void {
  for (const setting of Object.values(SETTINGS) as Setting<unknown>[]) {
    const raw = setting.secret ? env[setting.name]?.trim() : undefined;
    if (!raw) continue;
    registerSecret(raw);
    try {
      for (const value of secretValues(setting.parse(raw))) registerSecret(value);
    } catch {} // a value the settings refuse is hidden whole, as given
  }
  for (const token of [SETTINGS.bearerToken, SETTINGS.channelToken])
    for (const nearMiss of nearMissTokens(env[token.name]?.trim() ?? '')) registerSecret(nearMiss);
}
