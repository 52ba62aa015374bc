// The judge: runs a check's assertions as steps at the test's own location, records each outcome for the
// conformance reporter, and turns a failure into typed Evidence. MUST failures fail the test; SHOULD and INFO failures
// are recorded as warnings and the test goes on (the reporter applies the exit policy).
import { test } from '@playwright/test';
import { requirement, sectionLabel } from '../model/catalogue';
import { EVIDENCE_ATTACHMENT_PREFIX, type Evidence, checkAnnotation, failsTheTest } from '../checks/check-protocol';
import { type Assertion, type Check, type CheckContext, isNotApplicable } from '../checks/checks';
import { type Config, SETTINGS, secretSettings } from '../config/config';
import { SETTING_CHECKS } from '../config/setting-checks';
import { CheckFailure, RequirementFailure, atLocation } from '../checks/failure';
import { outcomeOf, settingsMayBeToBlame } from '../checks/outcome';
import type { Exchange } from '../http/exchange';
import { cacheNote, cutJsonNote, describeExchange, notUtf8Note, recordOf, webPageNote } from '../http/presentation';
import { operationLabel } from '../model/operations';
import { redact } from '../http/redact';
import './secrets';
import { firstLines, stripAnsi } from '../model/text';
import { asStep } from './steps';
import { isUnjudged } from './unjudged';

/** A setting, by its key in SETTINGS, that a request depends on and the preflight cannot check without writing. */
export type SettingKey = keyof typeof SETTINGS;

export interface JudgeOptions {
  /** Settings that may be to blame if the target refuses what it should accept (or the reverse). */
  settings?: readonly SettingKey[];
  /** Exchanges to show when the failure does not name its own. */
  evidence?: readonly Exchange[];
  /** What the failure's message adds about how the exchanges were sent (a link's second step sent again, say). */
  note?: string;
}

/**
 * A text value as it is written in its setting: a JSON setting's string quoted (RSF_CATEGORY_ID="10", which 10 would
 * not be: indep116), any other as it is.
 */
function asWritten(parse: (raw: string) => unknown, value: string): string {
  try {
    return parse(value) === value ? value : JSON.stringify(value);
  } catch {
    return JSON.stringify(value);
  }
}

/** "RSF_CATEGORY_ID=10, RSF_CHANNEL_TOKEN (secret)": a secret is named, never shown. */
export function settingValues(config: Config, keys: readonly SettingKey[]): string {
  return keys
    .map((key) => {
      const setting = SETTINGS[key] as { name: string; secret?: boolean; parse: (raw: string) => unknown };
      const value = config[key as keyof Config];
      // A pattern (RSF_REJECTION_TEXT) as its source: JSON.stringify would show {}.
      const shown =
        typeof value === 'string'
          ? asWritten(setting.parse, value)
          : value instanceof RegExp
            ? value.source
            : JSON.stringify(value);
      return setting.secret ? `${setting.name} (secret)` : `${setting.name}=${shown}`;
    })
    .join(', ');
}

/** What a failure that `keys` may explain says of them: their values, and how to check each by hand. */
export function settingHint(config: Config, keys: readonly SettingKey[]): string | undefined {
  if (keys.length === 0) return undefined;
  // A setting a refusal cannot tell from non-conformance says how to check it by hand.
  const howTo = keys.flatMap((key) => {
    const how = SETTING_CHECKS[key]?.howToCheck;
    return how ? [`${(SETTINGS[key] as { name: string }).name}: ${how}`] : [];
  });
  return (
    `A setting may be to blame rather than the target: ${settingValues(config, keys)}. ` +
    (howTo.length ? `How to check: ${howTo.join('; ')}.` : 'Check that it names what the target has.')
  );
}

export class Conformance {
  constructor(private readonly config: Config) {}

  /** Runs every assertion of `check` over `exchange`, in order. */
  async check(
    check: Check,
    exchange: Exchange,
    context: Omit<CheckContext, 'config'> & JudgeOptions = {},
  ): Promise<void> {
    // Only the request's own outcome, carried out or refused, can be a setting's fault: not the shape, content type
    // or fields of an answer (a check that expects either outcome; indep98's logged-in fields sent to an anonymous
    // caller named RSF_PRODUCT_ID).
    const outcome = check.expects === 'either' ? undefined : check.assertions[0];
    for (const assertion of check.assertions) {
      const settings = assertion === outcome ? context.settings : undefined;
      const evidence = context.chain ?? [exchange];
      await this.verify(assertion.id, evidence, (ctx) => assertion.judge(exchange, ctx), { ...context, settings });
    }
  }

