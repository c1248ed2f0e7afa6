/**
 * `npm run bench:turn-ab -- <git-ref> [--rounds N] [--corpus scifact,docs] [--data DIR]
 * [--b-dir DIR] [--keep]`: what a turn costs in this working tree (A) against a commit (B),
 * measured alternately in one run.
 *
 * The ref is checked out into a temporary git worktree (detached, removed at the end unless
 * `--keep`) with this tree's `node_modules` linked into it; `--b-dir DIR` uses a copy that
 * already exists instead. Each round starts one fresh Node process per side, A then B, per
 * corpus (A, B, A, B, …; `--rounds N`, default 3, at least 3). A process imports its tree's
 * `src/index.ts`, ingests the corpus into `createChatEngine()` with the defaults (timed: the
 * first ingest of a fresh process), warms up on questions that are not measured, then runs the
 * measured questions as `mode: 'query'` turns:
 * - SciFact (`../shared/data/scifact` or `--data DIR`): 5,183 abstracts; warm-up on 50 train
 *   claims, then the 300 test claims;
 * - docs: this tree's `docs/*.md` pages (not `benchmarks.md`, which quotes the questions),
 *   the same files for both sides; warm-up on the e-bike handbook questions and the off-topic
 *   questions, then the docs questions of `bench/trust-docs-questions.ts`.
 *
 * Stages are what the engine itself reports during a turn: every event payload field that is a
 * duration (`durationMs` → the event's name, `metrics` → `metrics.<phase>`) and the answer's
 * `timings` (`timings.<field>`), plus the turn's wall time and CPU time (`process.cpuUsage`)
 * as the bench sees them. Per process: the p50 of each stage over the turns where it occurred.
 * Printed per corpus: for each side the median over the rounds of those p50s with their range,
 * and the ratio B/A per round (median, min–max). B/A > 1: this tree is faster than the ref.
 * A stage only one side reports (renamed, added or removed between the two) is listed apart,
 * not compared. The load average is printed: on a shared machine, read ratios, not times.
 *
 * `--profile` also records a CPU profile of the measured turns in every process and prints the
 * self time per source folder (`src/judge/`, `src/pipeline/turn/`, a package, `(garbage
 * collector)`), mean ms per turn, per side, with B/A: the finer stages the events do not time
 * (the extractive model, the guard, token counts). The profiler slows both sides alike; read
 * those tables for ratios, and the plain run for times.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** What one side's process measured on one corpus. */
export interface ChildResult {
  readonly ingestWallMs: number;
  readonly ingestCpuMs: number;
  readonly turns: number;
  /** Per stage: p50 over the turns where it occurred, and how many turns that was. */
  readonly stages: Record<string, { p50: number; count: number }>;
  /** With `--profile`: CPU profile self time of the measured turns per source folder, ms/turn. */
  readonly folders?: Record<string, number>;
}

/** A corpus written to a file the child processes read (so no child imports this tree's src). */
export interface CorpusFile {
  readonly name: string;
  readonly docs: readonly { id: string; title: string; text: string }[];
  readonly warmup: readonly string[];
  readonly questions: readonly string[];
}

const ROOT = resolve(import.meta.dirname, '..');

/** The value after `name` on the command line. */
export function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

// ---------------------------------------------------------------------------------------------
// Child: one fresh process, one tree, one corpus.

/** Event names of the tree's `EngineEvents` (older trees have fewer). */
function eventNames(root: string): string[] {
  const fallback = ['retrieval', 'recall', 'judge', 'guard', 'turn.completed', 'metrics'];
  const path = join(root, 'src/events.ts');
  if (!existsSync(path)) return fallback;
  const source = readFileSync(path, 'utf8');
  const block = /interface EngineEvents \{([^}]*)\}/.exec(source)?.[1];
  if (block === undefined) return fallback;
  const names = [...block.matchAll(/^\s*'?([\w.]+)'?\s*:/gm)].map((match) => match[1]!);
  return names.length > 0 ? names : fallback;
}

interface ChildEngine {
  ingest(docs: unknown): Promise<unknown>;
  chat(request: { message: string; mode: 'query' }): Promise<{ timings?: unknown }>;
  on?(event: string, listener: (payload: unknown) => void): unknown;
}

/**
 * Each stage's p50 over the turns where it occurred. Stages that are one measure under several
 * names (the turn's total as an event, a metric and a timing) have the same value in every
 * turn: they become one stage, named by all its names (`a = b = c`).
 */
