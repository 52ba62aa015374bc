// Before any test: check the configuration, start the embedded reference if no target is set, run the preflight.
import { dirname, resolve } from 'node:path';
import type { FullConfig } from '@playwright/test';
import { startReferenceServer } from '../../reference/server';
import { type Config, ConfigError, loadConfig } from '../config/config';
import type { ReportingConfig } from '../config/settings/reporting';
import { requirements } from '../model/catalogue';
import { preflight } from '../checks/preflight';
import { waitUntilUp } from '../checks/wait-for-target';
import { BaselineError, loadBaseline } from '../report/baseline';
import { reportsDirProblem, reportsLockProblem } from '../report/reports-dir';
import { loadWaivers } from '../report/waivers';
import { removeAbandonedRunFolders } from '../http/run-folders';
import { RunState, createRunStateDir } from '../http/run-state';
import { markInterrupted } from '../http/interrupt';
import {
  EXCHANGES_DIR_ENV,
  createExchangesDir,
  keepBreakerTrip,
  keepRefusal,
  keepSetupStop,
} from '../evidence/exchange-log';
import { runRefusal } from './bearer-token';
import { carryConsumedIn, keepConsumed } from './consumed';
import { redact } from '../http/redact';
import { whenLauncherGone } from './launcher-gone';
import { whenConsoleGone } from './console-gone';
import { StoppedReplayError, readRecording } from './replay';
import { REPORTERS_REPLACED_ENV, replacedReportersNotice, replacingReporters } from './replaced-reporters';
import { registerBearerToken } from './secrets';
import { TokenCommandError, runTokenCommand } from '../config/token-command';
import { EMBEDDED_URL_ENV, apiBase, referenceProfilePath } from '../config/target';

/** An error Playwright prints as its message alone: one clear line beats a stack trace here. */
function plain(error: Error): Error {
  error.stack = `${error.name}: ${error.message}`;
  return error;
}

/** The reporter that gathers the workers' exchanges into reports/exchanges.har (conformance-reporter.ts). */
const RECORDING_REPORTER = resolve(__dirname, 'conformance-reporter');

/**
 * Whether a reporter of this run gathers the recording: a run without one (a shard, `--reporter=dot`) records
 * nothing, rather than leave its exchanges in the system's temporary folder.
 */
export function gathersRecording(fullConfig: Pick<FullConfig, 'reporter'>): boolean {
  return fullConfig.reporter.some(([name]) => isConformanceReporter(name));
}

const isConformanceReporter = (name: string): boolean => name.replace(/\.[cm]?[jt]s$/, '') === RECORDING_REPORTER;

/**
 * What is wrong with RSF_REPORTS_DIR, RSF_WAIVERS_FILE and RSF_BASELINE, as the conformance reporter says it. The
 * reports folder is where the reporter writes: relative to the config's folder (Playwright's configDir), whatever
 * the working directory.
 */
function reportFileProblems(config: ReportingConfig, configDir: string): string[] {
  const ids = new Set(requirements().map((r) => r.id));
  const reportsDir = resolve(configDir, config.reportsDir);
  const dirProblem = reportsLockProblem(reportsDir) ?? reportsDirProblem(reportsDir);
  const problems = [...(dirProblem ? [dirProblem] : []), ...loadWaivers(resolve(config.waiversFile), ids).problems];
  if (config.baseline !== '') {
    try {
      loadBaseline(config.baseline);
    } catch (e) {
      problems.push(e instanceof BaselineError ? e.message : `RSF_BASELINE: ${(e as Error).message}`);
    }
  }
  return problems;
}

