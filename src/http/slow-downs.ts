// What the run's pace went through, for the reports: each time a 429, or a rate limiter's 503, halved it. The
// console's notice says it once, as it starts; the reports say how often, why, and how slow the run went.
import type { WireResponse } from './exchange';

/** One halving of the run's pace (run-state.ts, RunState.slowDown). */
export interface SlowDown {
  /** The answer that slowed the run down: 429, or 503 without Retry-After. */
  status: number;
  /** The run's pace right after it, in requests a second over all workers. */
  ratePerSecond: number;
}

/**
 * A process's slow-downs, kept until a test takes them into its annotations; or, in the runner, which runs no test,
 * each handed to `handOver` as it comes (RunState.handOverSlowDown), for a test of a worker to take.
 */
export class SlowDownLog {
  private pending: SlowDown[] = [];

  constructor(private readonly handOver?: (slowDown: SlowDown) => void) {}

  /** For limiter.ts's `paced`: `ratePerSecond` is undefined when the run had just slowed down already. */
  heard(response: WireResponse, ratePerSecond: number | undefined): void {
    if (ratePerSecond === undefined) return;
    // Two decimals say enough of a pace, and read alike in every report.
    const slowDown = { status: response.status, ratePerSecond: Math.round(ratePerSecond * 100) / 100 };
    if (this.handOver) this.handOver(slowDown);
    else this.pending.push(slowDown);
  }

  /** For `paced`: hears each slow-down as `notice` does (the console's), and keeps it for the reports. */
  noting(
    notice: (response: WireResponse) => void,
  ): (response: WireResponse, ratePerSecond: number | undefined) => void {
    return (response, ratePerSecond) => {
      notice(response);
      this.heard(response, ratePerSecond);
    };
  }

  /** The slow-downs since the last call. */
  take(): SlowDown[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }
}
