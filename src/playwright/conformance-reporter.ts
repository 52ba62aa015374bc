// The conformance reporter: joins the test results with specs/requirements.json and writes
// conformance.json, conformance.md, conformance.html and junit.xml, then prints one verdict line.
//
//   reporter: [['./src/playwright/conformance-reporter.ts',
//     { outputDir: 'reports', perProjectDir: 'reports/projects' }]]
//
// outputDir (default: RSF_REPORTS_DIR, else 'reports') and perProjectDir are resolved against the config file's
// folder. With perProjectDir, each project also gets <perProjectDir>/<dir>/conformance.json, where <dir> is
// projectDirName(project name); <perProjectDir>/index.json maps project names to those dirs.
//
// Exit code: 0 for PASS, 1 for FAIL, 2 for ERROR (verdict.ts says which is which). Playwright itself exits only
// 0, 1 or 130, and merge-reports 0 whatever the verdict, so onExit ends the process with the verdict's code after
// printing the verdict line. An interrupted run (Ctrl-C, SIGTERM) keeps Playwright's own code, 130, and its verdict
// is ERROR.
// Put this reporter last in the list: it prints the verdict line in onExit, and nothing should follow it.
//
// Everything comes from the tests, their last results, annotations, attachments and config.metadata, so it works
// the same under `playwright merge-reports` (see merge.config.ts). When the global setup throws (invalid
// configuration, failed preflight), Playwright calls onError and onEnd without onBegin: the report is written all
// the same, with no tests, and the verdict is ERROR. Reports that cannot be written (RSF_REPORTS_DIR) make the
// verdict ERROR too, and the verdict line says so in place of the report's path.
//
// With GITHUB_STEP_SUMMARY set (GitHub Actions), conformance.md is appended to the job summary too.
import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestError } from '@playwright/test/reporter';
import { requirements } from '../model/catalogue';
import { describeCheckout, type Checkout } from '../report/checkout';
import { type FailOn, REPORTING_SETTINGS, exitPolicy } from '../config/settings/reporting';
import { ConfigError } from '../config/settings/setting';
import { printable } from '../model/printable';
import { type ReportsLock, reportsDirProblem, takeReportsLock } from '../report/reports-dir';
import { redact, redactValue } from '../http/redact';
import { registerEnvSecrets } from './secrets';
import { type Baseline, BaselineError, loadBaseline } from '../report/baseline';
import { testRecordOf } from './collect';
import { stripAnsi } from '../model/text';
import { verdictLine } from '../report/format';
import { FAILED_RUN, buildReport } from '../report/model';
import type { ConformanceReport, ExitCode, ReportInput, TestRecord } from '../report/model';
import { renderHtml } from '../report/render-html';
import { renderJunit } from '../report/render-junit';
import { renderMarkdown } from '../report/render-markdown';
import { loadWaivers } from '../report/waivers';
import { loadConfig, replayedSettings } from '../config/config';
import { runNonceOfThisRun, takeUnclaimedSlowDowns } from '../http/run-state';
import { apiBase, referenceProfilePath } from '../config/target';
import {
  EXCHANGES_DIR_ENV,
  keptBreakerTrip,
  keptRefusal,
  keptSetupStop,
  writeRecording,
} from '../evidence/exchange-log';
import { stdoutFlushed } from './stdout';
import { consoleGoneCause, mergeWithoutConsole } from './console-gone';
import { shardProblems } from '../report/shards';
import { addToLastFailed, lastRunFile } from './internals';
import { HAR_FILE, type ReplaySettings } from '../evidence/har';
import { recordingPath } from './replay';
import { name as suiteName, version as suiteVersion } from '../../package.json';

/** The workers' exchanges folder, gone once the reporter is done with it, whether a recording was written or not. */
function removeExchanges(): void {
  const dir = process.env[EXCHANGES_DIR_ENV];
  delete process.env[EXCHANGES_DIR_ENV];
  if (dir) rmSync(dir, { recursive: true, force: true });
}