export default async function globalSetup(fullConfig: FullConfig): Promise<() => Promise<void>> {
  // Before anything can fail: Playwright's exit code must not pass a run that fails or cannot be judged.
  const replacing = replacingReporters(fullConfig, isConformanceReporter);
  if (replacing) {
    process.env[REPORTERS_REPLACED_ENV] = '1';
    process.stderr.write(replacedReportersNotice(replacing));
  }
  let config: Config;
  try {
    config = loadConfig();
    // The reference's mode and fault names live in reference/; checked here, where both are loaded.
    referenceProfilePath(config);
  } catch (e) {
    throw plain(
      e instanceof ConfigError
        ? e
        : new ConfigError([`RSF_REFERENCE_MODE / RSF_REFERENCE_FAULT: ${(e as Error).message}`]),
    );
  }
  // The reporter reads them at the end; a file it cannot use is known now, before a single request.
  const configDir = fullConfig.configFile ? dirname(fullConfig.configFile) : process.cwd();
  const fileProblems = reportFileProblems(config, configDir);
  if (fileProblems.length > 0) throw plain(new ConfigError(fileProblems));
  for (const project of fullConfig.projects) {
    const trace = project.use.trace;
    const mode = typeof trace === 'string' ? trace : trace?.mode;
    if (mode && mode !== 'off')
      throw plain(
        new Error(
          'Traces record request headers, the Bearer token among them, so this suite does not run with --trace. ' +
            'Use the evidence in reports/ instead.',
        ),
      );
  }
  // Workers inherit the environment: one invalid token for the whole run.
  process.env.RSF_INVALID_BEARER_TOKEN = config.invalidBearerToken;

  // Folders of runs killed before their teardown (src/http/run-folders.ts).
  removeAbandonedRunFolders();
  // The circuit breaker and the throttle, shared by every worker of this run (src/http/run-state.ts).
  const runState = createRunStateDir();
  // A setup interrupted by Ctrl-C (during the preflight, say) never returns its teardown: the folder goes as the
  // runner exits, whichever way it does.
  process.once('exit', runState.remove);
  // SIGTERM (a cancelled CI job, `timeout`) stops the run as Ctrl-C does, once: the reporters still run, so the
  // reports say ERROR (interrupted) instead of an earlier run's verdict standing, and nothing is left behind. The
  // workers' requests in flight are cut short, should the signal have reached the runner alone (interrupt.ts).
  let stopping = false;
  const stopAsCtrlC = (): void => {
    if (stopping) return;
    stopping = true;
    markInterrupted(runState.dir);
    process.kill(process.pid, 'SIGINT');
  };
  process.once('SIGTERM', stopAsCtrlC);
  // A SIGTERM to npm alone ends the shell that npm started Playwright with, and never reaches this process.
  whenLauncherGone(stopAsCtrlC);
  let testsOver = false;
  whenConsoleGone(stopAsCtrlC, () => testsOver);
  if (config.recording) {
    // A replay sends nothing: no reference to start, no preflight (its answers are not in the recording).
    let stopped: string | undefined;
    try {
      stopped = readRecording(config.recording).rsf?.replay?.stoppedBeforeTests;
    } catch (e) {
      runState.remove();
      throw plain(new ConfigError([`RSF_TARGET_URL: ${(e as Error).message}`]));
    }
    if (stopped !== undefined) {
      // Judging tests the recorded run never ran would only find each request missing from the recording.
      runState.remove();
      throw plain(new StoppedReplayError(config.recording, stopped));
    }
    console.log(`Replaying ${config.recording}: nothing is sent, and the preflight is skipped.`);
    return async () => {
      testsOver = true;
      runState.remove();
    };
  }
  // Each worker appends its exchanges there; the conformance reporter makes reports/exchanges.har of them.
  if (gathersRecording(fullConfig)) createExchangesDir();
  // What earlier runs used up at an external target (RSF_DELETE_PRODUCT_ID, deleted) is gone there still; the
  // embedded reference starts afresh each run.
  const reportsDir = resolve(configDir, config.reportsDir);
  if (!config.embedded) carryConsumedIn(reportsDir, runState.dir);
  let stop: (() => Promise<void>) | undefined;
  if (config.embedded) {
    const { bearerToken, channelToken, referenceLatencyMs: latencyMs } = config;
    const server = await startReferenceServer({ bearerToken, channelToken, latencyMs });
    process.env[EMBEDDED_URL_ENV] = server.url;
    stop = () => server.close();
  }
  // The run stops before its first test: nothing is left running or behind, and the recording says why (its
  // redacted message), so that its replay stops alike.
  const stopBeforeTests = async (error: Error): Promise<never> => {
    testsOver = true;
    await stop?.();
    runState.remove();
    keepSetupStop(process.env[EXCHANGES_DIR_ENV], redact(error.message));
    throw plain(error);
  };
  const say = (message: string) => console.log(message);
  // A token command may mint its token at the target: it runs once the target is up. One that is still not up
  // after RSF_WAIT_FOR_TARGET_MS is what the preflight reports, not the command's failure.
  const waited = config.bearerTokenCommand !== '' && config.waitForTargetMs > 0;
  if (config.bearerTokenCommand !== '' && (await waitUntilUp(config, say))) {
    // After the embedded reference started: a command may mint its token there ($RSF_EMBEDDED_URL/_tokens).
    try {
      // Not synchronously: the embedded reference answers from this very process.
      const token = await runTokenCommand(config.bearerTokenCommand);
      registerBearerToken(token);
      // Workers and the runner's own senders load the configuration from the environment: one token for all.
      process.env.RSF_BEARER_TOKEN = token;
      config = { ...config, bearerToken: token };
    } catch (e) {
      await stopBeforeTests(e instanceof TokenCommandError ? new ConfigError([e.message]) : (e as Error));
    }
  }
  try {
    // The settings' resources are read from the reference's clean profile: a fault must fail its check, not the run.
    const resourceBase = config.embedded ? apiBase(config, '') : undefined;
    await preflight(config, apiBase(config), resourceBase, undefined, say, waited);
  } catch (e) {
    await stopBeforeTests(e as Error);
  }
  return async () => {
    testsOver = true;
    await stop?.();
    keepBreakerTrip(process.env[EXCHANGES_DIR_ENV], new RunState(runState.dir).breakerOpen());
    keepRefusal(process.env[EXCHANGES_DIR_ENV], runRefusal(runState.dir));
    try {
      if (!config.embedded) keepConsumed(runState.dir, reportsDir);
    } catch (e) {
      // The verdict stands: only the next run's knowledge of what this one used up is lost.
      process.stderr.write(`Could not keep what this run used up in ${reportsDir}: ${(e as Error).message}\n`);
    }
    runState.remove();
  };
}
