// Requirement checks. Each runs as a step named after its requirement, at the caller's line (the check machinery's
// frames are cut from a failure's stack, which points where `box` would, and further), records its outcome for the
// conformance reporter, and on failure attaches redacted evidence. MUST failures fail the test; SHOULD and
// INFO failures are recorded as warnings and the test goes on (the reporter applies the exit policy).
import { expect as baseExpect, test } from '@playwright/test';
import { type Level, requirement, sectionLabel } from './catalogue';
import { EVIDENCE_ATTACHMENT_PREFIX, type Evidence, checkAnnotation } from './check-protocol';
import type { Config } from './config';
import { type Exchange, recordOf } from './http';
import { conformanceMatchers, lastFailure } from './matchers';
import { operationLabel } from './operations';
import { isObject, outcomeOf } from './outcome';
import { redact } from './redact';

// The same matchers as fixtures' `expect`, for the checks' own assertions (spec files use the one from fixtures).
const expect = baseExpect.extend(conformanceMatchers);

/** Playwright tags for requirement IDs: tags('OP4-UTILITY-MAX') → ['@OP4-UTILITY-MAX']. */
export const tags = (...ids: string[]): string[] => ids.map((id) => `@${id}`);

/** Requirements that every rejection of invalid input, or of credentials, is also held to. */
export const INVALID_INPUT_IDS = ['HTTP-INVALID-INPUT-4XX', 'GEN-ERROR-CONTENT-TYPE'] as const;
export const AUTH_REJECTION_IDS = ['HTTP-AUTH-401', 'GEN-ERROR-CONTENT-TYPE'] as const;

/** A documented error shape and the requirement that documents it. */
export interface ErrorShape {
  id: string;
  schemas: string[];
}

export interface CheckContext {
  seed?: string;
  replay?: string;
}

