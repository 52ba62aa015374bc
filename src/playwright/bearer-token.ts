// The run's bearer token, refreshed when it stops being accepted (issue 23 item 2). A refresh is shared through the
// run directory: the worker that sees the refusal first runs RSF_BEARER_TOKEN_COMMAND and writes the token there
// (mode 0600, renamed into place); a worker refused later takes that file's token before running the command itself.
// So one expiry usually costs one command run; two workers that refresh at once both get a valid token, which is
// harmless. Without a command, the first worker to see it writes when the token stopped being accepted, and every
// test from then on is "not run" with that reason: the run ends in ERROR, never in failures about authentication.
// So, whatever its credentials, is every test once the target refuses all the run's requests before the API (a
// gateway's quota, a firewall's rate-based rule: api-client.ts, pricesForbiddenNow), recorded the same way.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expiredJwtNote } from '../config/jwt-expiry';
import { TOKEN_COMMAND_SETTING, runTokenCommand } from '../config/token-command';
import { type Exchange, parseBody, plainString } from '../http/exchange';
import { bodyInLine, challengeShown } from '../http/presentation';
import { firstRunFile, runFile } from './run-files';
import { registerBearerToken } from './secrets';
import { runState } from '../http/run-state';
import { isObject } from '../model/operations';
import { LOGGED_IN_FIELDS } from '../checks/stock';

const TOKEN_FILE = 'bearer-token';
const REFUSED_FILE = 'bearer-token-refused';
const WHOLESALE_FILE = 'requests-refused';

/** The documented wording of a refused token (§5.4): "credentials required" or "not authenticated". */
const AUTH_REFUSAL = /\b(not authenticated|credentials required)\b/i;

/** An answer that refuses authentication: HTTP 401, or the documented error (§5.4, §7.1) with any status. */
export function refusesAuthentication(exchange: Exchange): boolean {
  if (exchange.status === 401) return true;
  if (exchange.truncated || exchange.text.length > 2000) return false;
  const body = parseBody(exchange.text, exchange.contentType);
  const text = plainString(body);
  if (text !== undefined) return AUTH_REFUSAL.test(text);
  if (body.kind !== 'json' || typeof body.value !== 'object' || body.value === null) return false;
  const fields = body.value as Record<string, unknown>;
  return ['message', 'msg', 'error_message', 'error'].some(
    (k) => typeof fields[k] === 'string' && AUTH_REFUSAL.test(fields[k]),
  );
}

/**
 * An answer of the operation that takes the token optionally (§5.2, operation 8) without the fields a logged-in caller
 * gets, to the valid token: what a token that expired gets from a server that answers it as no token, as §5.2
 * allows, with no 401 to say so (indep99). Whether the token is still accepted, GET /prices then tells.
 */
export function answeredAsAnonymous(exchange: Exchange): boolean {
  if (exchange.operation.auth !== 'optional-bearer' || exchange.status < 200 || exchange.status > 299) return false;
  const body = exchange.body.kind === 'json' ? exchange.body.value : undefined;
  // Absent, as OP8-LOGGED-IN-FIELDS asks them present: a product whose stock fields are null asks nothing again.
  return isObject(body) && LOGGED_IN_FIELDS.every((field) => !(field in body));
}

/** The token each configured token has been replaced with in this process. */
const replaced = new Map<string, string>();
/** Refreshes under way, by refused token: requests refused together share one. */
const renewing = new Map<string, Promise<Renewal>>();
/** Why the run's token is no longer accepted, once known in this process. */
let refusedReason: string | undefined;

export type Renewal =
  /** Send the request again with this token. */
  | { kind: 'token'; token: string }
  /** The token is still accepted elsewhere: the refusal is the operation's own, for the checks to judge. */
  | { kind: 'judge' }
  /** No token can be had: the test is not run, for this reason. */
  | { kind: 'refused'; reason: string };

/** The token to send now: the configured one, or what replaced it. */
export function currentBearerToken(configured: string): string {
  return replaced.get(configured) ?? configured;
}

/** Why the run's token stopped being accepted, if it did and no command refreshes it. */
export function tokenRefusedReason(): string | undefined {
  refusedReason ??= runFile(REFUSED_FILE);
  return refusedReason;
}

function sharedToken(): string | undefined {
  return runFile(TOKEN_FILE)?.trim() || undefined;
}

