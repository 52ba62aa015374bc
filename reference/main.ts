// `npm run reference`: the reference server on RSF_REFERENCE_PORT (default 4010; 0 = a free port),
// accepting the tokens of the suite's configuration, so that a user-set RSF_BEARER_TOKEN works.
import { ConfigError, loadConfig } from '../tests/support/config';
import { startReferenceServer } from './server';

async function main(): Promise<void> {
  const config = loadConfig();
  const server = await startReferenceServer({
    port: config.referencePort,
    bearerToken: config.bearerToken,
    channelToken: config.channelToken,
    latencyMs: config.referenceLatencyMs,
  });
  const latency = config.referenceLatencyMs > 0 ? ` Every answer waits ${config.referenceLatencyMs} ms.` : '';
  console.log(`Reference server at ${server.url}/v1 (profiles: ${server.url}/_modes/<mode>/v1, ${server.url}/_faults/<fault>/v1); Ctrl-C stops it.${latency}`);
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e: unknown) => {
  console.error(e instanceof ConfigError || e instanceof Error ? e.message : e);
  process.exit(1);
});
