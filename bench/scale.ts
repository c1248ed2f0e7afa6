/**
 * `npm run bench:scale` — 100,000 documents on one machine (issue 17, item 4).
 *
 * Corpus: SciFact (../shared/data/scifact, or `--data DIR`) plus documents generated
 * deterministically from a seed: words drawn from SciFact's own word frequencies (a fixed
 * generated vocabulary when the data is absent), sentence and document lengths drawn so that
 * about one generated document in ten needs two chunks. Everything goes through
 * `createChatEngine` with its defaults; the in-memory stores are created explicitly (with
 * default settings) only to keep a handle on them for `whenIndexed()` and snapshots.
 *
 * Reports: ingest time, time until the vector index is ready after ingest, turn p50/p99
 * (SciFact test queries, `mode: 'query'`), recall@10 of the indexed vector search against an
 * exact scan of the same vectors, RSS and heap per chunk, and snapshot save/load times.
 *
 * Flags: `--docs 100000` total documents, `--queries 300`, `--seed 17`, `--quick` (10k docs),
 * `--data DIR`, `--batch 10000` documents per `ingest` call, `--ingest-only` (stop after the
 * ingest line), `--profile-turns FILE` (a CPU profile of the measured turns, for DevTools),
 * `--ann usearch` (the vector store's ANN index: `usearchAnn()` from `cortexis/usearch` instead
 * of the default hnswlib-wasm; its snapshot also holds the graph, so the bench times a restored
 * store until its index is ready), `--follow-writes on|off` (whether upserts wait for the graph
 * to take in their vectors: `AnnIndexFactory.followWrites`; default: the index's own choice,
 * on for usearch, off for hnswlib-wasm). Run with `--expose-gc` (the npm script does) so memory is
 * measured after a collection.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { pathToFileURL } from 'node:url';
import { createHashingEmbedder } from '../src/adapters/hashing/embedder.js';
import { createMemoryGraphStore } from '../src/adapters/memory/graph-store.js';
import { createMemoryKeywordIndex } from '../src/adapters/memory/keyword-index.js';
import {
  createMemoryVectorStore,
  hnswlibAnn,
  type MemoryVectorStoreSettings,
} from '../src/adapters/memory/vector-store.js';
import { usearchAnn } from '../src/adapters/usearch/index.js';
import { createChatEngine, type ChatEngine, type IngestDocument } from '../src/index.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';
import { mainThreadCpuMs } from './thread-cpu.js';

const argv = process.argv.slice(2);
/** The value of `--name` on the command line, or `fallback` (also used by the `turn-*` benches). */
export const textFlag = (name: string, fallback: string): string => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] ? argv[at + 1]! : fallback;
};
const flag = (name: string, fallback: number): number => Number(textFlag(name, String(fallback)));
const QUICK = argv.includes('--quick');
const DOCS = flag('docs', QUICK ? 10_000 : 100_000);
const QUERIES = flag('queries', 300);
const SEED = flag('seed', 17);
const BATCH = flag('batch', 10_000);
const ANN = argv.includes('--ann') ? argv[argv.indexOf('--ann') + 1] : 'hnswlib';
if (ANN !== 'hnswlib' && ANN !== 'usearch') throw new Error(`--ann must be hnswlib or usearch`);
const FOLLOW = argv.includes('--follow-writes') ? argv[argv.indexOf('--follow-writes') + 1] : '';
if (!['', 'on', 'off'].includes(FOLLOW!)) throw new Error(`--follow-writes must be on or off`);
/** The vector store's index settings: the default hnswlib-wasm, or usearch; `--follow-writes` overrides the index's own choice. */
const annSettings = (): MemoryVectorStoreSettings => {
  const ann = ANN === 'usearch' ? usearchAnn() : hnswlibAnn();
  return FOLLOW === ''
    ? ANN === 'usearch'
      ? { ann }
      : {}
    : { ann: { ...ann, followWrites: FOLLOW === 'on' } };
};
const K = 10;

const gc = (globalThis as { gc?: () => void }).gc;
const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const seconds = (value: number): string => `${(value / 1000).toFixed(2)} s`;
const msText = (value: number): string => `${value.toFixed(2)} ms`;