function shareToken(token: string): void {
  const path = join(runState().dir, TOKEN_FILE);
  const temporary = `${path}.${process.pid}`;
  writeFileSync(temporary, token, { mode: 0o600 });
  renameSync(temporary, path); // atomic: readers see the old token or the new one
}

/** Records the reason once: the first worker's words (and time) stand for the run. */
function recordRefusal(reason: string): string {
  refusedReason = firstRunFile(REFUSED_FILE, reason);
  return refusedReason;
}

export interface RefusalContext {
  /** The configured RSF_BEARER_TOKEN, and the token the refused request carried. */
  configured: string;
  refused: string;
  /** RSF_BEARER_TOKEN_COMMAND, or ''. */
  command: string;
  /** "GET /v1/item/1001 (operation 8)", and the refusal's status and body excerpt. */
  request: string;
  answer: Exchange;
  /**
   * GET /prices, which the preflight saw accept the token, sent with the refused token: true when it refuses too
   * (the token stopped being accepted), false when it accepts it, undefined when it could not tell.
   */
  pricesRefuse: () => Promise<boolean | undefined>;
}

async function renew(ctx: RefusalContext): Promise<Renewal> {
  const shared = sharedToken();
  if (shared !== undefined && shared !== ctx.refused) {
    registerBearerToken(shared);
    replaced.set(ctx.configured, shared);
    return { kind: 'token', token: shared };
  }
  const known = tokenRefusedReason();
  if (known !== undefined) return { kind: 'refused', reason: known };
  if ((await ctx.pricesRefuse()) !== true) return { kind: 'judge' };
  const at = new Date().toISOString();
  const says = ctx.answer.challenge ? ` (WWW-Authenticate: ${challengeShown(ctx.answer)})` : '';
  const body = bodyInLine(ctx.answer, 120);
  const answer = `HTTP ${ctx.answer.status}${says}: ${body}`;
  if (ctx.command !== '') {
    try {
      const token = await runTokenCommand(ctx.command);
      registerBearerToken(token);
      shareToken(token);
      replaced.set(ctx.configured, token);
      return { kind: 'token', token };
    } catch (e) {
      return {
        kind: 'refused',
        reason: recordRefusal(
          `The bearer token stopped being accepted at ${at} (${ctx.request} answered ${answer}), and ` +
            `${(e as Error).message}`,
        ),
      };
    }
  }
  return {
    kind: 'refused',
    reason: recordRefusal(
      `RSF_BEARER_TOKEN stopped being accepted at ${at}: ${ctx.request} answered ${answer}, and GET /prices, ` +
        `which accepted it at the start of the run, refuses it too.${expiredJwtNote(ctx.refused).trimEnd()} Set a ` +
        `fresh RSF_BEARER_TOKEN, or ${TOKEN_COMMAND_SETTING} to have the suite refresh it.`,
    ),
  };
}

/** refusedWholesaleReason, once known in this process. */
let refusedWholesale: string | undefined;

/**
 * Why the target refuses every request of the run before the API answers it, once a worker saw it (a gateway's quota,
 * a firewall's rate-based rule): every test from then on is "not run" with that reason, whatever its credentials.
 */
export function refusedWholesaleReason(): string | undefined {
  refusedWholesale ??= runFile(WHOLESALE_FILE);
  return refusedWholesale;
}

/** Why the run in `dir` stopped sending once the target refused its requests: every request, or its token. */
export function runRefusal(dir: string): string | undefined {
  return runFile(WHOLESALE_FILE, dir) ?? runFile(REFUSED_FILE, dir);
}

/** Records the reason once for the run: the first worker's words stand. */
export function recordRefusedWholesale(reason: string): string {
  refusedWholesale = firstRunFile(WHOLESALE_FILE, reason);
  return refusedWholesale;
}

/** What to do about a request with valid credentials whose answer refuses authentication. */
export function onTokenRefused(ctx: RefusalContext): Promise<Renewal> {
  const pending = renewing.get(ctx.refused) ?? renew(ctx);
  renewing.set(ctx.refused, pending);
  // A "judge" is for this refusal only: the same token may stop being accepted later.
  void pending.then((r) => r.kind === 'judge' && renewing.delete(ctx.refused));
  return pending;
}
