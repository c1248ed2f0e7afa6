/**
 * `npm run bench:peers`: cortexis next to LangChain.js and LlamaIndex.TS on SciFact (5,183
 * abstracts, 300 test questions), each stack with the same 256-d hashing embedder, the peers
 * with an instant fake chat model, cortexis with its offline defaults. Installs the pinned
 * peers into `bench/peers/node_modules` on first use (`npm ci`), then runs alternating rounds:
 * cold `import()` in fresh processes, and one fresh worker process per stack for ingestion,
 * single turns and conversations. Prints a markdown table and the ratios of the fastest peer
 * and of LangChain.js to cortexis.
 *
 * Options: `--cortexis DIR` (or `CORTEXIS_DIST`): the built `dist/` to measure (default: this
 * repository's); `--data DIR`: the SciFact folder; `--rounds N` (default 3); `--imports N`
 * cold-import processes per stack and round (default 5); `--report FILE`: print the tables of a
 * saved run (every run saves its samples to `bench/results/peers.json`) without measuring;
 * `--warm N`: N more untimed first turns per stack (over SciFact's train claims) before the
 * single-turn measure, the same for every stack (default 0: the first turns of a process).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hasSciFact, sciFactDir } from '../scifact.js';
import { CONVERSATION_TURNS, quantile, type WorkerResult } from './protocol.js';

const peersDir = import.meta.dirname;
const root = join(peersDir, '../..');

type StackName = 'cortexis' | 'langchain' | 'llamaindex';
const STACKS: readonly StackName[] = ['cortexis', 'langchain', 'llamaindex'];
const PEERS: readonly StackName[] = ['langchain', 'llamaindex'];

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** The installed version of a package in bench/peers/node_modules, or undefined. */
function installedVersion(name: string): string | undefined {
  const path = join(peersDir, 'node_modules', name, 'package.json');
  return existsSync(path) ? readJson<{ version: string }>(path).version : undefined;
}

/** `npm ci` in bench/peers when a pinned dependency is missing or at another version. */
function ensurePeersInstalled(): void {
  const { dependencies } = readJson<{ dependencies: Record<string, string> }>(
    join(peersDir, 'package.json'),
  );
  const stale = Object.entries(dependencies).filter(
    ([name, version]) => installedVersion(name) !== version,
  );
  if (stale.length === 0) return;
  console.error(`Installing the peers into bench/peers/node_modules (${stale.length} missing)…`);
  // Through the npm that runs this script when there is one, else the npm on the PATH.
  const npm = process.env.npm_execpath;
  const args = ['ci', '--no-audit', '--no-fund', '--ignore-scripts'];
  if (npm && /\.[cm]?js$/.test(npm)) {
    execFileSync(process.execPath, [npm, ...args], { cwd: peersDir, stdio: 'inherit' });
  } else {
    execFileSync('npm', args, {
      cwd: peersDir,
      stdio: 'inherit',
      shell: process.platform === 'win32',
    });
  }
}

/** Packages each stack's code imports, loaded together as its static imports would be. */
function importSpecifiers(stack: StackName, distDir: string): string[] {
  switch (stack) {
    case 'cortexis':
      return [pathToFileURL(join(distDir, 'index.js')).href];
    case 'langchain':
      // What stacks/langchain.ts imports (listed here: the peers may not be installed yet).
      return [
        '@langchain/classic/vectorstores/memory',
        '@langchain/core/chat_history',
        '@langchain/core/documents',
        '@langchain/core/embeddings',
        '@langchain/core/output_parsers',
        '@langchain/core/prompts',
        '@langchain/core/runnables',
        '@langchain/core/utils/testing',
        '@langchain/textsplitters',
      ];
    case 'llamaindex':
      // What stacks/llamaindex.ts imports.
      return ['@llamaindex/core/llms/mock', 'llamaindex'];
  }
}

interface ImportSample {
  /** `import()` of the stack's packages, timed inside the fresh process. */
  readonly inProcessMs: number;
  /** The whole process, spawn to exit, as the parent sees it. */
  readonly processMs: number;
}