export function groupStages(
  samples: ReadonlyMap<string, readonly number[]>,
): ChildResult['stages'] {
  const groups = new Map<string, string[]>();
  for (const [stage, list] of samples) {
    const key = list.join(',');
    groups.set(key, [...(groups.get(key) ?? []), stage]);
  }
  const stages: ChildResult['stages'] = {};
  for (const names of groups.values()) {
    const list = samples.get(names[0]!)!;
    stages[names.sort().join(' = ')] = { p50: median(list), count: list.length };
  }
  return stages;
}

/** One compared stage: per-round p50s of each side and the ratios B/A per round. */
export interface StageRow {
  readonly stage: string;
  /** Median number of turns per process where the stage occurred, A and B. */
  readonly turns: readonly [number, number];
  readonly a: readonly number[];
  readonly b: readonly number[];
  readonly ratios: readonly number[];
}

/**
 * The stages both sides report, in order (turn wall, turn CPU, then by name), and the ones
 * only one side reports (renamed, added or removed between the trees), which are not compared.
 * Round `i` of A is paired with round `i` of B; a stage missing from one process (it never
 * occurred there) counts as 0 in that round.
 */
export function compareStages(
  a: readonly ChildResult[],
  b: readonly ChildResult[],
): { rows: StageRow[]; onlyA: string[]; onlyB: string[] } {
  const stagesOf = (results: readonly ChildResult[]): Set<string> =>
    new Set(results.flatMap((r) => Object.keys(r.stages)));
  const inA = stagesOf(a);
  const inB = stagesOf(b);
  const order = (stage: string): number =>
    stage.startsWith('turn wall') ? 0 : stage.startsWith('turn cpu') ? 1 : 2;
  const both = [...inA]
    .filter((stage) => inB.has(stage))
    .sort((x, y) => order(x) - order(y) || x.localeCompare(y));
  const rows = both.map((stage): StageRow => {
    const values = (results: readonly ChildResult[]): number[] =>
      results.map((r) => r.stages[stage]?.p50 ?? 0);
    const turns = (results: readonly ChildResult[]): number =>
      median(results.map((r) => r.stages[stage]?.count ?? 0));
    const av = values(a);
    const bv = values(b);
    return {
      stage,
      turns: [turns(a), turns(b)],
      a: av,
      b: bv,
      ratios: av.map((value, round) => bv[round]! / value),
    };
  });
  return {
    rows,
    onlyA: [...inA].filter((stage) => !inB.has(stage)).sort(),
    onlyB: [...inB].filter((stage) => !inA.has(stage)).sort(),
  };
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}

/** Where a profile node's code lives: its tree's folder, a package, or V8's own entries. */
function folderOf(node: ProfileNode, root: string): string {
  const { url, functionName } = node.callFrame;
  if (url === '')
    return /^\((program|garbage collector|idle|root)\)$/.test(functionName)
      ? functionName
      : '(native)';
  const path = url.startsWith('file://') ? decodeURIComponent(new URL(url).pathname) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return `node_modules/${pkg[1]}`;
  if (path === fileURLToPath(import.meta.url)) return '(this bench)';
  if (path.startsWith(`${root}/`)) {
    const relative = path.slice(root.length + 1);
    return relative.slice(0, relative.lastIndexOf('/') + 1) || relative;
  }
  return path.startsWith('node:') ? 'node:' : '(other)';
}

