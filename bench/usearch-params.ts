/**
 * `npm run bench:usearch` — the measurements behind `usearchAnn()`'s defaults
 * (docs/vector-index.md, "usearch"), on the vectors `bench:scale` ingests.
 *
 * Builds the scale bench's corpus (`scaleCorpus`, SciFact plus generated documents), ingests it
 * through `createChatEngine` into an exact in-memory vector store (`ingestCorpus`), embeds the
 * queries with the hashing embedder, then runs one part or all three:
 *
 * - `sweep`: usearch alone (its `Index`, no store), one graph per configuration
 *   `quantization:connectivity:expansionAdd:expansionSearch:batch`; build CPU time (all
 *   threads), the longest single `add` call, and for each number of hits asked for: recall@10
 *   against an exact scan after exact re-scoring of the hits, and search p50 (one thread).
 * - `query`: hnswlib-wasm (default) against usearch with expansionSearch 64 / 128 / 192, each in
 *   its own store loaded from the same snapshot; queries alternate between the stores, 3 rounds;
 *   store query p50 / p90 and recall@10 against the exact store.
 * - `snapshot`: save with the usearch graph against the vectors alone, and load until the graph
 *   is searchable against loading the vectors alone; CPU and wall time, 3 rounds each.
 *
 * Flags: `--data DIR` (SciFact), `--docs 30000`, `--queries 300`, `--seed 17`, `--batch 10000`
 * documents per `ingest` call, `--part sweep|query|snapshot` (default all), `--configs
 * i8:16:40:64:256,…` (sweep; default the table in docs/vector-index.md), `--fetch 10,32,128`
 * (sweep: hits asked for). Run with `--expose-gc` (the npm script does).
 */
import { availableParallelism, loadavg } from 'node:os';
import type { ScalarKind } from 'usearch';
import { createHashingEmbedder } from '../src/adapters/hashing/embedder.js';
import { decodeSnapshot } from '../src/adapters/memory/snapshot.js';
import {
  createMemoryVectorStore,
  type MemoryVectorStore,
} from '../src/adapters/memory/vector-store.js';
import { usearchAnn } from '../src/adapters/usearch/index.js';
import { createChatEngine } from '../src/index.js';
import { ingestCorpus, scaleCorpus } from './scale.js';