/**
 * reports/exchanges.har (issue 24, item 1): the entries the workers appended (exchange-log.ts), with what a replay
 * needs to send the same requests. A run whose global setup made no folder for them (a replay, a merge) writes none.
 */
function writeExchanges(outputDir: string, metadata: Record<string, unknown>): void {
  const dir = process.env[EXCHANGES_DIR_ENV];
  if (!dir || !existsSync(dir)) return;
  let replay: ReplaySettings | undefined;
  try {
    const config = loadConfig();
    const { fcNumRuns, writesEnabled } = config;
    const runNonce = runNonceOfThisRun();
    const breaker = keptBreakerTrip(dir);
    const stoppedBeforeTests = keptSetupStop(dir);
    const refused = keptRefusal(dir);
    replay = {
      ...(breaker && { breaker }),
      ...(refused !== undefined && { refused }),
      ...(stoppedBeforeTests !== undefined && { stoppedBeforeTests }),
      apiBase: redact(apiBase(config, referenceProfilePath(config))),
      fcNumRuns,
      writesEnabled,
      ...(runNonce !== undefined && { runNonce }),
      settings: Object.fromEntries(Object.entries(replayedSettings()).map(([name, value]) => [name, redact(value)])),
    };
  } catch {
    replay = undefined; // an invalid configuration ran no test: the recording is empty
  }
  writeRecording(dir, join(outputDir, HAR_FILE), {
    creator: { name: suiteName, version: suiteVersion },
    seed: String(metadata.seed ?? process.env.RSF_FC_SEED ?? ''),
    ...(typeof metadata.target === 'string' && { target: metadata.target }),
    ...(replay && { replay }),
  });
}

export interface ConformanceReporterOptions {
  outputDir?: string;
  perProjectDir?: string;
  /** Set by Playwright: the folder of the config file. */
  configDir?: string;
  /** Set by merge.config.ts: this reporter serves `playwright merge-reports`, which exits 0 whatever it returns. */
  merge?: boolean;
}

/** A project name as a directory name: only [A-Za-z0-9._-], other runs of characters become '_'; '' is '_default'. */
export function projectDirName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_');
  return safe === '' ? '_default' : safe;
}

/** Distinct dirs for distinct names, deterministically: a clash gets ~2, ~3… in name order. */
export function projectDirs(names: Iterable<string>): Map<string, string> {
  const dirs = new Map<string, string>();
  const used = new Set<string>();
  for (const name of [...new Set(names)].sort()) {
    const base = projectDirName(name);
    let dir = base;
    for (let i = 2; used.has(dir); i++) dir = `${base}~${i}`;
    used.add(dir);
    dirs.set(name, dir);
  }
  return dirs;
}

interface ReporterSettings {
  failOn: FailOn;
  baselineFile: string;
  waiversFile: string;
  reportsDir: string;
  /** Settings that could not be parsed: configuration errors. */
  problems: string[];
}

/**
 * The reporter reads only the settings it needs, RSF_FAIL_ON, RSF_STRICT, RSF_BASELINE, RSF_WAIVERS_FILE and
 * RSF_REPORTS_DIR (parsed as loadConfig() does), so a merge on a machine without the target's settings works.
 * Secret settings present in the environment are registered for redaction even if the rest of the configuration is
 * broken.
 */