async function child(root: string, corpusPath: string, profiling: boolean): Promise<void> {
  const corpus = JSON.parse(readFileSync(corpusPath, 'utf8')) as CorpusFile;
  const url = pathToFileURL(join(root, 'src/index.ts')).href;
  const { createChatEngine } = (await import(url)) as { createChatEngine: () => ChildEngine };
  const engine = createChatEngine();

  let turn: Map<string, number> | null = null;
  const record = (stage: string, ms: unknown): void => {
    if (turn === null || typeof ms !== 'number' || !Number.isFinite(ms)) return;
    turn.set(stage, (turn.get(stage) ?? 0) + ms);
  };
  for (const name of eventNames(root)) {
    if (name === 'error') continue;
    engine.on?.(name, (payload) => {
      if (payload === null || typeof payload !== 'object') return;
      const fields = payload as Record<string, unknown>;
      if (name === 'metrics' && typeof fields.phase === 'string') {
        record(`metrics.${fields.phase}`, fields.ms);
        return;
      }
      for (const [key, value] of Object.entries(fields)) {
        if (key === 'durationMs') record(name, value);
        else if (key.endsWith('Ms') && key !== 'delayMs') record(`${name}.${key}`, value);
      }
    });
  }

  const cpuStart = process.cpuUsage();
  const started = performance.now();
  await engine.ingest(corpus.docs);
  const ingestWallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const ingestCpuMs = (cpu.user + cpu.system) / 1000;

  for (const message of corpus.warmup) await engine.chat({ message, mode: 'query' });

  const inspector = profiling ? new (await import('node:inspector/promises')).Session() : null;
  if (inspector) {
    inspector.connect();
    await inspector.post('Profiler.enable');
    await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
    await inspector.post('Profiler.start');
  }
  const samples = new Map<string, number[]>();
  for (const message of corpus.questions) {
    turn = new Map();
    const cpuBefore = process.cpuUsage();
    const before = performance.now();
    const reply = await engine.chat({ message, mode: 'query' });
    const wall = performance.now() - before;
    const used = process.cpuUsage(cpuBefore);
    turn.set('turn wall (bench)', wall);
    turn.set('turn cpu (bench)', (used.user + used.system) / 1000);
    if (reply.timings !== null && typeof reply.timings === 'object') {
      for (const [key, value] of Object.entries(reply.timings)) record(`timings.${key}`, value);
    }
    for (const [stage, ms] of turn) {
      const list = samples.get(stage) ?? [];
      list.push(ms);
      samples.set(stage, list);
    }
    turn = null;
  }
  const stages = groupStages(samples);
  let folders: Record<string, number> | undefined;
  if (inspector) {
    const { profile } = await inspector.post('Profiler.stop');
    inspector.disconnect();
    const byId = new Map(profile.nodes.map((node) => [node.id, node as ProfileNode]));
    const self = new Map<string, number>();
    const realRoot = realpathSync(root);
    profile.samples?.forEach((id, at) => {
      const node = byId.get(id);
      const ms = (profile.timeDeltas?.[at + 1] ?? 0) / 1000;
      if (node === undefined) return;
      const folder = folderOf(node, realRoot);
      self.set(folder, (self.get(folder) ?? 0) + ms);
    });
    folders = {};
    for (const [folder, ms] of self) folders[folder] = ms / corpus.questions.length;
  }
  const result: ChildResult = {
    ingestWallMs,
    ingestCpuMs,
    turns: corpus.questions.length,
    stages,
    ...(folders ? { folders } : {}),
  };
  process.stdout.write(`TURN-AB ${JSON.stringify(result)}\n`);
}

// ---------------------------------------------------------------------------------------------
// Parent: the worktree, the corpora, the alternation and the report.

/**
 * Why `ref` cannot name a commit to check out, or undefined when it may: it goes to git as an
 * argument (no shell), but one starting with `-` would be read as an option.
 */
export function refProblem(ref: string): string | undefined {
  if (ref.length === 0) return 'the ref is empty';
  if (ref.length > 256) return 'the ref is longer than 256 characters';
  if (ref.startsWith('-')) return 'the ref starts with "-"';
  if (/[\u0000-\u001f\u007f]/.test(ref)) return 'the ref holds a control character';
  return undefined;
}

