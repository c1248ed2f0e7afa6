/**
 * How fast the `cortexis` command answers (issue 29): builds the CLI as published (tsup, this
 * repository's configuration) into `bench/results/cli-build/`, writes a folder of Markdown files
 * from SciFact (about 300 chunks), indexes it once, then times, as child processes, alternating
 * run by run:
 *
 * - `node -e ''` (the floor: Node's own start-up on this machine),
 * - `cortexis --version` (start-up),
 * - `cortexis index <folder>` on the indexed folder (start-up + opening the index),
 * - `cortexis ask <folder> "<question>"` (the whole answer),
 *
 * and, in this process, the parts of `ask`: opening the index (`openIndex`) and the turn.
 *
 * Usage: npm run bench:cli [-- --runs 15 --documents 290 --data ../shared/data/scifact
 *                            --baseline <an earlier build's dist/cli.js>]
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { build, type Options } from 'tsup';
import tsupConfig from '../tsup.config.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '15' },
    documents: { type: 'string', default: '290' },
    data: { type: 'string', default: join(root, '../shared/data/scifact') },
    // Another build of the CLI (e.g. of an earlier commit) timed in the same rounds, for ratios.
    baseline: { type: 'string' },
  },
});
const runs = Number(values.runs);
const work = join(root, 'bench/results/cli-build');
const corpus = join(work, 'corpus');
const cache = join(work, 'cache');
const QUESTION = 'Does the microstructure of cerebral white matter change in newborns?';

async function buildCli(): Promise<string> {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const configs = (Array.isArray(tsupConfig) ? tsupConfig : [tsupConfig]) as Options[];
  // The encoding tables and the CLI, as `npm run build` writes them.
  for (const config of configs.slice(1)) {
    await build({ ...config, config: false, silent: true, outDir: join(work, 'dist') });
  }
  // The CLI finds its version in the package.json above its folder.
  writeFileSync(join(work, 'package.json'), readFileSync(join(root, 'package.json')));
  return join(work, 'dist/cli.js');
}

function writeCorpus(count: number): void {
  mkdirSync(corpus, { recursive: true });
  const lines = readFileSync(join(values.data, 'corpus.jsonl'), 'utf8').split('\n');
  for (const line of lines.slice(0, count)) {
    const record = JSON.parse(line) as { _id: string; title: string; text: string };
    writeFileSync(join(corpus, `${record._id}.md`), `# ${record.title}\n\n${record.text}\n`);
  }
}

const env = {
  ...process.env,
  CORTEXIS_CACHE_DIR: cache,
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
  OLLAMA_HOST: '',
};

/** Prints the child's CPU time (user + system, ms) as the last line of its stderr. */
const CPU_PROBE =
  "data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\ncpu-ms '+(u.user+u.system)/1000+'\\n')})";

/** Wall time of one child process and the CPU time it used (less sensitive to a loaded machine). */
async function wall(args: readonly string[]): Promise<{ wall: number; cpu: number }> {
  const start = performance.now();
  const { stderr } = await run(process.execPath, ['--import', CPU_PROBE, ...args], {
    cwd: work,
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  const elapsed = performance.now() - start;
  return { wall: elapsed, cpu: Number(/cpu-ms ([\d.]+)\s*$/.exec(stderr)?.[1] ?? Number.NaN) };
}

function summary(samples: readonly number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `median ${at(0.5).toFixed(0)} ms (min ${sorted[0]!.toFixed(0)}, p90 ${at(0.9).toFixed(0)})`;
}

const cli = await buildCli();
writeCorpus(Number(values.documents));
const first = await run(process.execPath, [cli, 'index', corpus, '--json'], { cwd: work, env });
const indexed = await run(process.execPath, [cli, 'ask', corpus, QUESTION, '--json'], {
  cwd: work,
  env,
});
const chunksLine = /Indexed (\d+) documents \((\d+) chunks\)/.exec(first.stderr);
const answer = JSON.parse(indexed.stdout) as { sources?: unknown[]; timings?: unknown };

const cases: Record<string, readonly string[]> = {
  'node -e ""': ['-e', ''],
  'cortexis --version': [cli, '--version'],
  'cortexis index (indexed)': [cli, 'index', corpus],
  'cortexis ask (indexed)': [cli, 'ask', corpus, QUESTION],
  ...(values.baseline
    ? {
        'baseline --version': [values.baseline, '--version'],
        'baseline ask (indexed)': [values.baseline, 'ask', corpus, QUESTION],
      }
    : {}),
};
const samples: Record<string, { wall: number[]; cpu: number[] }> = Object.fromEntries(
  Object.keys(cases).map((name) => [name, { wall: [], cpu: [] }]),
);
for (let round = 0; round < runs; round++) {
  for (const [name, args] of Object.entries(cases)) {
    const measured = await wall(args);
    samples[name]!.wall.push(measured.wall);
    samples[name]!.cpu.push(measured.cpu);
  }
}

// The parts of `ask`, in this process (the sources, through tsx).
process.env['CORTEXIS_CACHE_DIR'] = cache;
const { openIndex } = await import('../src/cli/open-index.js');
const silent = { write: () => true } as unknown as NodeJS.WritableStream;
const io = { stdout: silent, stderr: silent, stdin: process.stdin, env };
const opens: number[] = [];
const turns: number[] = [];
for (let round = 0; round < runs; round++) {
  let start = performance.now();
  const opened = await openIndex(io, { paths: [corpus], noCache: false, progress: false });
  opens.push(performance.now() - start);
  start = performance.now();
  await opened.engine.chat({ message: QUESTION, mode: 'query' });
  turns.push(performance.now() - start);
}

console.log(`cortexis CLI, ${runs} runs each (alternating), Node ${process.version}`);
console.log(
  `corpus: ${values.documents} SciFact abstracts as Markdown files, ${chunksLine?.[2] ?? '?'} chunks; answer sources: ${answer.sources?.length ?? '?'}`,
);
console.log(
  `load average at the end: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')}`,
);
for (const [name, times] of Object.entries(samples)) {
  console.log(`${name.padEnd(28)} wall ${summary(times.wall)}; CPU ${summary(times.cpu)}`);
}
if (values.baseline) {
  const median = (list: readonly number[]) =>
    [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  for (const [ours, theirs] of [
    ['cortexis --version', 'baseline --version'],
    ['cortexis ask (indexed)', 'baseline ask (indexed)'],
  ] as const) {
    const wallRatio = median(samples[ours]!.wall) / median(samples[theirs]!.wall);
    const cpuRatio = median(samples[ours]!.cpu) / median(samples[theirs]!.cpu);
    console.log(`${ours} / baseline: wall ×${wallRatio.toFixed(2)}, CPU ×${cpuRatio.toFixed(2)}`);
  }
}
console.log(`${'open the index (in process)'.padEnd(28)} ${summary(opens.slice(1))}`);
console.log(`${'turn (in process)'.padEnd(28)} ${summary(turns.slice(1))}`);
