// `npm run bench`'s reporter: per test, when and where it ran and its request counts (the requests-sent and
// requests-chain annotations), written as JSON to the file named by BENCH_TIMINGS_FILE. Titles and numbers only:
// no URL, header or body, so nothing secret can reach the file.
import { writeFileSync } from 'node:fs';
import type { FullConfig, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { REQUEST_CHAIN_ANNOTATION, REQUESTS_ANNOTATION } from '../../src/checks/check-protocol';

export const TIMINGS_FILE_ENV = 'BENCH_TIMINGS_FILE';

export interface TestTiming {
  title: string;
  project: string;
  status: string;
  workerIndex: number;
  /** Epoch milliseconds. */
  startMs: number;
  durationMs: number;
  /** undefined when the test recorded no such annotation (e.g. it never used the api fixture). */
  requestsSent?: number;
  requestsChain?: number;
}

export interface RunTimings {
  workers: number;
  /** Epoch milliseconds of onBegin, after the global setup. */
  beganMs: number;
  endedMs: number;
  tests: TestTiming[];
}

/** The number an annotation of the test carries, if it has one. */
function annotationNumber(result: TestResult, type: string): number | undefined {
  const value = Number(result.annotations.find((a) => a.type === type)?.description);
  return Number.isFinite(value) ? value : undefined;
}

export default class TimingReporter implements Reporter {
  private readonly tests: TestTiming[] = [];
  private workers = 0;
  private beganMs = 0;

  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig): void {
    this.workers = config.workers;
    this.beganMs = Date.now();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.tests.push({
      title: test.titlePath().slice(3).join(' › '),
      project: test.parent.project()?.name ?? '',
      status: result.status,
      workerIndex: result.workerIndex,
      startMs: result.startTime.getTime(),
      durationMs: result.duration,
      requestsSent: annotationNumber(result, REQUESTS_ANNOTATION),
      requestsChain: annotationNumber(result, REQUEST_CHAIN_ANNOTATION),
    });
  }

  onEnd(): void {
    const file = process.env[TIMINGS_FILE_ENV];
    if (!file) return;
    const timings: RunTimings = {
      workers: this.workers,
      beganMs: this.beganMs,
      endedMs: Date.now(),
      tests: this.tests,
    };
    writeFileSync(file, JSON.stringify(timings, null, 2));
  }
}
