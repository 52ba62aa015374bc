// A sharded run is one run in parts (README, "Sharding"): merged, its blobs must be the shards of one run. Each
// shard names itself in the run's metadata under a key of its own: merge-reports keeps every shard's keys, but of a
// key they share only the last shard's value, so the run's own facts (target, seed, …) said nothing of the others. A
// shard whose secret was missing in CI ran against the embedded reference, and the merge reported the whole run so.

/** The facts of a shard that must be the same in every shard of one run, and the settings that decide them. */
const SAME_IN_EVERY_SHARD = {
  target: 'the target (RSF_TARGET_URL)',
  safetyMode: 'writes (RSF_ALLOW_WRITES)',
  profile: 'the reference profile (RSF_REFERENCE_MODE, RSF_REFERENCE_FAULT)',
  suiteVersion: 'the suite version',
  seed: 'the property seed (RSF_FC_SEED)',
} as const;

export type ShardFacts = { shard: string } & Record<keyof typeof SAME_IN_EVERY_SHARD, string>;

const KEY_PREFIX = 'rsfShard ';

/** The metadata entry of shard `facts.shard` ("i/n"): a key no other shard has, as `nonce` is the shard's own. */
export function shardEntry(facts: ShardFacts, nonce: string): Record<string, ShardFacts> {
  return { [`${KEY_PREFIX}${facts.shard} ${nonce}`]: facts };
}

/** `--shard=i/n` or `--shard i/n` among Playwright's arguments. */
export function shardArgument(argv: readonly string[]): string | undefined {
  const at = argv.findIndex((arg) => arg === '--shard' || arg.startsWith('--shard='));
  if (at === -1) return undefined;
  const arg = argv[at] as string;
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[at + 1];
}

/**
 * Why the merged blobs are not the shards of one run, as one configuration problem of the merge; none when they are,
 * or when no blob names its shard (a merge of blobs of another kind).
 */
export function shardProblems(metadata: Record<string, unknown>): string[] {
  const shards = Object.entries(metadata)
    .filter(([key]) => key.startsWith(KEY_PREFIX))
    .map(([, facts]) => facts as ShardFacts)
    .sort((a, b) => a.shard.localeCompare(b.shard, 'en', { numeric: true }));
  if (shards.length === 0) return [];
  const problems: string[] = [];
  for (const [fact, name] of Object.entries(SAME_IN_EVERY_SHARD) as [keyof typeof SAME_IN_EVERY_SHARD, string][]) {
    if (new Set(shards.map((s) => s[fact])).size === 1) continue;
    problems.push(`${name} differs: ${shards.map((s) => `shard ${s.shard} ${JSON.stringify(s[fact])}`).join(', ')}`);
  }
  const splits = new Set(shards.map((s) => s.shard.split('/')[1]));
  if (splits.size > 1) problems.push(`shards of different splits: ${shards.map((s) => s.shard).join(', ')}`);
  else {
    const total = Number([...splits][0]);
    const named = shards.map((s) => Number(s.shard.split('/')[0]));
    for (let i = 1; i <= total; i++) {
      const times = named.filter((n) => n === i).length;
      if (times === 0) problems.push(`no blob says it is shard ${i}/${total}`);
      if (times > 1) problems.push(`${times} blobs say they are shard ${i}/${total}`);
    }
  }
  if (problems.length === 0) return [];
  return [
    `the blobs merged are not the shards of one run: ${problems.join('; ')}. Merge the blobs of one run, each ` +
      'shard run once with the same settings and RSF_FC_SEED (README, "Sharding")',
  ];
}