function git(args: readonly string[]): string {
  const run = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr.trim()}`);
  return run.stdout.trim();
}

/** Writes each wanted corpus (`scifact`, `docs`) as a `CorpusFile` in `dir`; their paths. */
export async function corpora(wanted: readonly string[], dir: string): Promise<string[]> {
  const files: string[] = [];
  const write = (corpus: CorpusFile): void => {
    const path = join(dir, `${corpus.name}.json`);
    writeFileSync(path, JSON.stringify(corpus));
    files.push(path);
  };
  for (const name of wanted) {
    if (name === 'scifact') {
      const { hasSciFact, loadCorpus, loadQueries, sciFactDir } = await import('./scifact.js');
      const data = sciFactDir();
      if (!hasSciFact(data)) throw new Error(`SciFact not found in ${data} (pass --data DIR)`);
      write({
        name: 'scifact',
        docs: loadCorpus(data).map(({ id, title, text }) => ({ id, title, text })),
        warmup: loadQueries(data, 'train')
          .slice(0, 50)
          .map((query) => query.text),
        questions: loadQueries(data).map((query) => query.text),
      });
    } else if (name === 'docs') {
      const questions = await import('./trust-docs-questions.js');
      const docsDir = join(ROOT, 'docs');
      const docs = readdirSync(docsDir)
        .filter((file) => file.endsWith('.md') && file !== 'benchmarks.md')
        .sort()
        .map((file) => {
          const text = readFileSync(join(docsDir, file), 'utf8');
          const id = file.slice(0, -3);
          return { id, title: /^#\s+(.+)$/m.exec(text)?.[1] ?? id, text };
        });
      write({
        name: 'docs',
        docs,
        warmup: [...questions.BIKE_QUESTIONS.map((q) => q.question), ...questions.DOCS_OFF_TOPIC],
        questions: questions.DOCS_QUESTIONS.map((q) => q.question),
      });
    } else {
      throw new Error(`unknown corpus "${name}" (scifact, docs)`);
    }
  }
  return files;
}

/** The child process running now (ended with the parent on Ctrl-C). */
let running: ChildProcess | undefined;

function runChild(root: string, corpusPath: string): Promise<ChildResult> {
  return new Promise((done, fail) => {
    const args = ['--import', 'tsx', join(ROOT, 'bench/turn-ab.ts'), '--child', root, corpusPath];
    if (process.argv.includes('--profile')) args.push('--profile');
    const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    running = proc;
    let out = '';
    let err = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    proc.on('error', fail);
    proc.on('close', (code) => {
      running = undefined;
      const line = out.split('\n').find((text) => text.startsWith('TURN-AB '));
      if (code !== 0 || line === undefined) {
        fail(new Error(`child for ${root} exited ${code}: ${err.trim().slice(-2000)}`));
        return;
      }
      done(JSON.parse(line.slice('TURN-AB '.length)) as ChildResult);
    });
  });
}

const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(3));

function side(values: readonly number[]): string {
  return `${fmt(median(values))} (${fmt(Math.min(...values))}–${fmt(Math.max(...values))})`;
}

function report(corpus: string, a: readonly ChildResult[], b: readonly ChildResult[]): void {
  const rows: string[][] = [['stage', 'turns A/B', 'A p50 ms', 'B p50 ms', 'B/A median (min–max)']];
  const row = (name: string, turns: string, av: number[], bv: number[]): void => {
    const ratios = av.map((value, round) => bv[round]! / value);
    rows.push([
      name,
      turns,
      side(av),
      side(bv),
      `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
    ]);
  };
  row(
    'ingest wall (first)',
    '',
    a.map((r) => r.ingestWallMs),
    b.map((r) => r.ingestWallMs),
  );
  row(
    'ingest cpu (first)',
    '',
    a.map((r) => r.ingestCpuMs),
    b.map((r) => r.ingestCpuMs),
  );
  const { rows: compared, onlyA, onlyB } = compareStages(a, b);
  for (const { stage, turns, a: av, b: bv } of compared) {
    row(stage, `${turns[0]}/${turns[1]}`, [...av], [...bv]);
  }
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  console.log(`\n${corpus}: ${a[0]?.turns ?? 0} measured turns per process, mode 'query'`);
  for (const r of rows) console.log(r.map((cell, col) => cell.padEnd(widths[col]!)).join('  '));
  if (onlyA.length > 0) console.log(`only in A (not compared): ${onlyA.join(', ')}`);
  if (onlyB.length > 0) console.log(`only in B (not compared): ${onlyB.join(', ')}`);
  if (a[0]?.folders !== undefined && b[0]?.folders !== undefined) folderReport(a, b);
}

/** The `--profile` table: self time per source folder, mean ms per turn, both sides. */
function folderReport(a: readonly ChildResult[], b: readonly ChildResult[]): void {
  const names = new Set([...a, ...b].flatMap((r) => Object.keys(r.folders ?? {})));
  const total = (r: ChildResult, folder: string): number => r.folders?.[folder] ?? 0;
  const rows = [...names]
    .map((folder) => ({
      folder,
      a: a.map((r) => total(r, folder)),
      b: b.map((r) => total(r, folder)),
    }))
    .filter((row) => median(row.a) >= 0.01 || median(row.b) >= 0.01)
    .sort((x, y) => Math.max(median(y.a), median(y.b)) - Math.max(median(x.a), median(x.b)));
  console.log('CPU profile of the measured turns, self time per folder, ms per turn (mean):');
  const width = Math.max(...rows.map((row) => row.folder.length));
  for (const row of rows) {
    const ratio = row.a.map((value, round) => row.b[round]! / value);
    const compared =
      row.a.some((v) => v === 0) || row.b.some((v) => v === 0)
        ? 'one side only'
        : `B/A ${median(ratio).toFixed(2)} (${Math.min(...ratio).toFixed(2)}–${Math.max(...ratio).toFixed(2)})`;
    console.log(
      `  ${row.folder.padEnd(width)}  A ${side(row.a).padEnd(24)} B ${side(row.b).padEnd(24)} ${compared}`,
    );
  }
}

