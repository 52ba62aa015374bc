// The console during a conformance run: a line per test as it ends, then the failures with their evidence, then the
// counts. Playwright's own list reporter would show a test failed by a requirement as passed, since the suite marks
// it expected to fail to keep the worker (kept-worker.ts); this one reads the status, which stays "failed".
import { relative } from 'node:path';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestError,
  TestResult,
} from '@playwright/test/reporter';
import { INCONCLUSIVE_ANNOTATION, NOT_RUN_ANNOTATION, TRANSIENT_ANNOTATION } from '../checks/check-protocol';
import { transientLine } from '../report/format';
import { plural, stripAnsi } from '../model/text';
import { stdoutFlushed } from './stdout';
import { EMBEDDED_TARGET } from '../config/target';
import { CRASHED_HINT, TIMED_OUT_HINT, crashedUnjudged, timedOutUnjudged } from './collect';

/** Failures shown in full on the console; the rest are listed by title, and every one is in reports/. */
const FAILURES_IN_FULL = 20;
/** The lines of one failure's message shown on the console (its evidence is whole in the reports). */
const LINES_PER_FAILURE = 80;

const MARKS: Record<TestResult['status'], string> = {
  passed: '✓',
  failed: '✘',
  timedOut: '✘',
  interrupted: '⊘',
  skipped: '-',
};

/**
 * What the run tests, said before any result: a run that passes against the embedded reference because
 * RSF_TARGET_URL was not set where it ran (a CI secret missing) must not read as the target's pass.
 */
function targetLine(metadata: FullConfig['metadata']): string {
  if (typeof metadata.target !== 'string') return '';
  const safety = typeof metadata.safetyMode === 'string' ? `, ${metadata.safetyMode}` : '';
  const unset = metadata.target === EMBEDDED_TARGET ? ' (RSF_TARGET_URL is not set)' : '';
  return `Target: ${metadata.target}${unset}${safety}\n`;
}

export default class ConsoleReporter implements Reporter {
  private readonly rootDir = process.cwd();
  private count = 0;
  private total = 0;
  private readonly failures: { test: TestCase; result: TestResult }[] = [];
  private readonly counts = { passed: 0, failed: 0, interrupted: 0, skipped: 0 };
  /**
   * Of the skipped, those not judged, as the reports count them (indep99 read "78 skipped" beside the report's "76
   * tests not run" and 2 inconclusive, where the README's skipped is "not run on purpose").
   */
  private readonly unjudged = { inconclusive: 0, notRun: 0 };
  /** Tests that ran out of time before a check failed: not judged (collect.ts), so not counted as failed. */
  private readonly timedOut: TestCase[] = [];
  /** Tests that broke outside any check: not judged either (collect.ts), shown in full, to be reported. */
  private readonly crashed: { test: TestCase; result: TestResult }[] = [];
  /** Gateway blips the tests' requests got and sent again. */
  private transient = 0;

  printsToStdio(): boolean {
    return true;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.total = suite.allTests().length;
    const target = `${targetLine(config.metadata)}\n`;
    // `--list` runs nothing: the tests it would run, as Playwright's own list reporter shows them.
    if (process.argv.includes('--list')) return void process.stdout.write(`\n${target}${this.listing(suite)}`);
    // A run its global setup stopped (a failed preflight) has no test: what stopped it follows, not "Running 0 tests".
    if (this.total === 0) return void process.stdout.write(`\n${target}`);
    const tests = this.total === 1 ? '1 test' : `${this.total} tests`;
    const workers = config.workers === 1 ? '1 worker' : `${config.workers} workers`;
    process.stdout.write(`\nRunning ${tests} using ${workers}\n${target}`);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.count++;
    // Interrupted (Ctrl-C) is no failure: counted apart, as Playwright's list reporter counts it, with no evidence.
    if (timedOutUnjudged(result)) {
      this.timedOut.push(test);
    } else if (crashedUnjudged(result)) {
      this.crashed.push({ test, result });
    } else {
      const status = result.status === 'timedOut' ? 'failed' : result.status;
      const notJudged = (type: string) => result.annotations.some((a) => a.type === type);
      if (status === 'skipped' && notJudged(NOT_RUN_ANNOTATION)) this.unjudged.notRun++;
      else if (status === 'skipped' && notJudged(INCONCLUSIVE_ANNOTATION)) this.unjudged.inconclusive++;
      else this.counts[status]++;
      if (status === 'failed') this.failures.push({ test, result });
    }
    for (const a of result.annotations)
      if (a.type === TRANSIENT_ANNOTATION) this.transient += Number(a.description) || 0;
    // A skipped test's reason is in the reports: a target that died would repeat one sentence for every test.
    process.stdout.write(
      `  ${MARKS[result.status]} ${String(this.count).padStart(4)} ${this.titleOf(test)} (${result.duration}ms)\n`,
    );
  }

