// Writes the run's plan at onBegin: the tests this run will run, after every filter (grep, projects, shards,
// last-failed), by spec file. Playwright calls onBegin after the global setup made the run directory and before it
// starts a worker, so each worker finds the plan there and sends a file's declared requests ahead (prefetch.ts).
// Without it (a --reporter option replaced the configured list), each test sends its own. Nor is there a plan when
// tests of one file may run in several workers (fullyParallel): each would send the file's requests. A describe in
// mode 'parallel' would do the same, and Playwright does not say which are: tests/self/prefetch.spec.ts keeps the
// conformance specs free of them.
import type { FullConfig, Reporter, Suite } from '@playwright/test/reporter';
import { runDirOfThisRun } from '../http/run-state';
import { type Plan, writePlan } from './prefetch';

export default class PlanReporter implements Reporter {
  onBegin(config: FullConfig, suite: Suite): void {
    // Only in a run that the global setup began: `--list` calls onBegin too.
    const dir = runDirOfThisRun();
    if (!dir || config.fullyParallel) return;
    const plan: Plan = {};
    for (const test of suite.allTests()) {
      const tests = plan[test.location.file] ?? [];
      plan[test.location.file] = tests;
      tests.push({
        project: test.parent.project()?.name ?? '',
        title: test.title,
        tags: test.tags,
        ...(test.expectedStatus === 'skipped' && { skipped: true }),
      });
    }
    writePlan(dir, plan);
  }

  printsToStdio(): boolean {
    return false;
  }
}
