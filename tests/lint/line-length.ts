// `npm run lint`, second half: no line of code or workflow over 120 characters. Biome's formatter wraps code at
// 120 but leaves long strings, comments and YAML alone; this finds those. Markdown prose and JSON data are exempt.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const CHECKED = ['*.ts', '*.mjs', '*.js', '*.yml', '.ci/run'];

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...CHECKED], {
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);
const long = files.flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => ([...line].length > MAX ? [`${file}:${i + 1}: ${[...line].length} characters`] : [])),
);
if (long.length > 0) {
  console.error(`Lines over ${MAX} characters:\n${long.join('\n')}`);
  process.exit(1);
}
console.log(`${files.length} files, no line over ${MAX} characters`);
