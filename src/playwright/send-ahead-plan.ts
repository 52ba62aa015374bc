// Writes the run's plan for send-ahead (src/playwright/send-ahead.ts) at onBegin: the tests this run will run, after
// every filter (grep, projects, shards, last-failed), grouped as the workers get them. Without a rate cap it then
// sends their declared requests from the runner (send-ahead-runner.ts). The runner calls onBegin after
// the global setup has made the run directory and before it starts a worker, so every worker finds the plan there.
// Without it (a --reporter option replaced the configured list), nothing is sent ahead and each test sends its own.
import type { FullConfig, Reporter, Suite } from '@playwright/test/reporter';
import { runDirOfThisRun } from '../http/run-state';
import { plannedGroups, writePlan } from './send-ahead';
import { RunnerSendAhead } from './send-ahead-runner';

export default class SendAheadPlanReporter implements Reporter {
  onBegin(config: FullConfig, suite: Suite): void {
    // Only in a run that the global setup began: `--list` calls onBegin too, and must send nothing.
    const dir = runDirOfThisRun();
    if (!dir) return;
    const groups = plannedGroups(config, suite);
    const runner = RunnerSendAhead.forRun(config, dir, groups);
    writePlan(dir, groups, runner?.testIds ?? []);
    runner?.start();
  }

  printsToStdio(): boolean {
    return false;
  }
}