  /** A sharded run has no conformance reporter to wait for the console's output: this one does (stdout.ts). */
  onExit(): Promise<void> {
    return stdoutFlushed();
  }

  onStdErr(chunk: string | Buffer): void {
    process.stderr.write(chunk);
  }

  onError(error: TestError): void {
    process.stdout.write(`\nError: ${stripAnsi(error.message ?? error.value ?? 'unknown error')}\n`);
  }

  onEnd(result: FullResult): void {
    this.inFull(this.failures);
    const rest = this.failures.slice(FAILURES_IN_FULL);
    if (rest.length > 0) {
      process.stdout.write(`\n  ${rest.length} more failed tests; their evidence is in reports/conformance.md:\n`);
      for (const { test } of rest) process.stdout.write(`    ${this.titleOf(test)}\n`);
    }
    if (this.crashed.length > 0) process.stdout.write(`\n  Broke outside any check, not judged: ${CRASHED_HINT}.\n`);
    this.inFull(this.crashed);
    if (this.timedOut.length > 0) {
      process.stdout.write(`\n  Timed out, not judged: ${TIMED_OUT_HINT}.\n`);
      for (const test of this.timedOut.slice(0, FAILURES_IN_FULL)) process.stdout.write(`    ${this.titleOf(test)}\n`);
      const more = this.timedOut.length - FAILURES_IN_FULL;
      if (more > 0) process.stdout.write(`    … and ${more} more, in reports/conformance.md\n`);
    }
    // As Playwright's list reporter counts: a line per kind, none when no test ran (a failed global setup).
    if (this.count === 0) return;
    const lines = [
      this.counts.failed > 0 ? `${this.counts.failed} failed` : '',
      this.timedOut.length > 0 ? `${this.timedOut.length} timed out (not judged)` : '',
      this.crashed.length > 0 ? `${this.crashed.length} broke outside any check (not judged)` : '',
      this.counts.interrupted > 0 ? `${this.counts.interrupted} interrupted` : '',
      this.total > this.count ? `${this.total - this.count} did not run` : '',
      this.unjudged.inconclusive > 0 ? `${this.unjudged.inconclusive} inconclusive (not judged)` : '',
      this.unjudged.notRun > 0 ? `${this.unjudged.notRun} not run (not judged)` : '',
      this.counts.skipped > 0 ? `${this.counts.skipped} skipped` : '',
      this.counts.passed > 0 ? `${this.counts.passed} passed (${(result.duration / 1000).toFixed(1)}s)` : '',
      this.transient > 0 ? transientLine(this.transient) : '',
    ].filter(Boolean);
    process.stdout.write(`\n${lines.map((line) => `  ${line}\n`).join('')}`);
  }

  /** The first FAILURES_IN_FULL of `ended`, numbered, each with its whole message. */
  private inFull(ended: readonly { test: TestCase; result: TestResult }[]): void {
    ended.slice(0, FAILURES_IN_FULL).forEach(({ test, result }, i) => {
      process.stdout.write(`\n  ${i + 1}) ${this.titleOf(test)}\n\n${indent(messageOf(result))}\n`);
    });
  }

  private listing(suite: Suite): string {
    const tests = suite.allTests();
    const files = new Set(tests.map((test) => test.location.file)).size;
    const total = `${plural(tests.length, 'test')} in ${plural(files, 'file')}`;
    return `Listing tests:\n${tests.map((test) => `  ${this.titleOf(test)}\n`).join('')}Total: ${total}\n`;
  }

  private titleOf(test: TestCase): string {
    const [, project, , ...path] = test.titlePath();
    const { file, line, column } = test.location;
    const tags = test.tags.length > 0 ? ` ${test.tags.join(' ')}` : '';
    const where = `${project ? `[${project}] › ` : ''}${relative(this.rootDir, file)}:${line}:${column}`;
    return `${where} › ${path.join(' › ')}${tags}`;
  }
}

function messageOf(result: TestResult): string {
  const text = result.errors.map((e) => stripAnsi(e.message ?? e.value ?? '')).join('\n\n');
  const lines = text.split('\n');
  if (lines.length <= LINES_PER_FAILURE) return text;
  const cut = lines.length - LINES_PER_FAILURE;
  return `${lines.slice(0, LINES_PER_FAILURE).join('\n')}\n… ${cut} more lines in reports/conformance.md`;
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