const ANSI = /\u001b\[[0-9;]*m/g;

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * Puts the requirement in front of the error, redacted, and drops the stack frames of the check machinery, so
 * that the failure points at the line of the test that called the check.
 */
function explain(error: Error, header: string): Error {
  const original = error.message;
  error.message = redact(`${header}\n${original}`);
  if (error.stack) {
    const frames = error.stack.replace(original, '').split('\n').filter((line) => /^\s+at /.test(line) && !CHECK_MACHINERY.test(line));
    error.stack = redact([`${error.name}: ${error.message}`, ...frames].join('\n'));
  }
  return error;
}

export interface ConformanceOptions {
  /**
   * Set by the mutation matrix, where a failing MUST check is the expected outcome: the test is then marked
   * expected-to-fail, so that Playwright keeps its worker (it replaces it after every unexpected failure).
   */
  failingChecksExpected?: boolean;
}

export class Conformance {
  constructor(private readonly config: Config, private readonly options: ConformanceOptions = {}) {}

  /** Runs `body` as the check of requirement `id`, with `evidence` as the exchanges it judged. */
  async verify(id: string, evidence: Exchange | Exchange[], body: () => Promise<void> | void, context: CheckContext = {}): Promise<void> {
    const req = requirement(id);
    const info = test.info();
    if (!info.tags.includes(`@${id}`)) throw new Error(`This test checks ${id} but is not tagged @${id}: add the tag, so that the catalogue can trace it.`);
    const exchanges = Array.isArray(evidence) ? evidence : [evidence];
    const operation = exchanges[0] ? operationLabel(exchanges[0].operation) : `operations ${req.operations.join(', ')}`;
    const header = `${req.level} ${id} (${sectionLabel(req.section)}), ${operation}: ${req.text}`;
    lastFailure.schemaErrors = [];
    try {
      await test.step(`${id} · ${req.level} · ${sectionLabel(req.section)}`, async () => { await body(); }, { location: callerLocation() });
      info.annotations.push(checkAnnotation(id, 'passed'));
    } catch (e) {
      const error = explain(asError(e), header);
      info.annotations.push(checkAnnotation(id, 'failed'));
      const record: Evidence = {
        requirement: id,
        level: req.level,
        section: req.section,
        operation,
        message: error.message.replace(ANSI, ''),
        schemaErrors: lastFailure.schemaErrors,
        exchanges: exchanges.map((x) => recordOf(x, this.config)),
        ...(context.seed !== undefined ? { seed: context.seed } : {}),
        ...(context.replay !== undefined ? { replay: redact(context.replay) } : {}),
      };
      await info.attach(`${EVIDENCE_ATTACHMENT_PREFIX}${id}`, { body: JSON.stringify(record, null, 2), contentType: 'application/json' });
      if (failsTheTest(req.level)) {
        if (this.options.failingChecksExpected) test.fail(true, `${id} fails against this fault of the reference, as intended`);
        throw error;
      }
      info.annotations.push({ type: 'warning', description: `${id} (${req.level}) not met: ${firstLine(error.message.replace(ANSI, ''), 2)}` });
    }
  }

  // Named checks, reused by every operation (after Schemathesis' checks).

  /** positive_data_acceptance: the operation succeeds with its documented success body. */
  async succeeds(id: string, exchange: Exchange): Promise<void> {
    await this.verify(id, exchange, () => expect(exchange).toSucceed());
  }

  /** positive_data_acceptance and content_type_conformance, for operations whose success body is JSON. */
  async succeedsWithJson(id: string, exchange: Exchange): Promise<void> {
    await this.succeeds(id, exchange);
    await this.jsonContentType(exchange);
  }

  /** negative_data_rejection / ignored_auth, the MUST half: the operation does not succeed. */
  async rejects(id: string, exchange: Exchange): Promise<void> {
    await this.verify(id, exchange, () => expect(exchange).toBeRejected());
  }

  /**
   * An operation that takes no credentials (§5.2, §5.3) succeeds without an Authorization header. Only when it
   * does not is the same request sent once more, with the token: if that succeeds, the missing header was the
   * reason and `id` fails; if not, the operation fails in some other way, which the success check after this
   * one reports, so `id` is not judged (no false alarm on it).
   */
  async worksWithoutCredentials(id: string, exchange: Exchange, sameRequestWithToken: () => Promise<Exchange>): Promise<void> {
    if (!outcomeOf(exchange, this.config).succeeded) {
      const withToken = await sameRequestWithToken();
      if (!outcomeOf(withToken, this.config).succeeded) return;
      await this.verify(id, [exchange, withToken], () => expect(exchange, 'refused without an Authorization header, while the same request with the token succeeds').toSucceed());
      return;
    }
    await this.verify(id, exchange, () => expect(exchange).toSucceed());
  }

  async matchesSchema(id: string, exchange: Exchange, schema: string): Promise<void> {
    await this.verify(id, exchange, () => expect(exchange).toMatchSchema(schema));
  }

  /** The error body has one of the shapes that requirement `id` documents (its `schemas` in the catalogue). */
  async documentedErrorShape(id: string, exchange: Exchange): Promise<void> {
    const shapes = requirement(id).schemas;
    if (!shapes?.length) throw new Error(`${id} names no schema in specs/requirements.json`);
    await this.verify(id, exchange, () => expect(exchange).toMatchSchema(shapes));
  }

  /** content_type_conformance for JSON success bodies (intro paragraph). */
  async jsonContentType(exchange: Exchange): Promise<void> {
    await this.verify('GEN-JSON-CONTENT-TYPE', exchange, () => expect(exchange).toHaveJsonContentType());
  }

  /** content_type_conformance for error bodies that are JSON objects; nothing to check otherwise. */
  async errorContentType(exchange: Exchange): Promise<void> {
    if (exchange.body.kind !== 'json' || !isObject(exchange.body.value)) return;
    await this.verify('GEN-ERROR-CONTENT-TYPE', exchange, () => expect(exchange).toHaveJsonContentType());
  }

  /**
   * Invalid input is refused (`id`), ideally with a 4xx (SHOULD), in the shape requirement `errorShapeId` documents, if given.
   * When `id` is only a SHOULD and the target accepted the input, there is no error to judge further.
   */
  async negativeDataRejection(id: string, exchange: Exchange, errorShapeId?: string): Promise<void> {
    await this.rejects(id, exchange);
    if (outcomeOf(exchange, this.config).succeeded) return;
    await this.verify('HTTP-INVALID-INPUT-4XX', exchange, () => {
      expect(exchange.status, 'invalid input should be answered with a 4xx status').toBeGreaterThanOrEqual(400);
      expect(exchange.status, 'invalid input should be answered with a 4xx status').toBeLessThan(500);
    });
    await this.errorContentType(exchange);
    if (errorShapeId) await this.documentedErrorShape(errorShapeId, exchange);
  }

  /** Credentials that are missing or not accepted are refused (MUST `id`), ideally with 401 (SHOULD). */
  async ignoredAuthRejected(id: string, exchange: Exchange, errorShapeId?: string): Promise<void> {
    await this.rejects(id, exchange);
    await this.verify('HTTP-AUTH-401', exchange, () => expect(exchange.status, 'missing or rejected credentials should be answered with 401').toBe(401));
    await this.errorContentType(exchange);
    if (errorShapeId) await this.documentedErrorShape(errorShapeId, exchange);
  }
}

/** Only MUST failures fail a test; SHOULD and INFO are reported as warnings. */
export function failsTheTest(level: Level): boolean {
  return level === 'MUST';
}

const CHECK_MACHINERY = /[\\/]tests[\\/]support[\\/](checks|matchers)\.ts:|[\\/]node_modules[\\/]|^node:|\(node:/;

/** Where the test called the check: a failure should point at that line, not at this module. */
function callerLocation(): { file: string; line: number; column: number } | undefined {
  for (const frame of (new Error().stack ?? '').split('\n').slice(1)) {
    const match = /\(?([^()\s]+):(\d+):(\d+)\)?$/.exec(frame.trim());
    if (!match || CHECK_MACHINERY.test(frame)) continue;
    return { file: match[1]!, line: Number(match[2]), column: Number(match[3]) };
  }
  return undefined;
}

function firstLine(text: string, lines: number): string {
  return text.split('\n').slice(0, lines).join(' ');
}
