/**
 * `npm run bench:vector` — the in-memory vector store at scale: exact scan vs hnswlib-wasm.
 *
 * Data: 100k × 384 clustered synthetic vectors (1,000 Gaussian clusters, L2-normalised) and
 * the SciFact chunk embeddings of the default hashing embedder (via `createChatEngine`).
 * Reports build rate, query p50/p99, recall@10 against the exact scan, memory, HNSW parameter
 * variants, and the machine's memory bandwidth (typed-array sum) as the exact scan's bound.
 *
 * Flags: `--n 100000` synthetic size, `--queries 200`, `--quick` (20k, for a smoke run),
 * `--data DIR` SciFact folder. Runs in about 6–8 minutes on a 2-core machine.
 */
import { cpus, totalmem } from 'node:os';
import { createHashingEmbedder } from '../src/adapters/hashing/embedder.js';
import {
  createHnswIndex,
  DEFAULT_HNSW_PARAMETERS,
  loadHnswLibrary,
  type HnswIndex,
  type HnswParameters,
} from '../src/adapters/memory/hnsw-index.js';
import {
  createMemoryVectorStore,
  type MemoryVectorStore,
} from '../src/adapters/memory/vector-store.js';
import { createChatEngine } from '../src/index.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

const argv = process.argv.slice(2);
const flag = (name: string, fallback: number): number => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] ? Number(argv[at + 1]) : fallback;
};
const QUICK = argv.includes('--quick');
const N = flag('n', QUICK ? 20_000 : 100_000);
const QUERIES = flag('queries', 200);
const DIMENSIONS = 384;
const CLUSTERS = 1_000;
const K = 10;
const NAMESPACE = 'bench';

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const ms = (value: number) => (value < 1 ? value.toFixed(3) : value.toFixed(2));
const rows: string[] = [];
function log(line: string): void {
  console.log(line);
  rows.push(line);
}

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

function gaussian(next: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(next() || 1e-12)) * Math.cos(2 * Math.PI * next());
}

function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  for (let d = 0; d < vector.length; d++) vector[d]! /= norm;
  return vector;
}

/**
 * Points around 1,000 random unit centres; noise per component σ = 0.7/√d, so a point's
 * cosine to its centre is ≈ 0.82 and neighbouring clusters overlap somewhat (not uniform noise).
 */
function clustered(count: number, seed: number, centres: Float32Array[]): Float32Array[] {
  const normal = gaussian(random(seed));
  const pick = random(seed + 1);
  const sigma = 0.7 / Math.sqrt(DIMENSIONS);
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(pick() * centres.length)]!;
    const point = new Float32Array(DIMENSIONS);
    for (let d = 0; d < DIMENSIONS; d++) point[d] = centre[d]! + sigma * normal();
    return normalise(point);
  });
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Memory bandwidth of one core: summing a 256 MB Float32Array (best of 5). */
function bandwidth(): number {
  const data = new Float32Array(64 * 2 ** 20);
  for (let index = 0; index < data.length; index++) data[index] = index & 7;
  let best = Infinity;
  let sink = 0;
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    let a = 0;
    let b = 0;
    let c = 0;
    let e = 0;
    for (let index = 0; index < data.length; index += 4) {
      a += data[index]!;
      b += data[index + 1]!;
      c += data[index + 2]!;
      e += data[index + 3]!;
    }
    sink += a + b + c + e;
    best = Math.min(best, performance.now() - started);
  }
  if (sink === 42) console.log('');
  return data.byteLength / (best / 1000);
}

async function timeQueries(
  store: MemoryVectorStore,
  queries: readonly Float32Array[],
  filter?: Record<string, unknown>,
): Promise<{ p50: number; p99: number; results: string[][] }> {
  const times: number[] = [];
  const results: string[][] = [];
  for (const query of queries.slice(0, 5)) await store.query(NAMESPACE, query, { k: K }); // warm-up
  for (const query of queries) {
    const started = performance.now();
    const matches = await store.query(NAMESPACE, query, {
      k: K,
      ...(filter ? { filter: filter as never } : {}),
    });
    times.push(performance.now() - started);
    results.push(matches.map((match) => match.id));
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), results };
}

