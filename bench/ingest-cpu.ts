/**
 * CPU and wall time per SciFact ingest: one warm-up ingest, then `--runs N` (default 4)
 * ingests, each into a fresh engine with the defaults, in one process. Prints one line per
 * run and the medians. Profile with `node --cpu-prof --import tsx bench/ingest-cpu.ts`.
 *
 * `--first` reports the warm-up ingest too, as the first of the process, with the ratio of the
 * first to the third CPU time (the one-time cost a fresh process pays; issue 27), and the
 * garbage collection pauses of each ingest. `--reload` reads the corpus again before each
 * ingest, so no ingest gets strings an earlier one already hashed, flattened or matched (V8
 * keeps that with the string: the same `docs` array ingested again is faster for it).
 * `--profile DIR` writes a CPU profile of each ingest (`ingest-1.cpuprofile`, …) for
 * `bench/profile-summary.ts`.
 *
 * `--concurrency N` ingests with N threads (`engine.ingest(docs, { concurrency })`; default the
 * engine's: the machine's parallelism). CPU time is the process's, worker threads included.
 *
 * `--cold` gives each engine a tokenizer of its own (`createBpeTokenizer` of `cl100k_base`'s
 * table: no piece counts or merges remembered) and, before every ingest after the first, forgets the words the text
 * analysis remembers (`clearAnalysisCaches`: stems, accent folds, the lexicon): every ingest
 * sees the corpus's vocabulary for the first time, as the first does, with the JIT warm. With
 * `--hashing` the embedder's feature table is fresh per engine already. `first ÷ third` with
 * and without it splits a first ingest's extra cost into memos of the vocabulary and the rest.
 *
 * `--hashing D` gives each engine an embedder of its own, `createHashingEmbedder({ dimensions:
 * D })`, as `bench:peers` does (`--hashing 256`). Since round 14 the ingest workers build the
 * same embedder from its settings; before, ingestion ran on the calling thread.
 *
 * `--dist DIR` measures a built package (`DIR/index.js`, its ingest workers the built
 * `ingest-worker.js`) instead of the sources under tsx, whose workers compile the sources as
 * they start: a first ingest's worker start as a user pays it. Not with `--cold`.
 *
 * ```
 * node --import tsx bench/ingest-cpu.ts --data ../shared/data/scifact [--runs 4] [--concurrency 1]
 * node --import tsx bench/ingest-cpu.ts --data ../shared/data/scifact --first --runs 3 [--reload]
 * ```
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createBpeTokenizer } from '../src/index.js';
import cl100k from '../src/adapters/tokenizer/encodings/cl100k_base.js';
import { clearAnalysisCaches } from '../src/text/analyzer.js';
import { hasSciFact, loadCorpus, sciFactDir } from './scifact.js';
import { mainThreadCpuMs } from './thread-cpu.js';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  const dir = sciFactDir();
  if (!hasSciFact(dir)) throw new Error(`SciFact not found in ${dir} (pass --data DIR)`);
  const runs = Number(flag('--runs') ?? 4);
  const first = process.argv.includes('--first');
  const reload = process.argv.includes('--reload');
  const cold = process.argv.includes('--cold');
  const profileDir = flag('--profile');
  const concurrency =
    flag('--concurrency') === undefined ? undefined : Number(flag('--concurrency'));
  const hashing = flag('--hashing') === undefined ? undefined : Number(flag('--hashing'));
  const dist = flag('--dist');
  if (dist !== undefined && cold) throw new Error('--cold needs the sources, not --dist');
  const { createChatEngine, createHashingEmbedder } = (await import(
    dist === undefined ? '../src/index.js' : pathToFileURL(join(resolve(dist), 'index.js')).href
  )) as typeof import('../src/index.js');
  const load = () =>
    loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }));
  let docs = load();
  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  }).observe({ entryTypes: ['gc'] });
  const inspector = profileDir === undefined ? undefined : new Session();
  if (inspector) {
    mkdirSync(profileDir!, { recursive: true });
    inspector.connect();
    await inspector.post('Profiler.enable');
  }
  const cpu: number[] = [];
  const wall: number[] = [];
  const gc: number[] = [];
  const main: number[] = [];
  let chunks = 0;
  for (let run = first ? 0 : -1; run < runs; run++) {
    if (reload && run > (first ? 0 : -1)) docs = load();
    if (cold && run > (first ? 0 : -1)) clearAnalysisCaches();
    const engine = createChatEngine({
      ...(hashing === undefined
        ? {}
        : { embedder: createHashingEmbedder({ dimensions: hashing }) }),
      ...(cold ? { tokenizer: createBpeTokenizer({ data: cl100k }) } : {}),
    });
    if (inspector) await inspector.post('Profiler.start');
    const gcBefore = gcMs;
    const usage = process.cpuUsage();
    const mainBefore = mainThreadCpuMs();
    const started = performance.now();
    chunks = (await engine.ingest(docs, { concurrency })).chunks;
    const elapsed = performance.now() - started;
    const used = process.cpuUsage(usage);
    const mainUsed = mainThreadCpuMs() - mainBefore;
    // GC entries are delivered after the pause: let them arrive before reading the sum.
    await new Promise((done) => setTimeout(done, 0));
    if (inspector) {
      const { profile } = await inspector.post('Profiler.stop');
      writeFileSync(join(profileDir!, `ingest-${run + 1}.cpuprofile`), JSON.stringify(profile));
    }
    if (run < 0) continue;
    wall.push(elapsed);
    cpu.push((used.user + used.system) / 1000);
    main.push(mainUsed);
    gc.push(gcMs - gcBefore);
  }
  const loadAverage = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  const list = (values: readonly number[]) => values.map((v) => v.toFixed(0)).join(' / ');
  console.log(
    `concurrency ${concurrency ?? 'default'}${hashing === undefined ? '' : `; own ${hashing}-d hashing embedder`}; chunks ${chunks}; CPU per ingest ${list(cpu)} ms (median ${median(cpu).toFixed(0)}); ` +
      `main thread CPU ${list(main)} ms; wall ${list(wall)} ms (median ${median(wall).toFixed(0)})` +
      (first
        ? `; GC pauses ${list(gc)} ms; first ÷ third CPU ${(cpu[0]! / cpu[2]!).toFixed(2)}`
        : '') +
      (reload ? '; corpus read again per ingest' : '') +
      (cold ? '; cold memos per ingest' : '') +
      (dist === undefined ? '' : `; ${dist}`) +
      `; load ${loadAverage}`,
  );
}

await main();