async function parent(): Promise<void> {
  const ref = process.argv.slice(2).find((arg, at, all) => {
    const previous = all[at - 1];
    const takesValue = ['--rounds', '--corpus', '--data', '--b-dir'];
    return !arg.startsWith('--') && (previous === undefined || !takesValue.includes(previous));
  });
  const bDirFlag = flag('--b-dir');
  if (ref === undefined && bDirFlag === undefined) {
    throw new Error(
      'usage: npm run bench:turn-ab -- <git-ref> [--rounds N] [--corpus scifact,docs]',
    );
  }
  const rounds = Number(flag('--rounds') ?? 3);
  if (!Number.isInteger(rounds) || rounds < 3) throw new Error('--rounds must be an integer ≥ 3');
  const wanted = (flag('--corpus') ?? 'scifact,docs').split(',').filter((name) => name !== '');
  const work = mkdtempSync(join(tmpdir(), 'cortexis-turn-ab-'));
  let bRoot = bDirFlag === undefined ? '' : resolve(bDirFlag);
  let worktree = false;
  const head = git(['rev-parse', '--short', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
  let bName = bRoot;
  let cleaned = false;
  const cleanUp = (): void => {
    if (cleaned) return;
    cleaned = true;
    const keep = process.argv.includes('--keep');
    if (worktree && !keep) {
      spawnSync('git', ['worktree', 'remove', '--force', bRoot], { cwd: ROOT });
    } else if (worktree) {
      console.log(`kept the worktree of B in ${bRoot} (git worktree remove --force ${bRoot})`);
    }
    rmSync(join(work, 'scifact.json'), { force: true });
    rmSync(join(work, 'docs.json'), { force: true });
    if (!worktree || !keep) rmSync(work, { recursive: true, force: true });
  };
  // Ctrl-C ends the running child and removes the temporary worktree.
  const interrupted = (): void => {
    running?.kill('SIGINT');
    cleanUp();
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    if (ref !== undefined && bDirFlag === undefined) {
      const problem = refProblem(ref);
      if (problem !== undefined) throw new Error(`bench:turn-ab: ${problem}`);
      const sha = git(['rev-parse', '--verify', `${ref}^{commit}`]);
      bRoot = join(work, 'tree');
      git(['worktree', 'add', '--detach', bRoot, sha]);
      worktree = true;
      symlinkSync(join(ROOT, 'node_modules'), join(bRoot, 'node_modules'), 'dir');
      bName = `${ref} (${sha.slice(0, 10)})`;
    }
    const files = await corpora(wanted, work);
    console.log(
      `A = this tree (${head}${dirty ? ' + uncommitted changes' : ''}), B = ${bName}; ` +
        `${rounds} rounds, fresh process per side, A then B; load ${loadavg()
          .map((v) => v.toFixed(2))
          .join(' ')}`,
    );
    for (const file of files) {
      const a: ChildResult[] = [];
      const b: ChildResult[] = [];
      const name = JSON.parse(readFileSync(file, 'utf8')).name as string;
      for (let round = 0; round < rounds; round++) {
        a.push(await runChild(ROOT, file));
        b.push(await runChild(bRoot, file));
        const last = (r: readonly ChildResult[]): string =>
          fmt(r.at(-1)!.stages['turn wall (bench)']?.p50 ?? NaN);
        console.log(
          `${name} round ${round + 1}: turn p50 A ${last(a)} ms, B ${last(b)} ms; ` +
            `load ${loadavg()[0]!.toFixed(2)}`,
        );
      }
      report(name, a, b);
    }
    console.log(
      `\nload at the end ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    process.off('SIGINT', interrupted);
    cleanUp();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === '--child') {
    await child(process.argv[3]!, process.argv[4]!, process.argv.includes('--profile'));
  } else await parent();
}
