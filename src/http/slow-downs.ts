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

/** A process's slow-downs, kept until a test takes them into its annotations (or the runner into its report). */
export class SlowDownLog {
  private pending: SlowDown[] = [];

  /** For limiter.ts's `paced`: `ratePerSecond` is undefined when the run had just slowed down already. */
  heard(response: WireResponse, ratePerSecond: number | undefined): void {
    // Two decimals say enough of a pace, and read alike in every report.
    if (ratePerSecond !== undefined)
      this.pending.push({ status: response.status, ratePerSecond: Math.round(ratePerSecond * 100) / 100 });
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