function recall(found: readonly string[][], truth: readonly string[][]): number {
  let hits = 0;
  let total = 0;
  found.forEach((ids, index) => {
    const expected = new Set(truth[index]);
    total += expected.size;
    hits += ids.filter((id) => expected.has(id)).length;
  });
  return total === 0 ? 1 : hits / total;
}

async function fill(
  store: MemoryVectorStore,
  vectors: readonly Float32Array[],
  count: number,
): Promise<number> {
  const started = performance.now();
  for (let from = 0; from < count; from += 10_000) {
    await store.upsert(
      NAMESPACE,
      vectors.slice(from, Math.min(count, from + 10_000)).map((vector, offset) => ({
        id: `v${from + offset}`,
        vector,
        metadata: { bucket: (from + offset) % 100 },
      })),
    );
  }
  return performance.now() - started;
}

/** Builds a raw HNSW index; returns it with the build time. */
function buildRaw(
  library: Awaited<ReturnType<typeof loadHnswLibrary>>,
  vectors: readonly Float32Array[],
  count: number,
  parameters: HnswParameters,
): { index: HnswIndex; ms: number } {
  const started = performance.now();
  const index = createHnswIndex(library, DIMENSIONS, parameters, count);
  for (let label = 0; label < count; label++) index.add(label, vectors[label]!);
  return { index, ms: performance.now() - started };
}

function timeRaw(
  index: HnswIndex,
  queries: readonly Float32Array[],
  ef: number,
): { p50: number; p99: number; results: string[][] } {
  const times: number[] = [];
  const results: string[][] = [];
  for (const query of queries) {
    const started = performance.now();
    const hits = index.search(query, K, ef);
    times.push(performance.now() - started);
    results.push(hits.map((hit) => `v${hit.label}`));
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), results };
}

