// RSF_BEARER_TOKEN_COMMAND: a shell command that prints a fresh access token (§5.5 leaves how tokens are issued and
// how long they live open). Its output is a secret like RSF_BEARER_TOKEN; the caller registers it for redaction.
import { execFile } from 'node:child_process';

export const TOKEN_COMMAND_SETTING = 'RSF_BEARER_TOKEN_COMMAND';

/** Longest a token command may take: a token endpoint answers in seconds. */
export const TOKEN_COMMAND_TIMEOUT_MS = 30_000;

export class TokenCommandError extends Error {
  override name = 'TokenCommandError';
}

/** The token in a command's output, or why there is none (never the output itself: it may hold the token). */
function tokenOf(stdout: string): string {
  const token = stdout.trim();
  if (token === '') throw new TokenCommandError(`${TOKEN_COMMAND_SETTING} printed nothing: it must print a token.`);
  // The whole answer of a token endpoint (a common slip: curl without jq): the token is one of its fields.
  if (/^\{[\s\S]*\}$/.test(token))
    throw new TokenCommandError(
      `${TOKEN_COMMAND_SETTING} printed a JSON object, not a token: print its access token alone ` +
        "(a token endpoint's answer piped through jq -r .access_token, say).",
    );
  // A JSON string: jq without -r prints the field in quotes. A token (token68, RFC 9110 §11.2) has none.
  if (/^".*"$/s.test(token))
    throw new TokenCommandError(
      `${TOKEN_COMMAND_SETTING} printed the token in quotes, as a JSON string: print it without them (jq -r, say).`,
    );
  // A header value cannot hold a line break; a token has no blank either.
  if (/\s/.test(token))
    throw new TokenCommandError(`${TOKEN_COMMAND_SETTING} printed more than one word: it must print the token alone.`);
  return token;
}

function failure(e: unknown): TokenCommandError {
  const { status, signal } = e as { status?: number | null; code?: number | string; signal?: string | null };
  const code = status ?? (e as { code?: number | string }).code;
  const how = signal
    ? `was stopped (${signal}, after at most ${TOKEN_COMMAND_TIMEOUT_MS} ms)`
    : `failed (exit ${code})`;
  // stderr is not shown: a failing command may echo its credentials.
  return new TokenCommandError(`${TOKEN_COMMAND_SETTING} ${how}: it must print a fresh token and exit 0.`);
}

/** Runs the command without blocking the worker's other requests. */
export function runTokenCommand(command: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      '/bin/sh',
      ['-c', command],
      { env, encoding: 'utf8', timeout: TOKEN_COMMAND_TIMEOUT_MS },
      (error, stdout) => {
        if (error) reject(failure(error));
        else {
          try {
            resolve(tokenOf(stdout));
          } catch (e) {
            reject(e);
          }
        }
      },
    );
  });
}