  /** Runs `check` (a linkCheck) over a chain of exchanges: the evidence shows every one of them. */
  async checkChain(check: Check, chain: readonly Exchange[], context: JudgeOptions = {}): Promise<void> {
    const last = chain.at(-1);
    if (!last) throw new Error('checkChain needs at least one exchange');
    // The settings feed a chain's first step: once a step was carried out, they named what the target has (indep98:
    // an address created, then its update refused, named RSF_ADDRESS_FIELDS).
    const carriedOut = chain.slice(0, -1).some((x) => outcomeOf(x, this.config).succeeded);
    const { settings, ...rest } = context;
    await this.check(check, last, { ...rest, ...(settings && !carriedOut && { settings }), chain });
  }

  /** Runs `judge` as the check of requirement `id`, with `exchanges` as the evidence it judged. */
  async verify(
    id: string,
    exchanges: readonly Exchange[],
    judge: (context: CheckContext) => ReturnType<Assertion['judge']>,
    options: Omit<CheckContext, 'config'> & JudgeOptions = {},
  ): Promise<void> {
    const req = requirement(id);
    const info = test.info();
    if (!info.tags.includes(`@${id}`)) {
      throw new Error(`This test checks ${id} but is not tagged @${id}: derive its tags from its checks (tagsOf).`);
    }
    // The test's own line: Playwright knows it, and the step reports its failures there (a boxed step would too, at
    // the cost of capturing a source-mapped stack per check).
    const location = { file: info.file, line: info.line, column: info.column };
    let outcome: Awaited<ReturnType<Assertion['judge']>> | undefined;
    try {
      await asStep(
        `${id} · ${req.level} · ${sectionLabel(req.section)}`,
        async () => {
          const context = { config: this.config, ...(options.resend && { resend: options.resend }) };
          try {
            outcome = await judge(options.chain ? { ...context, chain: options.chain } : context);
          } catch (e) {
            throw atLocation(e, location);
          }
        },
        location,
      );
    } catch (e) {
      if (isUnjudged()) throw e; // skipped as inconclusive or not run: not this requirement's failure
      const evidence = this.evidenceOf(id, e, exchanges, options);
      info.annotations.push(checkAnnotation(id, 'failed'));
      await info.attach(`${EVIDENCE_ATTACHMENT_PREFIX}${id}`, {
        body: JSON.stringify(evidence, null, 2),
        contentType: 'application/json',
      });
      if (failsTheTest(req.level)) throw new RequirementFailure(evidence);
      const summary = firstLines(evidence.message, 2);
      info.annotations.push({ type: 'warning', description: `${id} (${req.level}) not met: ${summary}` });
      return;
    }
    if (isNotApplicable(outcome)) info.annotations.push(checkAnnotation(id, 'untested', outcome.notApplicable));
    else info.annotations.push(checkAnnotation(id, 'passed'));
  }

  private evidenceOf(id: string, error: unknown, judged: readonly Exchange[], options: JudgeOptions): Evidence {
    const req = requirement(id);
    const failure = error instanceof CheckFailure ? error : undefined;
    const data = failure?.data;
    const exchanges = data?.exchanges ?? options.evidence ?? judged;
    const operation = exchanges[0] ? operationLabel(exchanges[0].operation) : `operations ${req.operations.join(', ')}`;
    const judgedLast = judged.at(-1);
    const suspects = judgedLast !== undefined && settingsMayBeToBlame(judgedLast, this.config);
    const hint =
      options.settings && suspects && !data?.settingsCleared ? settingHint(this.config, options.settings) : undefined;
    const page = judgedLast && webPageNote(judgedLast);
    const cached = exchanges.map(cacheNote).find((note) => note !== undefined);
    const garbled = id === 'GEN-JSON-UTF8' ? undefined : exchanges.map(notUtf8Note).find((n) => n !== undefined);
    const cut = exchanges.map(cutJsonNote).find((n) => n !== undefined);
    const what = failure ? failure.message : stripAnsi(error instanceof Error ? error.message : String(error));
    const message = redact(
      [
        `${req.level} ${id} (${sectionLabel(req.section)}), ${operation}: ${req.text}`,
        what,
        ...(data?.schemaErrors?.length ? ['schema errors:', ...data.schemaErrors.map((e) => `  - ${e}`)] : []),
        ...(hint ? [`hint: ${hint}`] : []),
        ...(options.note ? [`note: ${options.note}`] : []),
        ...(page ? [`note: ${page}`] : []),
        ...(cached ? [`note: ${cached}`] : []),
        ...(garbled ? [`note: ${garbled}`] : []),
        ...(cut ? [`note: ${cut}`] : []),
        ...exchanges.map((x) => `exchange:\n${describeExchange(x, secretSettings(this.config))}`),
      ].join('\n'),
    );
    return {
      requirement: id,
      level: req.level,
      section: req.section,
      operation,
      title: data?.title ?? 'Check failed',
      message,
      schemaErrors: [...(data?.schemaErrors ?? [])],
      exchanges: exchanges.map((x) => recordOf(x, secretSettings(this.config))),
      ...(hint !== undefined && { hint }),
      ...(data?.seed !== undefined && { seed: data.seed }),
      ...(data?.replay !== undefined && { replay: redact(data.replay) }),
    };
  }
}
