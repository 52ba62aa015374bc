// The conformance reporter: joins the test results with specs/requirements.json and writes
// conformance.json, conformance.md, conformance.html and junit.xml, then prints one verdict line.
//
//   reporter: [['./tests/support/reporter/conformance-reporter.ts', { outputDir: 'reports', perProjectDir: 'reports/projects' }]]
//
// outputDir (default: RSF_REPORTS_DIR, else 'reports') and perProjectDir are resolved against the config file's folder. With perProjectDir,
// each project also gets <perProjectDir>/<dir>/conformance.json, where <dir> is projectDirName(project name);
// <perProjectDir>/index.json maps project names to those dirs.
//
// Exit status: 'failed' when the verdict is FAIL (a MUST requirement failed and is not waived; with RSF_STRICT a SHOULD
// warning; a run error such as a bad waivers file), else 'passed'. 'interrupted' and 'timedout' are left alone.
// Put this reporter last in the list: it prints the verdict line in onExit, and nothing should follow it.
//
// Everything comes from the tests, their last results, annotations, attachments and config.metadata, so it works
// the same under `playwright merge-reports` (see merge.config.ts). merge-reports itself exits 0 whatever the
// verdict (Playwright only fails a merge on reporter errors): CI reads summary.verdict of conformance.json instead.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestError } from '@playwright/test/reporter';
import { requirements } from '../catalogue';
import { SETTINGS } from '../config';
import { redact, redactValue, registerEnvSecrets } from '../redact';
import { recordOf, stripAnsi } from './collect';
import { verdictLine } from './format';
import { buildReport } from './model';
import type { ReportInput, TestRecord } from './model';
import { renderHtml } from './render-html';
import { renderJunit } from './render-junit';
import { renderMarkdown } from './render-markdown';
import { loadWaivers } from './waivers';

export interface ConformanceReporterOptions {
  outputDir?: string;
  perProjectDir?: string;
  /** Set by Playwright: the folder of the config file. */
  configDir?: string;
  /** Set by Playwright: 'test', 'merge' or 'list'. */
  _mode?: string;
}

/** A project name as a directory name: only [A-Za-z0-9._-], other runs of characters become '_'; '' becomes '_default'. */
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

/**
 * The reporter reads only the settings it needs, RSF_STRICT, RSF_WAIVERS_FILE and RSF_REPORTS_DIR (parsed as
 * loadConfig() does), so a merge on a machine without the target's settings works. Secret settings present in the
 * environment are registered for redaction even if the rest of the configuration is broken.
 */
function reporterSettings(env: NodeJS.ProcessEnv): { strict: boolean; waiversFile: string; reportsDir: string; problems: string[] } {
  registerEnvSecrets(env);
  const problems: string[] = [];
  let strict = false;
  try {
    strict = SETTINGS.strict.parse(env[SETTINGS.strict.name]?.trim() || SETTINGS.strict.default);
  } catch (e) {
    problems.push(`${SETTINGS.strict.name}: ${(e as Error).message}`);
  }
  const waiversFile = resolve(env[SETTINGS.waiversFile.name]?.trim() || SETTINGS.waiversFile.default);
  const reportsDir = env[SETTINGS.reportsDir.name]?.trim() || SETTINGS.reportsDir.default;
  return { strict, waiversFile, reportsDir, problems };
}

function write(file: string, content: string): void {
  writeFileSync(file, redact(content));
}

export default class ConformanceReporter implements Reporter {
  private config?: FullConfig;
  private suite?: Suite;
  private readonly globalErrors: string[] = [];
  private line?: string;

  constructor(private readonly options: ConformanceReporterOptions = {}) {}

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.config = config;
    this.suite = suite;
  }

  onError(error: TestError): void {
    this.globalErrors.push(stripAnsi(error.message ?? error.value ?? 'unknown error'));
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | undefined> {
    // `playwright test --list` runs nothing: keep the last real report.
    if (this.options._mode === 'list') return undefined;
    const settings = reporterSettings(process.env);
    const catalogue = requirements();
    const loaded = loadWaivers(settings.waiversFile, new Set(catalogue.map((r) => r.id)));
    const setupProblems = [...settings.problems, ...loaded.problems];
    // Printed once, here; the reports list them too.
    for (const problem of setupProblems) process.stderr.write(`Conformance reporter: ${redact(problem)}\n`);

    const tests = (this.suite?.allTests() ?? []).map(recordOf);
    const base: Omit<ReportInput, 'tests'> = {
      catalogue,
      metadata: this.config?.metadata ?? {},
      strict: settings.strict,
      waivers: loaded.waivers,
      errors: [...this.globalErrors, ...setupProblems],
      startTime: result.startTime,
      durationMs: result.duration,
    };
    const report = redactValue(buildReport({ ...base, tests }));

    const root = this.options.configDir ?? process.cwd();
    const outputDir = resolve(root, this.options.outputDir ?? settings.reportsDir);
    mkdirSync(outputDir, { recursive: true });
    write(join(outputDir, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
    write(join(outputDir, 'conformance.md'), renderMarkdown(report));
    write(join(outputDir, 'conformance.html'), renderHtml(report));
    write(join(outputDir, 'junit.xml'), renderJunit(report));
    if (this.options.perProjectDir) this.writePerProject(resolve(root, this.options.perProjectDir), tests, base);

    const html = join(outputDir, 'conformance.html');
    const shown = relative(process.cwd(), html);
    this.line = redact(verdictLine(report.summary, shown.startsWith('..') ? html : shown));
    if (result.status === 'interrupted' || result.status === 'timedout') return undefined;
    return { status: report.summary.verdict === 'FAIL' ? 'failed' : 'passed' };
  }

  async onExit(): Promise<void> {
    if (this.line) process.stdout.write(`${this.line}\n`);
  }

  private writePerProject(dir: string, tests: TestRecord[], base: Omit<ReportInput, 'tests'>): void {
    const dirs = projectDirs(tests.map((t) => t.project));
    for (const [project, sub] of dirs) {
      const report = redactValue(buildReport({ ...base, project, tests: tests.filter((t) => t.project === project) }));
      mkdirSync(join(dir, sub), { recursive: true });
      write(join(dir, sub, 'conformance.json'), `${JSON.stringify(report, null, 2)}\n`);
    }
    write(join(dir, 'index.json'), `${JSON.stringify(Object.fromEntries(dirs), null, 2)}\n`);
  }
}
