/**
 * `node --import tsx bench/vector-threshold.ts [--sizes 20000,50000,100000] [--queries 300]
 * [--rounds 3] [--data DIR]`: where the memory vector store's `hnswThreshold` should sit now that
 * the exact scan runs in the WebAssembly SIMD kernel. Embeds the `bench:scale` corpus (SciFact's
 * abstracts, then the documents generated from seed 17) with the default hashing embedder, and
 * for each size N holds the first N vectors in two stores: `index: 'exact'` and `index: 'hnsw'`
 * (the default hnswlib-wasm graph and parameters, built before timing; one store grown size by
 * size). The 300 SciFact test claims are then queried (k = 10, as `engine.search` asks the store
 * for 50 candidates: `--k`) on both stores alternately, `--rounds` rounds, CPU time per query
 * (`process.cpuUsage()`) and wall p50; recall@10 of the graph against the exact scan.
 * `--dense`: instead of the corpus, dense 384-dimension vectors around 1,000 random unit centres
 * (seed 17; what a neural embedder gives: every component non-zero, where a hashing vector has
 * about a third), and 300 queries drawn the same way.
 */
import { loadavg } from 'node:os';
import { createHashingEmbedder } from '../src/index.js';
import { createMemoryVectorStore } from '../src/adapters/memory/vector-store.js';
import { scaleCorpus } from './scale.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] ? argv[at + 1]! : fallback;
};
const sizes = option('sizes', '20000,50000,100000').split(',').map(Number);
const queryCount = Number(option('queries', '300'));
const rounds = Number(option('rounds', '3'));
const k = Number(option('k', '50'));
const RECALL_AT = 10;
const NAMESPACE = 'default';
const load = (): string => loadavg()[0]!.toFixed(1);

const largest = Math.max(...sizes);
const dense = argv.includes('--dense');

/** Dense unit vectors around `centres` (noise σ = 0.7/√d per component), from `seed`. */
function clustered(count: number, seed: number, centres: readonly Float32Array[]): Float32Array[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
  const normal = (): number => Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next());
  const dimensions = centres[0]?.length ?? 384;
  const sigma = 0.7 / Math.sqrt(dimensions);
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(next() * centres.length)];
    const point = new Float32Array(dimensions);
    let norm = 0;
    for (let d = 0; d < dimensions; d++) {
      point[d] = (centre?.[d] ?? 0) + sigma * normal();
      norm += point[d]! * point[d]!;
    }
    for (let d = 0; d < dimensions; d++) point[d]! /= Math.sqrt(norm);
    return point;
  });
}

const started = performance.now();
const vectors: Float32Array[] = [];
let queryVectors: Float32Array[];
if (dense) {
  // Centres: unit vectors of pure noise (σ large against an empty centre).
  const centres = clustered(1000, 17, [new Float32Array(384)]);
  vectors.push(...clustered(largest, 18, centres));
  queryVectors = clustered(queryCount, 19, centres);
} else {
  const { docs, queries } = scaleCorpus(largest, queryCount, 17);
  const embedder = createHashingEmbedder();
  for (let from = 0; from < docs.length; from += 2000) {
    const batch = docs.slice(from, from + 2000);
    vectors.push(...(await embedder.embed(batch.map((doc) => `${doc.title ?? ''}\n${doc.text}`))));
  }
  queryVectors = await embedder.embed(queries);
}
console.log(
  `${dense ? 'generated' : 'embedded'} ${vectors.length} vectors and ${queryVectors.length} queries in ${((performance.now() - started) / 1000).toFixed(1)} s (${vectors[0]!.length} dimensions${dense ? ', dense' : ''}); load ${load()}`,
);

const exact = createMemoryVectorStore({ index: 'exact' });
const graph = createMemoryVectorStore({ index: 'hnsw' });
const records = (from: number, to: number) =>
  vectors.slice(from, to).map((vector, index) => ({
    id: `d${from + index}`,
    vector,
    metadata: {},
  }));

type Store = typeof exact;
async function timed(store: Store): Promise<{ cpu: number; p50: number; ids: string[][] }> {
  const walls: number[] = [];
  const ids: string[][] = [];
  const cpu = process.cpuUsage();
  for (const vector of queryVectors) {
    const at = performance.now();
    const matches = await store.query(NAMESPACE, vector, { k });
    walls.push(performance.now() - at);
    ids.push(matches.slice(0, RECALL_AT).map((match) => match.id));
  }
  const used = process.cpuUsage(cpu);
  walls.sort((a, b) => a - b);
  return {
    cpu: (used.user + used.system) / 1000 / queryVectors.length,
    p50: walls[Math.floor(walls.length / 2)]!,
    ids,
  };
}

let held = 0;
console.log(
  '| vectors | graph build (s, this step) | exact CPU ms/query (rounds) | HNSW CPU ms/query (rounds) | exact wall p50 | HNSW wall p50 | exact ÷ HNSW CPU (median) | recall@10 HNSW vs exact | load |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const size of [...sizes].sort((a, b) => a - b)) {
  const batch = records(held, size);
  await exact.upsert(NAMESPACE, batch);
  const buildStarted = performance.now();
  for (let from = 0; from < batch.length; from += 10_000) {
    await graph.upsert(NAMESPACE, batch.slice(from, from + 10_000));
  }
  await graph.whenIndexed();
  const buildSeconds = (performance.now() - buildStarted) / 1000;
  held = size;
  const stats = graph.indexStats(NAMESPACE);
  if (stats.state !== 'hnsw' || stats.indexed !== size) {
    throw new Error(`the graph is not ready: ${JSON.stringify(stats)}`);
  }
  const exactCpu: number[] = [];
  const graphCpu: number[] = [];
  const exactWall: number[] = [];
  const graphWall: number[] = [];
  let hits = 0;
  for (let round = 0; round < rounds; round++) {
    const a = await timed(exact);
    const b = await timed(graph);
    exactCpu.push(a.cpu);
    graphCpu.push(b.cpu);
    exactWall.push(a.p50);
    graphWall.push(b.p50);
    if (round === 0) {
      a.ids.forEach((wanted, index) => {
        const found = new Set(b.ids[index]);
        hits += wanted.filter((id) => found.has(id)).length;
      });
    }
  }
  const median = (values: number[]): number =>
    [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  const list = (values: number[]): string => values.map((value) => value.toFixed(3)).join(', ');
  const ratios = exactCpu.map((value, index) => value / graphCpu[index]!);
  console.log(
    `| ${size} | ${buildSeconds.toFixed(1)} | ${list(exactCpu)} | ${list(graphCpu)} | ${median(exactWall).toFixed(3)} | ${median(graphWall).toFixed(3)} | ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) | ${(hits / (queryVectors.length * RECALL_AT)).toFixed(4)} | ${load()} |`,
  );
}