/** One fresh Node process that imports `specifiers` (none: bare Node). */
function coldImport(specifiers: readonly string[]): ImportSample {
  const code =
    specifiers.length === 0
      ? 'process.stdout.write("0");'
      : `const t = performance.now(); await Promise.all(${JSON.stringify(specifiers)}.map((s) => import(s))); process.stdout.write(String(performance.now() - t));`;
  const started = performance.now();
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: peersDir,
  });
  const processMs = performance.now() - started;
  return { inProcessMs: Number(out.toString().trim()), processMs };
}

function runWorker(
  stack: StackName,
  distDir: string,
  dataDir: string,
  extraWarmUp: number,
): WorkerResult {
  const worker = join(peersDir, 'worker.ts');
  const out = execFileSync(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), worker, stack, distDir, dataDir, String(extraWarmUp)],
    {
      cwd: peersDir,
      maxBuffer: 16 * 2 ** 20,
      stdio: ['ignore', 'pipe', 'inherit'],
      // No LangSmith tracing, whatever the shell exports: it would time the network.
      env: { ...process.env, LANGSMITH_TRACING: 'false', LANGCHAIN_TRACING_V2: 'false' },
    },
  );
  const lines = out.toString().trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as WorkerResult;
}

const median = (values: readonly number[]): number => quantile(values, 0.5);

/** How to print milliseconds of about `reference`: the unit and precision that suit it. */
function msUnit(reference: number): {
  readonly number: (ms: number) => string;
  readonly unit: string;
} {
  if (reference >= 1000) return { number: (ms) => (ms / 1000).toFixed(2), unit: ' s' };
  const digits = reference >= 100 ? 0 : reference >= 10 ? 1 : 2;
  return { number: (ms) => ms.toFixed(digits), unit: ' ms' };
}

/** "median (min–max)" of one measure over the rounds, in milliseconds or as a ratio. */
function spread(values: readonly number[], kind: 'ms' | 'ratio' = 'ms'): string {
  const middle = median(values);
  const { number, unit } =
    kind === 'ms' ? msUnit(middle) : { number: (value: number) => value.toFixed(2), unit: '×' };
  if (values.length === 1) return `${number(middle)}${unit}`;
  return `${number(middle)}${unit} (${number(Math.min(...values))}–${number(Math.max(...values))})`;
}

const ms = (value: number): string => spread([value]);

interface Round {
  readonly imports: Record<StackName | 'bare', ImportSample[]>;
  readonly results: Record<StackName, WorkerResult>;
}

/** Turn 60: the median over the round's conversations. */
const lastTurn = (result: WorkerResult): number =>
  median(result.conversations.map((conversation) => conversation.lastMs));

/** One run of the benchmark, as saved to bench/results/peers.json. */
interface Run {
  readonly date: string;
  readonly machine: string;
  readonly data: string;
  /** What was measured: the cortexis build and the peers' installed versions. */
  readonly versions: Record<StackName, string>;
  /** Table labels. */
  readonly labels: Record<StackName, string>;
  readonly rounds: readonly Round[];
}