/** mulberry32 */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Word frequencies of the real corpus (or a Zipfian generated vocabulary without it). */
function vocabulary(docs: readonly IngestDocument[]): {
  words: string[];
  cumulative: Float64Array;
} {
  const counts = new Map<string, number>();
  for (const doc of docs) {
    for (const word of `${doc.title ?? ''} ${doc.text}`.toLowerCase().match(/[a-z][a-z0-9-]*/g) ??
      []) {
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  if (counts.size === 0) {
    for (let rank = 0; rank < 20_000; rank++) counts.set(`w${rank.toString(36)}`, 1e6 / (rank + 1));
  }
  const entries = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const cumulative = new Float64Array(entries.length);
  let total = 0;
  entries.forEach(([, count], index) => (cumulative[index] = total += count));
  for (let index = 0; index < cumulative.length; index++) cumulative[index]! /= total;
  return { words: entries.map(([word]) => word), cumulative };
}

/**
 * `count` documents generated with a seeded generator, each about one topic: a topic is a
 * real document (or, without the data, 50 words of the vocabulary), and each word is drawn from
 * the topic's words with probability 0.6, else from the whole vocabulary. Word salad drawn from
 * the vocabulary alone would make every generated document look alike (mean cosine 0.36 with
 * the hashing embedder), a structureless corpus no real collection resembles.
 */
function generate(
  count: number,
  seed: number,
  vocab: { words: string[]; cumulative: Float64Array },
  topicDocs: readonly IngestDocument[],
): IngestDocument[] {
  const next = random(seed);
  const { words, cumulative } = vocab;
  const background = (): string => {
    const r = next();
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid]! < r) low = mid + 1;
      else high = mid;
    }
    return words[low]!;
  };
  const topics: string[][] =
    topicDocs.length > 0
      ? topicDocs.map(
          (doc) => `${doc.title ?? ''} ${doc.text}`.toLowerCase().match(/[a-z][a-z0-9-]*/g) ?? [],
        )
      : Array.from({ length: 2000 }, () => Array.from({ length: 50 }, background));
  const docs: IngestDocument[] = [];
  for (let index = 0; index < count; index++) {
    const topic = topics[Math.floor(next() * topics.length)]!;
    const word = (): string =>
      topic.length > 0 && next() < 0.6 ? topic[Math.floor(next() * topic.length)]! : background();
    const sentence = (): string => {
      const length = 8 + Math.floor(next() * 22);
      const parts: string[] = [];
      for (let w = 0; w < length; w++) parts.push(word());
      const text = parts.join(' ');
      return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
    };
    // Mostly one chunk (≈ 100–300 words); one in ten long enough for two.
    const sentences = next() < 0.1 ? 22 + Math.floor(next() * 10) : 5 + Math.floor(next() * 10);
    const body: string[] = [];
    for (let s = 0; s < sentences; s++) body.push(sentence());
    docs.push({ id: `gen-${seed}-${index}`, title: sentence().slice(0, -1), text: body.join(' ') });
  }
  return docs;
}

function memory(): { rss: number; heap: number; external: number } {
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return { rss: usage.rss, heap: usage.heapUsed, external: usage.external + usage.arrayBuffers };
}

/** The bench's corpus and queries (also used by bench/usearch-params.ts). */
export interface ScaleCorpus {
  /** SciFact's documents followed by the generated ones, `count` in all. */
  readonly docs: IngestDocument[];
  /** SciFact's test queries (generated titles without the data), `queryCount` at most. */
  readonly queries: string[];
  /** Whether the SciFact files were found. */
  readonly sciFact: boolean;
  /** How many SciFact documents were loaded. */
  readonly real: number;
  /** How many documents were generated (`seed`). */
  readonly generated: number;
}

/** `count` documents: SciFact's (`--data DIR`), then generated ones (`seed`); and the queries. */
export function scaleCorpus(count: number, queryCount: number, seed: number): ScaleCorpus {
  const dir = sciFactDir();
  const sciFact = hasSciFact(dir);
  const real: IngestDocument[] = sciFact
    ? loadCorpus(dir).map((doc) => ({ id: doc.id, title: doc.title, text: doc.text }))
    : [];
  const questions = sciFact
    ? loadQueries(dir).map((query) => query.text)
    : generate(queryCount, seed + 1, vocabulary([]), []).map((doc) => doc.title!);
  const vocab = vocabulary(real);
  const seeded = generate(Math.max(0, count - real.length), seed, vocab, real);
  return {
    docs: [...real, ...seeded].slice(0, count),
    queries: questions.slice(0, queryCount),
    sciFact,
    real: real.length,
    generated: seeded.length,
  };
}