const argv = process.argv.slice(2);
const text = (name: string, fallback: string): string => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] !== undefined ? argv[at + 1]! : fallback;
};
const count = (name: string, fallback: number): number => {
  const value = Number(text(name, String(fallback)));
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer (got ${value})`);
  return value;
};
const PARTS = ['sweep', 'query', 'snapshot'] as const;
type Part = (typeof PARTS)[number];
const part = text('part', 'all');
if (part !== 'all' && !PARTS.includes(part as Part)) {
  throw new Error(`--part must be sweep, query or snapshot (got ${part})`);
}
const runs = (name: Part): boolean => part === 'all' || part === name;
const DOCS = count('docs', 30_000);
const QUERIES = count('queries', 300);
const SEED = count('seed', 17);
const BATCH = count('batch', 10_000);
const THREADS = availableParallelism();
const K = 10;

interface SweepConfig {
  readonly quantization: 'f32' | 'f16' | 'i8';
  readonly connectivity: number;
  readonly expansionAdd: number;
  readonly expansionSearch: number;
  readonly batch: number;
}
/** The rows of the first table in docs/vector-index.md ("Choosing the defaults"). */
const DEFAULT_CONFIGS =
  'f32:16:128:64:4096,f16:16:128:64:4096,f16:16:64:64:4096,f16:16:64:128:1024,' +
  'i8:16:64:64:4096,i8:16:64:128:1024,i8:16:64:128:256,i8:16:40:128:256,i8:16:40:64:4096,' +
  'i8:12:48:128:256,i8:32:40:128:1024';
const configs: SweepConfig[] = text('configs', DEFAULT_CONFIGS)
  .split(',')
  .map((entry) => {
    const [quantization, ...numbers] = entry.split(':');
    const [connectivity, expansionAdd, expansionSearch, batch] = numbers.map(Number) as number[];
    if (
      !['f32', 'f16', 'i8'].includes(quantization!) ||
      numbers.length !== 4 ||
      !numbers.every((value) => Number.isInteger(Number(value)) && Number(value) > 0)
    ) {
      throw new Error(
        `--configs entry "${entry}" must be quantization (f32, f16 or i8):connectivity:expansionAdd:expansionSearch:batch`,
      );
    }
    const q = quantization as SweepConfig['quantization'];
    return { quantization: q, connectivity, expansionAdd, expansionSearch, batch } as SweepConfig;
  });
const fetches = text('fetch', '10,32,128')
  .split(',')
  .map((entry) => {
    const value = Number(entry);
    if (!Number.isInteger(value) || value < K)
      throw new Error(`--fetch values must be integers ≥ ${K} (got ${entry})`);
    return value;
  });

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
const cpuSince = (start: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};
const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b);
const at = (values: readonly number[], q: number): number =>
  values[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const ms = (value: number): string => `${value.toFixed(3)} ms`;
/** `f()`'s CPU (all threads) and wall time in ms. */
async function timed(f: () => unknown): Promise<{ cpu: number; wall: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await f();
  return { cpu: cpuSince(cpu), wall: performance.now() - started };
}
const timeText = ({ cpu, wall }: { cpu: number; wall: number }): string =>
  `${cpu.toFixed(0)} ms CPU / ${wall.toFixed(0)} ms wall`;

/** The vectors of the snapshot's one namespace as rows (the snapshot stores them by dimension). */
function rowsOf(snapshot: Uint8Array): { rows: Float32Array; n: number; dims: number } {
  const { json, binary } = decodeSnapshot(snapshot, 'vectors');
  const spaces = (json as { namespaces?: { ids?: unknown; dimensions?: unknown }[] }).namespaces;
  const space = spaces?.[0];
  if (spaces?.length !== 1 || !Array.isArray(space?.ids) || typeof space.dimensions !== 'number') {
    throw new Error('the vector snapshot must hold exactly one namespace');
  }
  const n = space.ids.length;
  const dims = space.dimensions;
  const columns = new Float32Array(binary.buffer, binary.byteOffset, n * dims);
  const rows = new Float32Array(n * dims);
  for (let d = 0; d < dims; d++)
    for (let i = 0; i < n; i++) rows[i * dims + d] = columns[d * n + i]!;
  return { rows, n, dims };
}

async function sweep(plain: Uint8Array, queryVectors: readonly Float32Array[]): Promise<void> {
  const usearch = await import('usearch');
  const { rows, n, dims } = rowsOf(plain);
  const queries = queryVectors.map((vector) => {
    const norm = Math.hypot(...vector);
    return vector.map((value) => value / norm);
  });
  const dot = (query: Float32Array, row: number): number => {
    let sum = 0;
    for (let d = 0, offset = row * dims; d < dims; d++) sum += query[d]! * rows[offset + d]!;
    return sum;
  };
  const exact = queries.map((query) => {
    const scores = Array.from({ length: n }, (_, row) => dot(query, row));
    const best = [...scores.keys()].sort((a, b) => scores[b]! - scores[a]!);
    return new Set(best.slice(0, K));
  });
  console.log(`\n## sweep: usearch alone, ${n} vectors, ${dims} dims, ${THREADS} threads`);
  console.log('| configuration | build CPU | longest add | hits | recall@10 | search p50 | load |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const config of configs) {
    const index = new usearch.Index({
      dimensions: dims,
      metric: usearch.MetricKind.Cos,
      quantization: config.quantization as ScalarKind,
      connectivity: config.connectivity,
      expansion_add: config.expansionAdd,
      expansion_search: config.expansionSearch,
      multi: false,
    });
    const cpu = process.cpuUsage();
    let longest = 0;
    for (let from = 0; from < n; from += config.batch) {
      const to = Math.min(n, from + config.batch);
      const keys = BigUint64Array.from({ length: to - from }, (_, i) => BigInt(from + i));
      const started = performance.now();
      index.add(keys, rows.subarray(from * dims, to * dims), THREADS);
      longest = Math.max(longest, performance.now() - started);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const buildCpu = cpuSince(cpu);
    const name = `${config.quantization} ${config.connectivity} / ${config.expansionAdd} / ${config.expansionSearch}, batch ${config.batch}`;
    for (const fetch of fetches) {
      let hits = 0;
      const times: number[] = [];
      queries.forEach((query, q) => {
        const started = performance.now();
        const found = index.search(query, fetch, 1);
        times.push(performance.now() - started);
        const rescored = [...found.keys].map(Number).sort((a, b) => dot(query, b) - dot(query, a));
        hits += rescored.slice(0, K).filter((row) => exact[q]!.has(row)).length;
      });
      const recall = (hits / (queries.length * K)).toFixed(3);
      console.log(
        `| ${name} | ${(buildCpu / 1000).toFixed(1)} s | ${longest.toFixed(0)} ms | ${fetch} | ${recall} | ${ms(at(sorted(times), 0.5))} | ${load()} |`,
      );
    }
  }
}

async function queryAB(plain: Uint8Array, queryVectors: readonly Float32Array[]): Promise<void> {
  const exact = createMemoryVectorStore({ index: 'exact', snapshot: plain });
  const truth = await Promise.all(
    queryVectors.map(
      async (q) => new Set((await exact.query('default', q, { k: K })).map((m) => m.id)),
    ),
  );
  console.log('\n## query: stores loaded from the same snapshot, queries alternating, 3 rounds');
  console.log('| index | build CPU | store query p50 / p90 | recall@10 | load |');
  console.log('| --- | --- | --- | --- | --- |');
  const stores: { name: string; store: MemoryVectorStore; build: number; times: number[] }[] = [];
  const candidates: [string, () => MemoryVectorStore][] = [
    [
      'hnswlib-wasm, efSearch 64 (default)',
      () => createMemoryVectorStore({ index: 'hnsw', snapshot: plain }),
    ],
    ...[64, 128, 192].map((expansionSearch): [string, () => MemoryVectorStore] => [
      `usearch i8 16 / 40, expansionSearch ${expansionSearch}`,
      () =>
        createMemoryVectorStore({
          index: 'hnsw',
          ann: usearchAnn({ expansionSearch }),
          snapshot: plain,
        }),
    ]),
  ];
  for (const [name, create] of candidates) {
    let store: MemoryVectorStore | undefined;
    const { cpu } = await timed(async () => {
      store = create();
      await store.whenIndexed();
    });
    stores.push({ name, store: store!, build: cpu, times: [] });
  }
  const hits = new Map<string, number>();
  for (let round = 0; round < 3; round++) {
    for (const [q, vector] of queryVectors.entries()) {
      for (const entry of stores) {
        const started = performance.now();
        const found = await entry.store.query('default', vector, { k: K });
        entry.times.push(performance.now() - started);
        if (round > 0) continue;
        const right = found.filter((match) => truth[q]!.has(match.id)).length;
        hits.set(entry.name, (hits.get(entry.name) ?? 0) + right);
      }
    }
  }
  for (const { name, build, times } of stores) {
    const t = sorted(times);
    const recall = ((hits.get(name) ?? 0) / (queryVectors.length * K)).toFixed(3);
    console.log(
      `| ${name} | ${(build / 1000).toFixed(1)} s | ${ms(at(t, 0.5))} / ${ms(at(t, 0.9))} | ${recall} | ${load()} |`,
    );
  }
}

async function snapshotAB(plain: Uint8Array): Promise<void> {
  const ann = usearchAnn();
  const store = createMemoryVectorStore({ index: 'hnsw', ann, snapshot: plain });
  await store.whenIndexed();
  const exact = createMemoryVectorStore({ index: 'exact', snapshot: plain });
  const size = (bytes: Uint8Array): string => `${(bytes.byteLength / 2 ** 20).toFixed(1)} MB`;
  console.log(`\n## snapshot: ${ann.kind}`);
  let withGraph: Uint8Array = new Uint8Array();
  let vectorsOnly: Uint8Array = new Uint8Array();
  for (let round = 0; round < 3; round++) {
    const a = await timed(() => (withGraph = store.snapshot()));
    const b = await timed(() => (vectorsOnly = exact.snapshot()));
    console.log(
      `save with graph: ${timeText(a)} (${size(withGraph)}) | vectors only: ${timeText(b)} (${size(vectorsOnly)}) | load ${load()}`,
    );
  }
  for (let round = 0; round < 3; round++) {
    let state = '';
    const a = await timed(async () => {
      const copy = createMemoryVectorStore({ index: 'hnsw', ann, snapshot: withGraph });
      await copy.whenIndexed();
      state = copy.indexStats('default').state;
    });
    const b = await timed(() => createMemoryVectorStore({ index: 'exact', snapshot: vectorsOnly }));
    console.log(
      `load with graph until searchable: ${timeText(a)}, state ${state} | vectors only (exact store): ${timeText(b)} | load ${load()}`,
    );
  }
}

async function main(): Promise<void> {
  const corpus = scaleCorpus(DOCS, QUERIES, SEED);
  console.log(`# bench:usearch — ${corpus.docs.length.toLocaleString('en')} documents`);
  console.log(
    `corpus: ${corpus.sciFact ? `SciFact ${corpus.real} + ` : ''}${corpus.generated} generated (seed ${SEED}); ${corpus.queries.length} queries; Node ${process.version}`,
  );
  const vectors = createMemoryVectorStore({ index: 'exact' });
  const engine = createChatEngine({ vectorStore: vectors });
  const ingest = await timed(async () => {
    const chunks = await ingestCorpus(engine, corpus.docs, BATCH);
    console.log(`ingested ${chunks} chunks`);
  });
  console.log(`ingest: ${timeText(ingest)}; load ${load()}`);
  const plain = vectors.snapshot();
  const queryVectors = (await createHashingEmbedder().embed(corpus.queries)).map((vector) =>
    Float32Array.from(vector),
  );
  if (runs('sweep')) await sweep(plain, queryVectors);
  if (runs('query')) await queryAB(plain, queryVectors);
  if (runs('snapshot')) await snapshotAB(plain);
}

await main();