function reporterSettings(env: NodeJS.ProcessEnv): ReporterSettings {
  registerEnvSecrets(env);
  const problems: string[] = [];
  const parsed = <T>(setting: { name: string; default: string; parse: (raw: string) => T }, fallback: T): T => {
    try {
      return setting.parse(env[setting.name]?.trim() || setting.default);
    } catch (e) {
      problems.push(`${setting.name}: ${(e as Error).message}`);
      return fallback;
    }
  };
  const strict = parsed(REPORTING_SETTINGS.strict, false);
  const failOnSetting = parsed(REPORTING_SETTINGS.failOn, undefined);
  const baselineFile = parsed(REPORTING_SETTINGS.baseline, '');
  let failOn: FailOn = failOnSetting ?? (strict ? 'strict' : 'must');
  try {
    // The variable as set: a file that does not exist is its own problem, not a missing baseline.
    failOn = exitPolicy(failOnSetting, strict, env[REPORTING_SETTINGS.baseline.name]?.trim() ?? '');
  } catch (e) {
    problems.push(...(e instanceof ConfigError ? e.problems : [(e as Error).message]));
  }
  const waiversFile = resolve(
    env[REPORTING_SETTINGS.waiversFile.name]?.trim() || REPORTING_SETTINGS.waiversFile.default,
  );
  const reportsDir = env[REPORTING_SETTINGS.reportsDir.name]?.trim() || REPORTING_SETTINGS.reportsDir.default;
  return { failOn, baselineFile, waiversFile, reportsDir, problems };
}

/** The baseline, or the configuration error that keeps it from being used. */
function baselineOf(file: string): { baseline?: Baseline; problem?: string } {
  if (file === '') return {};
  try {
    return { baseline: loadBaseline(file) };
  } catch (e) {
    return { problem: e instanceof BaselineError ? e.message : `RSF_BASELINE: ${(e as Error).message}` };
  }
}

function write(file: string, content: string): void {
  writeFileSync(file, redact(content));
}

/** GitHub Actions shows what a step appends to this file as the job summary; another run may have appended first. */
function appendStepSummary(file: string | undefined, markdown: string): void {
  if (!file) return;
  try {
    appendFileSync(file, `${redact(markdown)}\n`);
  } catch (e) {
    process.stderr.write(`Conformance reporter: could not append to GITHUB_STEP_SUMMARY: ${(e as Error).message}\n`);
  }
}

/** The files a run writes in its reports folder (writeReports). */
const REPORT_FILES = ['conformance.json', 'conformance.md', 'conformance.html', 'junit.xml', HAR_FILE];

/**
 * Removes an earlier run's reports from `outputDir` as a run starts: a run killed before its end (SIGKILL, a CI job's
 * hard time-out, the machine's memory) would otherwise leave them, and an earlier PASS would read as this run's.
 * A file this run reads stays: the baseline (RSF_BASELINE), the waivers, the recording it replays.
 */
export function removeEarlierReports(outputDir: string, env: NodeJS.ProcessEnv): void {
  const read = [env[REPORTING_SETTINGS.baseline.name], recordingPath(env.RSF_TARGET_URL)]
    .map((path) => path?.trim())
    .filter((path): path is string => !!path)
    .map((path) => resolve(path));
  read.push(resolve(env[REPORTING_SETTINGS.waiversFile.name]?.trim() || REPORTING_SETTINGS.waiversFile.default));
  for (const file of REPORT_FILES.map((name) => join(outputDir, name)))
    if (!read.includes(file)) rmSync(file, { force: true });
}

/** Ctrl-C (or SIGTERM from a cancelled CI job): what was left unjudged is no pass. */
function interruptedMessage(tests: readonly TestRecord[]): string {
  const unfinished = tests.filter((t) => t.status === 'not run' || t.status === 'interrupted').length;
  const when = tests.length === 0 ? 'before any test ran' : `with ${unfinished} of ${tests.length} tests unfinished`;
  return `the run was interrupted (${consoleGoneCause() ?? 'Ctrl-C, or a signal'}) ${when}`;
}

/** This suite's checkout: the code that runs, whichever config (a self-test's fake suite) the run was given. */
const SUITE_ROOT = resolve(__dirname, '../..');