/** Ingests `docs` through `engine`, `batch` documents per call; returns the chunk count. */
export async function ingestCorpus(
  engine: ChatEngine,
  docs: readonly IngestDocument[],
  batch: number,
): Promise<number> {
  let chunks = 0;
  for (let from = 0; from < docs.length; from += batch) {
    chunks += (await engine.ingest(docs.slice(from, from + batch))).chunks;
  }
  return chunks;
}

async function main(): Promise<void> {
  const { docs, queries, sciFact, real, generated } = scaleCorpus(DOCS, QUERIES, SEED);
  console.log(`# bench:scale — ${docs.length.toLocaleString('en')} documents`);
  console.log(
    `corpus: ${sciFact ? `SciFact ${real} + ` : ''}${generated} generated (seed ${SEED}); ${queries.length} queries`,
  );
  console.log(
    `machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}${gc ? '' : ' (no --expose-gc: memory figures include garbage)'}`,
  );
  console.log(`vector index: ${ANN === 'usearch' ? usearchAnn().kind : 'hnswlib-wasm (default)'}`);
  const load = (): string =>
    loadavg()
      .map((value) => value.toFixed(1))
      .join(' ');

  // Warm the tokenizer and the hnswlib module so the timings measure ingestion and indexing.
  await createChatEngine().ingest([{ id: 'warm', text: 'warm up the tokenizer' }]);
  const warm = createMemoryVectorStore({ index: 'hnsw', ...annSettings() });
  await warm.upsert('warm', [{ id: 'a', vector: [1, 0], metadata: {} }]);
  await warm.whenIndexed();

  const before = memory();
  const vectors = createMemoryVectorStore(annSettings());
  const keywords = createMemoryKeywordIndex({});
  const graph = createMemoryGraphStore();
  const engine = createChatEngine({
    vectorStore: vectors,
    keywordIndex: keywords,
    graphStore: graph,
  });

  const ingestStarted = performance.now();
  const usage = process.cpuUsage();
  const mainBefore = mainThreadCpuMs();
  const chunks = await ingestCorpus(engine, docs, BATCH);
  const ingestMs = performance.now() - ingestStarted;
  const mainMs = mainThreadCpuMs() - mainBefore;
  const used = process.cpuUsage(usage);
  const cpuMs = (used.user + used.system) / 1000;
  const namespaces = [...new Set(['default'])];
  const stats = (): string =>
    namespaces
      .map((name) => {
        const s = vectors.indexStats(name);
        return `${s.state} ${s.indexed}/${s.count} pending ${s.pending}`;
      })
      .join(', ');
  console.log(
    `ingested ${chunks} chunks in ${seconds(ingestMs)} (CPU ${seconds(cpuMs)}, main thread ${seconds(mainMs)}); vector index: ${stats()}; load ${load()}`,
  );
  if (argv.includes('--ingest-only')) return;

  // Turns while the index may still be building.
  const indexCpu = process.cpuUsage();
  const earlyTimes: number[] = [];
  for (const query of queries.slice(0, 20)) {
    const started = performance.now();
    await engine.chat({ message: query, mode: 'query' });
    earlyTimes.push(performance.now() - started);
  }
  const indexStarted = performance.now();
  await vectors.whenIndexed();
  const indexMs = performance.now() - indexStarted + earlyTimes.reduce((a, b) => a + b, 0);
  const { user, system } = process.cpuUsage(indexCpu);
  const cpuText = `${((user + system) / 1e6).toFixed(2)} s CPU, all threads`;
  console.log(
    `vector index ready ${seconds(indexMs)} after ingest (${cpuText}); ${stats()}; load ${load()}`,
  );

  for (const query of queries.slice(0, 50)) await engine.chat({ message: query, mode: 'query' });
  const profileAt = argv.indexOf('--profile-turns');
  const session = profileAt >= 0 ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const turnTimes: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await engine.chat({ message: query, mode: 'query' });
    turnTimes.push(performance.now() - started);
  }
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(argv[profileAt + 1] ?? 'turns.cpuprofile', JSON.stringify(profile));
    session.disconnect();
  }
  turnTimes.sort((a, b) => a - b);

  const after = memory();
  const perChunk = (bytes: number): string => `${((bytes / chunks) * 1).toFixed(0)} B`;

  // Snapshots: save, load into a fresh store (graph rebuilt in the background), load + index.
  const saveTimes: number[] = [];
  let bytes: Uint8Array = new Uint8Array();
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    bytes = vectors.snapshot();
    saveTimes.push(performance.now() - started);
  }
  const loadTimes: number[] = [];
  let restored = createMemoryVectorStore({ index: 'exact' });
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    restored = createMemoryVectorStore({ index: 'exact', snapshot: bytes });
    loadTimes.push(performance.now() - started);
  }
  // A store restored with the same index: until its graph is ready (loaded from the snapshot
  // when the index saves itself, else rebuilt from the vectors: skipped, see index ready above).
  let readyAfterLoad = 'rebuilt from the vectors (see index ready after ingest)';
  if (ANN === 'usearch') {
    const started = performance.now();
    const copy = createMemoryVectorStore({ ...annSettings(), snapshot: bytes });
    await copy.whenIndexed();
    const stateAfter = copy.indexStats('default').state;
    readyAfterLoad = `${seconds(performance.now() - started)} (${stateAfter})`;
  }
  const others: string[] = [];
  for (const [name, store] of [
    ['keyword index', keywords],
    ['graph', graph],
  ] as const) {
    const started = performance.now();
    const saved = store.snapshot();
    const saveMs = performance.now() - started;
    const loadStarted = performance.now();
    store.restore(saved);
    others.push(
      `| ${name} snapshot | save ${msText(saveMs)}, load ${msText(performance.now() - loadStarted)}, ${mb(saved.byteLength)} |`,
    );
  }

  // Recall@10 of the indexed search against an exact scan of the same vectors.
  const embedder = createHashingEmbedder();
  const queryVectors = await embedder.embed(queries);
  let hits = 0;
  let wanted = 0;
  const exactTimes: number[] = [];
  const annTimes: number[] = [];
  for (const vector of queryVectors) {
    let started = performance.now();
    const exact = await restored.query('default', vector, { k: K });
    exactTimes.push(performance.now() - started);
    started = performance.now();
    const approximate = await vectors.query('default', vector, { k: K });
    annTimes.push(performance.now() - started);
    const found = new Set(approximate.map((match) => match.id));
    hits += exact.filter((match) => found.has(match.id)).length;
    wanted += exact.length;
  }
  exactTimes.sort((a, b) => a - b);
  annTimes.sort((a, b) => a - b);

  const median = (values: number[]): number =>
    quantile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  console.log('');
  console.log(
    `| ${docs.length.toLocaleString('en')} documents, ${chunks.toLocaleString('en')} chunks | measured |`,
  );
  console.log('| --- | --- |');
  console.log(
    `| ingest (\`engine.ingest\`, ${BATCH} docs per call) | ${seconds(ingestMs)} (${Math.round((chunks / ingestMs) * 1000)} chunks/s) |`,
  );
  console.log(`| vector index ready after ingest | ${seconds(indexMs)} (${cpuText}) |`);
  console.log(
    `| turn p50 / p99 (\`mode: 'query'\`) | ${msText(quantile(turnTimes, 0.5))} / ${msText(quantile(turnTimes, 0.99))} |`,
  );
  console.log(
    `| turn p50 while the index was building (first 20) | ${msText(median(earlyTimes))} |`,
  );
  console.log(
    `| vector query p50: index / exact scan | ${msText(quantile(annTimes, 0.5))} / ${msText(quantile(exactTimes, 0.5))} |`,
  );
  console.log(`| recall@10 of the index vs exact | ${(hits / Math.max(1, wanted)).toFixed(4)} |`);
  console.log(
    `| RSS / heap / external (growth) | ${mb(after.rss - before.rss)} / ${mb(after.heap - before.heap)} / ${mb(after.external - before.external)} |`,
  );
  console.log(
    `| per chunk: RSS / heap / external | ${perChunk(after.rss - before.rss)} / ${perChunk(after.heap - before.heap)} / ${perChunk(after.external - before.external)} |`,
  );
  console.log(
    `| vector snapshot save / load (median of 3) | ${msText(median(saveTimes))} / ${msText(median(loadTimes))}, ${mb(bytes.byteLength)} |`,
  );
  console.log(`| vector snapshot load until the index is ready | ${readyAfterLoad} |`);
  for (const line of others) console.log(line);
  console.log(`| load average at the end | ${load()} |`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