async function main(): Promise<void> {
  const started = performance.now();
  log(`## bench:vector — ${new Date().toISOString().slice(0, 10)}`);
  log('');
  log(
    `Machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, ${mb(totalmem())} RAM, Node ${process.version}.`,
  );
  log(`Command: \`node --import tsx bench/vector.ts${argv.length ? ` ${argv.join(' ')}` : ''}\``);
  const bytesPerSecond = bandwidth();
  log(
    `Memory bandwidth (one core, Float32Array sum of 256 MB, best of 5): ${(bytesPerSecond / 1e9).toFixed(1)} GB/s.`,
  );
  log('');

  // Data: centres, corpus and held-out queries from the same distribution.
  const centreNormal = gaussian(random(1));
  const centres = Array.from({ length: CLUSTERS }, () =>
    normalise(Float32Array.from({ length: DIMENSIONS }, centreNormal)),
  );
  const vectors = clustered(N, 2, centres);
  const queries = clustered(QUERIES, 3, centres);
  log(
    `### Synthetic: ${N.toLocaleString('en')} × ${DIMENSIONS}, ${CLUSTERS} Gaussian clusters, ${QUERIES} queries, k = ${K}`,
  );
  log('');

  // Exact at growing sizes: where does p50 cross 1 ms?
  log('| exact store | insert rate | p50 ms | p99 ms | bound ms (bytes / bandwidth) | ratio |');
  log('| --- | --- | --- | --- | --- | --- |');
  let truth: string[][] = [];
  const sizes = [5_000, 10_000, 20_000, 50_000, 100_000].filter((size) => size <= N);
  if (!sizes.includes(N)) sizes.push(N);
  let exactBytes = 0;
  for (const size of sizes) {
    const heapBefore = process.memoryUsage().arrayBuffers;
    const store = createMemoryVectorStore({ index: 'exact', initialCapacity: size });
    const fillMs = await fill(store, vectors, size);
    const timing = await timeQueries(store, queries);
    const bound = ((size * DIMENSIONS * 4) / bytesPerSecond) * 1000;
    log(
      `| ${size.toLocaleString('en')} | ${Math.round(size / (fillMs / 1000)).toLocaleString('en')}/s | ${ms(timing.p50)} | ${ms(timing.p99)} | ${ms(bound)} | ${(timing.p50 / bound).toFixed(2)}× |`,
    );
    if (size === N) {
      truth = timing.results;
      exactBytes = process.memoryUsage().arrayBuffers - heapBefore;
      const filtered = await timeQueries(store, queries, { bucket: 7 });
      log('');
      log(
        `Exact at ${N.toLocaleString('en')}: vectors take ${mb(exactBytes)} of ArrayBuffers; a 1 %-selective filter ({ bucket: 7 }) p50 ${ms(filtered.p50)} ms.`,
      );
    }
  }
  log('');

  const library = await loadHnswLibrary();
  const wasmMemory = () => (library as unknown as { HEAPU8: Uint8Array }).HEAPU8.buffer.byteLength;

  // Parameter variants on a 20k subset (ground truth from an exact store of the same subset).
  const subset = Math.min(20_000, N);
  const subsetStore = createMemoryVectorStore({ index: 'exact' });
  await fill(subsetStore, vectors, subset);
  const subsetTruth = (await timeQueries(subsetStore, queries)).results;
  log(
    `### HNSW parameter variants (raw hnswlib-wasm index, ${subset.toLocaleString('en')} vectors)`,
  );
  log('');
  log('| M | efConstruction | build rate | efSearch | p50 ms | p99 ms | recall@10 |');
  log('| --- | --- | --- | --- | --- | --- | --- |');
  const variants: HnswParameters[] = [
    { m: 8, efConstruction: 64 },
    { m: 16, efConstruction: 100 },
    { m: 32, efConstruction: 200 },
  ];
  for (const parameters of variants) {
    const { index, ms: buildMs } = buildRaw(library, vectors, subset, parameters);
    for (const ef of [16, 32, 64, 128]) {
      const timing = timeRaw(index, queries, ef);
      log(
        `| ${parameters.m} | ${parameters.efConstruction} | ${Math.round(subset / (buildMs / 1000))}/s | ${ef} | ${ms(timing.p50)} | ${ms(timing.p99)} | ${recall(timing.results, subsetTruth).toFixed(3)} |`,
      );
    }
    index.dispose();
  }
  log('');

  // The store with its graph (default parameters): build in slices, query with re-score.
  {
    const store = createMemoryVectorStore({ index: 'hnsw' });
    const wasmBefore = wasmMemory();
    await fill(store, vectors, subset);
    const buildStarted = performance.now();
    // Queries answered while the graph builds stay exact: measure one meanwhile.
    const during = await timeQueries(store, queries.slice(0, 20));
    await store.whenIndexed();
    const buildMs = performance.now() - buildStarted;
    const timing = await timeQueries(store, queries);
    const filtered = await timeQueries(store, queries, { bucket: { $lt: 50 } });
    const selective = await timeQueries(store, queries, { bucket: 7 });
    log(
      `Store in \`hnsw\` mode at ${subset.toLocaleString('en')} (defaults M ${DEFAULT_HNSW_PARAMETERS.m}, efConstruction ${DEFAULT_HNSW_PARAMETERS.efConstruction}, efSearch ${DEFAULT_HNSW_PARAMETERS.efSearch}; build in 8 ms slices): build ${Math.round(subset / (buildMs / 1000))}/s, p50 ${ms(timing.p50)} ms, p99 ${ms(timing.p99)} ms, recall@10 ${recall(timing.results, subsetTruth).toFixed(3)} (exact re-score included); queries during the build (exact) p50 ${ms(during.p50)} ms; 50 %-selective filter p50 ${ms(filtered.p50)} ms (recall ${recall(filtered.results, (await timeQueries(subsetStore, queries, { bucket: { $lt: 50 } })).results).toFixed(3)}); 1 %-selective filter (exact fallback) p50 ${ms(selective.p50)} ms; resident memory +${mb(wasmMemory() - wasmBefore)}.`,
    );
    log('');
  }

  // The full size with the default parameters, raw index, efSearch sweep.
  {
    const wasmBefore = wasmMemory();
    const { index, ms: buildMs } = buildRaw(library, vectors, N, DEFAULT_HNSW_PARAMETERS);
    log(
      `### HNSW at ${N.toLocaleString('en')} (M ${DEFAULT_HNSW_PARAMETERS.m}, efConstruction ${DEFAULT_HNSW_PARAMETERS.efConstruction})`,
    );
    log('');
    log(
      `Build: ${(buildMs / 1000).toFixed(1)} s (${Math.round(N / (buildMs / 1000))} vectors/s, one thread); resident memory +${mb(wasmMemory() - wasmBefore)} (the store keeps its own ${mb(exactBytes)} copy of the vectors).`,
    );
    log('');
    log('| efSearch | p50 ms | p99 ms | recall@10 |');
    log('| --- | --- | --- | --- |');
    for (const ef of [16, 32, 64, 128, 256]) {
      const timing = timeRaw(index, queries, ef);
      log(
        `| ${ef} | ${ms(timing.p50)} | ${ms(timing.p99)} | ${recall(timing.results, truth).toFixed(3)} |`,
      );
    }
    index.dispose();
    log('');
  }

  // SciFact chunks from the hashing embedder, through the real ingestion.
  const dir = sciFactDir(argv);
  if (hasSciFact(dir)) {
    const exact = createMemoryVectorStore({ index: 'exact' });
    const engine = createChatEngine({ vectorStore: exact });
    const corpus = loadCorpus(dir);
    const ingestStarted = performance.now();
    await engine.ingest(corpus.map((doc) => ({ id: doc.id, title: doc.title, text: doc.text })));
    const ingestMs = performance.now() - ingestStarted;
    const namespace = engine.config.namespace;
    const chunks = await exact.count(namespace);
    const embedder = createHashingEmbedder();
    const sciQueries = await embedder.embed(loadQueries(dir, 'test').map((query) => query.text));
    const saveStarted = performance.now();
    const bytes = exact.snapshot();
    const saveMs = performance.now() - saveStarted;
    const restoreStarted = performance.now();
    const graph = createMemoryVectorStore({ index: 'hnsw', snapshot: bytes });
    const restoreMs = performance.now() - restoreStarted;
    const buildStarted = performance.now();
    await graph.whenIndexed();
    const buildMs = performance.now() - buildStarted;
    const run = async (store: MemoryVectorStore) => {
      const times: number[] = [];
      const results: string[][] = [];
      for (const query of sciQueries) {
        const at = performance.now();
        const matches = await store.query(namespace, query, { k: K });
        times.push(performance.now() - at);
        results.push(matches.map((match) => match.id));
      }
      return { p50: percentile(times, 50), p99: percentile(times, 99), results };
    };
    const exactTiming = await run(exact);
    const graphTiming = await run(graph);
    const nonZero =
      sciQueries.reduce((sum, query) => sum + query.filter((value) => value !== 0).length, 0) /
      sciQueries.length;
    log(`### SciFact chunk embeddings (hashing embedder, ${DIMENSIONS} dims)`);
    log('');
    log(
      `${corpus.length} documents → ${chunks} chunks (ingest ${(ingestMs / 1000).toFixed(1)} s); ${sciQueries.length} test queries, ${nonZero.toFixed(0)} non-zero components per query on average.`,
    );
    log('');
    log('| store | build | p50 ms | p99 ms | recall@10 vs exact |');
    log('| --- | --- | --- | --- | --- |');
    log(`| exact | — | ${ms(exactTiming.p50)} | ${ms(exactTiming.p99)} | 1.000 |`);
    log(
      `| hnsw (defaults) | ${Math.round(chunks / (buildMs / 1000))}/s | ${ms(graphTiming.p50)} | ${ms(graphTiming.p99)} | ${recall(graphTiming.results, exactTiming.results).toFixed(3)} |`,
    );
    log('');
    log(
      `Snapshot of the ${chunks} chunks (vectors + metadata incl. chunk text): ${mb(bytes.length)}, snapshot() ${saveMs.toFixed(0)} ms, restore ${restoreMs.toFixed(0)} ms (graph rebuilt in the background).`,
    );
    log('');
  } else {
    log(`SciFact not found in ${dir}; skipped.`);
  }
  log(`Total benchmark time: ${((performance.now() - started) / 1000).toFixed(0)} s.`);
}

await main();
