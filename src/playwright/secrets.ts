// Tells redaction (src/http/redact.ts, which reads no configuration) what this process must hide: the secret
// settings of its configuration, read at the first redaction. Importing this module is enough.
import { SETTINGS, loadConfig, secretsOf } from '../config/config';
import { hideSecretsOf, registerSecret } from '../http/redact';

hideSecretsOf(() => secretsOf(loadConfig()));

/** Also hides secret settings found in the environment (a merge or reporter may run without a loadable config). */
export function registerEnvSecrets(env: NodeJS.ProcessEnv = process.env): void {
  for (const setting of Object.values(SETTINGS) as { name: string; secret?: boolean }[]) {
    const value = setting.secret ? env[setting.name]?.trim() : undefined;
    if (value) registerSecret(value);
  }
}