export default class ConformanceReporter implements Reporter {
  private config?: FullConfig;
  private suite?: Suite;
  private readonly globalErrors: string[] = [];
  private line?: string;
  /** Set in onEnd: the IDs of the tests --last-failed runs again, added to Playwright's last run in onExit. */
  private runAgain: string[] = [];
  /** Set in onEnd: the verdict's exit code, applied in onExit; undefined leaves Playwright's own (interrupted). */
  private exitCode?: ExitCode;
  /** The suite that runs, as the run begins: a bundle made later, from a checkout moved on, still names it. */
  private checkout?: Checkout;
  /** The reports folder's, held from the run's start until its reports are written. */
  private lock?: ReportsLock;
  /** Why the run writes no reports: another run holds the folder (its global setup stops the run too). */
  private lockedOut?: string;

  constructor(private readonly options: ConformanceReporterOptions = {}) {
    if (options.merge) mergeWithoutConsole();
    // As the run starts, before its global setup: Playwright's reporter API has no earlier public hook.
    if (process.argv.includes('--list')) return;
    const outputDir = this.outputDir(reporterSettings(process.env));
    const lock = takeReportsLock(outputDir);
    if ('problem' in lock) {
      this.lockedOut = lock.problem;
      return;
    }
    this.lock = lock;
    try {
      removeEarlierReports(outputDir, process.env);
    } catch {
      // a folder the run may not write to: onEnd says so, as the reports cannot be written either
    }
  }

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.config = config;
    this.suite = suite;
    this.checkout = describeCheckout(SUITE_ROOT);
  }

  onError(error: TestError): void {
    this.globalErrors.push(stripAnsi(error.message ?? error.value ?? 'unknown error'));
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    // `playwright test --list` runs nothing: keep the last real report.
    if (process.argv.includes('--list')) return undefined;
    const settings = reporterSettings(process.env);
    const root = this.root();
    const outputDir = this.outputDir(settings);
    const dirProblem = this.lockedOut ?? reportsDirProblem(outputDir);
    const catalogue = requirements();
    const loaded = loadWaivers(settings.waiversFile, new Set(catalogue.map((r) => r.id)));
    const { baseline, problem: baselineProblem } = baselineOf(settings.baselineFile);
    const configErrors = [
      ...settings.problems,
      ...(dirProblem ? [dirProblem] : []),
      ...loaded.problems,
      ...(baselineProblem ? [baselineProblem] : []),
      ...(this.options.merge ? shardProblems(this.config?.metadata ?? {}) : []),
    ];
    // The global setup refuses a waivers file or baseline it cannot use, and Playwright prints that: such a problem is
    // a configuration error, not also a run error, and is printed once.
    const inSetupError = (problem: string) => this.globalErrors.some((e) => e.includes(problem));
    for (const problem of configErrors.filter((p) => !inSetupError(p)))
      process.stderr.write(`Conformance reporter: ${printable(redact(problem))}\n`);
    const runErrors = this.globalErrors.filter((e) => !configErrors.some((problem) => e.includes(problem)));
    if (result.status === 'timedout') runErrors.push('the run was stopped by its global time-out (globalTimeout)');

    const allTests = this.suite?.allTests() ?? [];
    const tests = allTests.map(testRecordOf);
    // What --last-failed runs again: the tests failed, and those not judged, as the report counts them.
    this.runAgain = allTests
      .filter((_, i) => {
        const { status, unjudged } = tests[i] as TestRecord;
        return FAILED_RUN.has(status) || unjudged !== undefined;
      })
      .map((test) => test.id);
    if (result.status === 'interrupted') runErrors.push(interruptedMessage(tests));
    const base: Omit<ReportInput, 'tests'> = {
      catalogue,
      metadata: this.config?.metadata ?? {},
      failOn: settings.failOn,
      waivers: loaded.waivers,
      ...(baseline && { baseline }),
      configErrors,
      errors: runErrors,
      startTime: result.startTime,
      durationMs: result.duration,
      runnerSlowDowns: takeUnclaimedSlowDowns(),
      // Without onBegin (a configuration error), as the run ends.
      checkout: this.checkout ?? describeCheckout(SUITE_ROOT),
    };
    let report = redactValue(buildReport({ ...base, tests }));
    const html = join(outputDir, 'conformance.html');
    const shown = relative(process.cwd(), html);
    let where = shown.startsWith('..') ? html : shown;
    if (dirProblem) where = 'no report written';
    else {
      try {
        this.writeReports(report, outputDir, root, tests, base);
      } catch (e) {
        // A disk that fills, a folder removed mid-run: the verdict line still says what happened, as an ERROR.
        const problem = `RSF_REPORTS_DIR: the reports could not be written to ${outputDir} (${(e as Error).message})`;
        process.stderr.write(`Conformance reporter: ${printable(redact(problem))}\n`);
        report = redactValue(buildReport({ ...base, configErrors: [...configErrors, problem], tests }));
        where = 'reports incomplete';
      }
    }
    this.lock?.release();
    // Whether the recording was written, could not be, or was never to be (no reports folder).
    removeExchanges();
    this.line = printable(redact(verdictLine(report.summary, where)), { maxChars: 4000 });
    if (result.status === 'interrupted') return undefined;
    this.exitCode = report.summary.exitCode;
    return { status: report.summary.verdict === 'PASS' ? 'passed' : 'failed' };
  }

  async onExit(): Promise<void> {
    // After Playwright's own reporter wrote the last run: the tests failed by a requirement, or not judged, which it
    // counts as expected (internals.ts).
    const file = this.config && lastRunFile(this.config, process.argv);
    if (file && this.exitCode !== undefined && !this.options.merge) {
      try {
        addToLastFailed(file, this.runAgain);
      } catch (e) {
        // The verdict stands, and its line and exit code must still come: only --last-failed misses these tests.
        const problem =
          `${file} could not be written (${(e as Error).message}): ` +
          '--last-failed will not run again the tests failed by a requirement';
        process.stderr.write(`Conformance reporter: ${printable(redact(problem))}\n`);
      }
    }
    if (this.line) process.stdout.write(`${this.line}\n`);
    // Out before anything ends the process, this line and the console's before it (stdout.ts).
    await stdoutFlushed();
    if (this.exitCode === undefined) return;
    // Playwright exits 0 or 1 as onEnd's status says, and 1 after an error of a reporter that ends after this one (its
    // own, failing to write the last run); merge-reports exits 0 whatever it says. The verdict's code ends the process
    // here, after everything else: this is the last onExit.
    process.exit(this.exitCode);
  }

  private root(): string {
    return this.options.configDir ?? process.cwd();
  }

  private outputDir(settings: ReporterSettings): string {
    return resolve(this.root(), this.options.outputDir ?? settings.reportsDir);
  }

  private writeReports(
    report: ConformanceReport,
    outputDir: string,
    root: string,
    tests: TestRecord[],
    base: Omit<ReportInput, 'tests'>,
  ): void {
    const markdown = renderMarkdown(report);
    write(join(outputDir, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
    write(join(outputDir, 'conformance.md'), markdown);
    write(join(outputDir, 'conformance.html'), renderHtml(report));
    write(join(outputDir, 'junit.xml'), renderJunit(report));
    if (this.options.perProjectDir) this.writePerProject(resolve(root, this.options.perProjectDir), tests, base);
    writeExchanges(outputDir, this.config?.metadata ?? {});
    appendStepSummary(process.env.GITHUB_STEP_SUMMARY, markdown);
  }

  private writePerProject(dir: string, tests: TestRecord[], base: Omit<ReportInput, 'tests'>): void {
    const dirs = projectDirs(tests.map((t) => t.project));
    mkdirSync(dir, { recursive: true }); // also when no test ran (a failed global setup): index.json is then {}
    for (const [project, sub] of dirs) {
      const report = redactValue(buildReport({ ...base, project, tests: tests.filter((t) => t.project === project) }));
      mkdirSync(join(dir, sub), { recursive: true });
      write(join(dir, sub, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
    }
    write(join(dir, 'index.json'), `${JSON.stringify(Object.fromEntries(dirs), null, 2)}\n`);
  }
}
