// Writes the run's plan at onBegin: the tests this run will run, after every filter (grep, projects, shards,
// last-failed), by spec file, each with the key of its declared requests. Playwright calls onBegin after the global
// setup made the run directory and before it starts a worker, so each worker finds the plan there (prefetch.ts).
// Without a rate cap the runner then sends the planned requests itself (runner-prefetch.ts).
// Without this reporter (a --reporter option replaced the configured list), each test sends its own. Nor is there a
// plan when tests of one file may run in several workers (fullyParallel): each would send the file's requests. A
// file that shares its tests out one by one says so (shareOutTestByTest): under a rate cap its tests send their own.
import { existsSync } from 'node:fs';
import type { FullConfig, Reporter, Suite, TestCase } from '@playwright/test/reporter';
import { loadConfig } from '../config/config';
import { apiBase, referenceProfilePath } from '../config/target';
import { runDirOfThisRun } from '../http/run-state';
import { validBodies } from '../model/bodies';
import { DECLARED_ANNOTATION, type Plan, type PlannedTest, sharedOut, writePlan } from './declarations';
import { RunnerPrefetch } from './runner-prefetch';
import { noteStepsUnseen } from './steps';

/** The fixtures the mutation matrix sets per project (fixtures.ts): a project with either sends its own way. */
function sendsToItsOwnProfile(test: TestCase): boolean {
  const use = (test.parent.project()?.use ?? {}) as { referenceProfile?: string; profileByTag?: object };
  return !!use.referenceProfile || Object.keys(use.profileByTag ?? {}).length > 0;
}

function plannedTest(test: TestCase): PlannedTest {
  const key = test.annotations.find((a) => a.type === DECLARED_ANNOTATION)?.description;
  return {
    ...(key && { key }),
    project: test.parent.project()?.name ?? '',
    tags: test.tags,
    ...(test.expectedStatus === 'skipped' && { skipped: true }),
    ...(sendsToItsOwnProfile(test) && { profiled: true }),
  };
}

export default class PlanReporter implements Reporter {
  private runner: RunnerPrefetch | undefined;

  onBegin(config: FullConfig, suite: Suite): void {
    noteStepsUnseen(config);
    // Only in a run that the global setup began: `--list` calls onBegin too.
    // A failed global setup has removed it already, and nothing runs.
    const dir = runDirOfThisRun();
    if (!dir || !existsSync(dir) || config.fullyParallel) return;
    const files: Plan['files'] = {};
    // The groups Playwright hands out to workers, in its order: a project's file, or one test of a file shared out.
    const groups = new Map<string, PlannedTest[]>();
    const shared = new Set(sharedOut());
    for (const test of suite.allTests()) {
      const planned = plannedTest(test);
      const tests = files[test.location.file] ?? [];
      files[test.location.file] = tests;
      tests.push(planned);
      const group = shared.has(test.location.file) ? test.id : `${planned.project} › ${test.location.file}`;
      const ofGroup = groups.get(group) ?? [];
      groups.set(group, ofGroup);
      ofGroup.push(planned);
    }
    const settings = loadConfig();
    // A replay (RSF_TARGET_URL=har:…) sends nothing ahead: the runner has no recording to answer from.
    if (settings.maxRequestsPerSecond === 0 && !settings.recording) {
      const base = apiBase(settings, referenceProfilePath(settings));
      const ctx = { bodies: validBodies(settings), config: settings };
      this.runner = RunnerPrefetch.start(settings, ctx, base, dir, [...groups.values()], config.workers);
    }
    // A runner that does not send (nothing to, or no socket to answer on): each worker sends its files' own.
    writePlan(dir, { files, sharedOut: [...shared], runnerSends: this.runner !== undefined });
  }

  onEnd(): void {
    this.runner?.close();
  }

  printsToStdio(): boolean {
    return false;
  }
}