async function main(): Promise<void> {
  const saved = option('--report');
  if (saved !== undefined) {
    report(readJson<Run>(resolve(saved)));
    return;
  }
  const distDir = resolve(option('--cortexis') ?? process.env.CORTEXIS_DIST ?? join(root, 'dist'));
  if (!existsSync(join(distDir, 'index.js'))) {
    throw new Error(
      `No cortexis build in ${distDir}: build a copy of the tree (npx tsup) and pass --cortexis DIR or CORTEXIS_DIST.`,
    );
  }
  const dataDir = sciFactDir();
  if (!hasSciFact(dataDir)) {
    throw new Error(`SciFact not found in ${dataDir} (pass --data DIR).`);
  }
  const rounds = Number(option('--rounds') ?? 3);
  const importRuns = Number(option('--imports') ?? 5);
  if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(importRuns) || importRuns < 1) {
    throw new Error('--rounds and --imports take a whole number ≥ 1');
  }
  const extraWarmUp = Number(option('--warm') ?? 0);
  if (!Number.isInteger(extraWarmUp) || extraWarmUp < 0) {
    throw new Error('--warm takes a whole number ≥ 0');
  }
  ensurePeersInstalled();

  const versions: Run['versions'] = {
    cortexis: `dist at ${distDir}`,
    langchain: `langchain ${installedVersion('langchain')}, @langchain/core ${installedVersion('@langchain/core')}, @langchain/classic ${installedVersion('@langchain/classic')}, @langchain/textsplitters ${installedVersion('@langchain/textsplitters')}`,
    llamaindex: `llamaindex ${installedVersion('llamaindex')}, @llamaindex/core ${installedVersion('@llamaindex/core')}`,
  };
  const labels: Run['labels'] = {
    cortexis: 'cortexis (offline defaults)',
    langchain: `LangChain.js ${installedVersion('langchain')} (MemoryVectorStore + LCEL)`,
    llamaindex: `LlamaIndex.TS ${installedVersion('llamaindex')} (VectorStoreIndex + ContextChatEngine)`,
  };
  const machine = `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  console.error(`machine: ${machine}; running ${rounds} rounds…`);

  const all: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    // Alternate: each round starts with the next stack.
    const order = STACKS.map((_, index) => STACKS[(index + round) % STACKS.length]!);
    const imports: Round['imports'] = { bare: [], cortexis: [], langchain: [], llamaindex: [] };
    for (let run = 0; run < importRuns; run++) {
      imports.bare.push(coldImport([]));
      for (const stack of order) imports[stack].push(coldImport(importSpecifiers(stack, distDir)));
    }
    const results = {} as Record<StackName, WorkerResult>;
    for (const stack of order) {
      const result = runWorker(stack, distDir, dataDir, extraWarmUp);
      results[stack] = result;
      console.error(
        `round ${round + 1}/${rounds} ${stack}: import ${ms(median(imports[stack].map((s) => s.inProcessMs)))}, ingest ${ms(result.ingestMs)} (${result.chunks} chunks), turn p50 ${ms(result.turnP50Ms)} p99 ${ms(result.turnP99Ms)}, turn ${CONVERSATION_TURNS} ${ms(lastTurn(result))}`,
      );
    }
    all.push({ imports, results });
  }
  const run: Run = {
    date: new Date().toISOString(),
    machine,
    data: `SciFact (${dataDir})`,
    versions,
    labels,
    rounds: all,
  };
  // Every sample, for a closer look or to print again with --report (bench/results is ignored).
  const record = join(root, 'bench/results/peers.json');
  mkdirSync(dirname(record), { recursive: true });
  writeFileSync(record, `${JSON.stringify(run, null, 2)}\n`);
  console.error(`samples: ${record}`);
  report(run);
}

/**
 * Prints the run as markdown: the stacks side by side, then the ratios and the targets of issue
 * 27 (turn, ingest, long conversation) and issue 17 (p99, start-up), each named by its issue.
 */
function report(run: Run): void {
  const all = run.rounds;
  const rounds = all.length;
  const importRuns = all[0]!.imports.bare.length;
  const { labels } = run;
  console.log(`date: ${run.date}`);
  console.log(`machine: ${run.machine}`);
  console.log(`data: ${run.data}`);
  for (const stack of STACKS) console.log(`${stack}: ${run.versions[stack]}`);

  // Per round: the median of that round's import processes.
  const importMs = (stack: StackName | 'bare', key: keyof ImportSample) =>
    all.map((round) => median(round.imports[stack].map((sample) => sample[key])));
  const measure = (stack: StackName, pick: (result: WorkerResult) => number) =>
    all.map((round) => pick(round.results[stack]));
  const bareProcess = importMs('bare', 'processMs');

  console.log(
    `\nRounds: ${rounds}, alternating; each cell: median (min–max) over the rounds. Cold import: per round, the median of ${importRuns} fresh process(es) per stack; bare Node process: ${spread(bareProcess)}.\n`,
  );
  console.log(
    '| stack | chunks | cold import (in process) | process with the import (× bare Node) | ingest SciFact | single turn p50 | single turn p99 | turn 60 of a conversation |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const stack of STACKS) {
    const processMs = importMs(stack, 'processMs');
    const ratio = processMs.map((value, index) => value / bareProcess[index]!);
    console.log(
      `| ${labels[stack]} | ${all[0]!.results[stack].chunks} | ${spread(importMs(stack, 'inProcessMs'))} | ${spread(processMs)}, ${spread(ratio, 'ratio')} | ${spread(measure(stack, (r) => r.ingestMs))} | ${spread(measure(stack, (r) => r.turnP50Ms))} | ${spread(measure(stack, (r) => r.turnP99Ms))} | ${spread(measure(stack, lastTurn))} |`,
    );
  }

  // Ratios in the same round: a peer's figure over cortexis's (above 1: cortexis is faster).
  type Pick = (stack: StackName, round: number) => number;
  const ratios = (pick: Pick, peers: readonly StackName[]) =>
    all.map(
      (_, round) => Math.min(...peers.map((peer) => pick(peer, round))) / pick('cortexis', round),
    );
  const worker =
    (pick: (result: WorkerResult) => number): Pick =>
    (stack, round) =>
      pick(all[round]!.results[stack]);
  const verdict = (met: boolean) => (met ? '**met**' : '**not met**');
  const cortexis = (pick: Pick) => all.map((_, round) => pick('cortexis', round));

  interface Row {
    readonly name: string;
    readonly pick: Pick;
    /** The row's target, and whether the medians meet it (`ratio`: LangChain.js ÷ cortexis). */
    readonly target?: {
      readonly text: string;
      readonly met: (ms: number, ratio: number) => boolean;
    };
  }
  const turnP50 = worker((r) => r.turnP50Ms);
  const rows: Row[] = [
    {
      name: 'single turn p50',
      pick: turnP50,
      target: {
        text: 'issue 27: ≤ 2 ms and ≥ 10× LangChain.js',
        met: (ms, ratio) => ms <= 2 && ratio >= 10,
      },
    },
    {
      name: 'single turn p99',
      pick: worker((r) => r.turnP99Ms),
      target: { text: 'issue 17: ≤ 3 ms', met: (ms) => ms <= 3 },
    },
    {
      name: `turn ${CONVERSATION_TURNS} of a conversation`,
      pick: worker(lastTurn),
      target: {
        text: 'issue 27: ≤ 1.2× the single turn p50',
        met: (ms) => ms <= 1.2 * median(cortexis(turnP50)),
      },
    },
    {
      name: 'ingest SciFact',
      pick: worker((r) => r.ingestMs),
      target: {
        text: 'issue 27: ≥ 1.5× LangChain.js',
        met: (_ms, ratio) => ratio >= 1.5,
      },
    },
    {
      name: 'cold import (in process)',
      pick: (stack, round) => importMs(stack, 'inProcessMs')[round]!,
    },
  ];
  console.log('\nRatios in the same round, peer ÷ cortexis (above 1: cortexis is faster):\n');
  console.log(
    '| measure | cortexis | fastest peer ÷ cortexis | LangChain.js ÷ cortexis | target | |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const { name, pick, target } of rows) {
    const values = cortexis(pick);
    const langChain = ratios(pick, ['langchain']);
    const met = target ? verdict(target.met(median(values), median(langChain))) : '';
    console.log(
      `| ${name} | ${spread(values)} | ${spread(ratios(pick, PEERS), 'ratio')} | ${spread(langChain, 'ratio')} | ${target?.text ?? '—'} | ${met} |`,
    );
  }
  const startUp = importMs('cortexis', 'processMs').map(
    (value, index) => value / bareProcess[index]!,
  );
  console.log(
    `| process with \`import()\` ÷ bare Node process | ${spread(startUp, 'ratio')} | — | — | issue 17: ≤ 1.3× | ${verdict(median(startUp) <= 1.3)} |`,
  );
  console.log(
    `\nSingle turn: the first turn of a fresh conversation, ${all[0]!.results.cortexis.questions} test questions after ${all[0]!.results.cortexis.warmUpTurns ?? 20} untimed first turns (20 test questions, then train claims with \`--warm N\`). Turn ${CONVERSATION_TURNS}: median of ${all[0]!.results.cortexis.conversations.length} conversations of ${CONVERSATION_TURNS} test questions. Targets are judged on the medians.`,
  );
}

await main();
