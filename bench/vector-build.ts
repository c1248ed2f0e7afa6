/**
 * What the default vector index (hnswlib-wasm) costs to build at `bench/scale.ts`'s size, by
 * build parameters: `node --expose-gc --import tsx bench/vector-build.ts [--docs 100000]
 * [--params 16:100,12:64,8:40] [--ef 64] [--queries 300] [--direct]`.
 *
 * Ingests `bench/scale.ts`'s corpus (seed 17) through the engine's defaults with an exact
 * vector store, keeping a copy of every vector the engine writes (the chunks' hashing-embedder
 * vectors, normalised as the store does). `--direct` skips the engine (about 4× faster on a
 * loaded machine): one vector per document, the default hashing embedder's of its title and
 * text, in an exact store. Then, for each `M:efConstruction` pair, builds an
 * hnswlib-wasm graph of all of them in one go, one `addPoint` at a time as the store's
 * background build does, and reports the CPU per inserted vector (overall and over the last
 * 10 %), the whole build's CPU, and, for the SciFact test queries' vectors, the search CPU
 * per query at efSearch `--ef` and recall@10 against the exact store's top 10.
 */
import { loadavg } from 'node:os';
import { createHashingEmbedder } from '../src/adapters/hashing/embedder.js';
import { createHnswIndex, loadHnswLibrary } from '../src/adapters/memory/hnsw-index.js';
import { createMemoryVectorStore } from '../src/adapters/memory/vector-store.js';
import { createChatEngine } from '../src/index.js';
import type { VectorStore } from '../src/ports/vector-store.js';
import { ingestCorpus, scaleCorpus, textFlag } from './scale.js';

const DOCS = Number(textFlag('docs', '100000'));
const QUERIES = Number(textFlag('queries', '300'));
const EF = Number(textFlag('ef', '64'));
const PARAMS = textFlag('params', '16:100,12:64,8:40')
  .split(',')
  .map((pair) => {
    const [m, efConstruction] = pair.split(':').map(Number);
    return { m: m!, efConstruction: efConstruction! };
  });
const K = 10;
const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

function unit(vector: Float32Array | readonly number[]): Float32Array {
  const copy = Float32Array.from(vector);
  let sum = 0;
  for (const value of copy) sum += value * value;
  const norm = Math.sqrt(sum) || 1;
  for (let d = 0; d < copy.length; d++) copy[d]! /= norm;
  return copy;
}

const { docs, queries } = scaleCorpus(DOCS, QUERIES, 17);
const exact = createMemoryVectorStore({ index: 'exact' });
const labels = new Map<string, number>();
const rows: Float32Array[] = [];
const vectorStore: VectorStore = {
  ...exact,
  upsert(namespace, records, options) {
    for (const record of records) {
      const label = labels.get(record.id);
      if (label === undefined) {
        labels.set(record.id, rows.length);
        rows.push(unit(record.vector));
      } else rows[label] = unit(record.vector);
    }
    return exact.upsert(namespace, records, options);
  },
  query: (...args) => exact.query(...args),
  delete: (...args) => exact.delete(...args),
  count: (...args) => exact.count(...args),
};
const started = performance.now();
let chunks = docs.length;
if (process.argv.includes('--direct')) {
  const embedder = createHashingEmbedder();
  for (let from = 0; from < docs.length; from += 1000) {
    const batch = docs.slice(from, from + 1000);
    const embedded = await embedder.embed(
      batch.map((doc) => (doc.title ? `${doc.title}\n${doc.text}` : doc.text)),
    );
    await vectorStore.upsert(
      'default',
      batch.map((doc, at) => ({ id: doc.id, vector: embedded[at]!, metadata: {} })),
    );
  }
} else {
  chunks = await ingestCorpus(createChatEngine({ vectorStore }), docs, 10_000);
}
const live = await exact.count('default');
console.log(
  `${docs.length} documents, ${chunks} chunks (${live} vectors live, ${rows.length} written), ingested in ${((performance.now() - started) / 1000).toFixed(1)} s; load ${load()}`,
);
if (live !== rows.length) throw new Error('vectors were deleted: labels would not match');

const queryVectors = (await createHashingEmbedder().embed(queries)).map(unit);
const truth: Set<number>[] = [];
for (const vector of queryVectors) {
  const matches = await exact.query('default', vector, { k: K });
  truth.push(new Set(matches.map((match) => labels.get(match.id)!)));
}

const library = await loadHnswLibrary();
const dimensions = rows[0]!.length;
console.log(
  `| M | efConstruction | build CPU | µs per insert (all / last 10 %) | search CPU per query (efSearch ${EF}) | recall@10 vs exact | load |`,
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const { m, efConstruction } of PARAMS) {
  const index = createHnswIndex(
    library,
    dimensions,
    { m, efConstruction, efSearch: EF },
    rows.length,
  );
  const tail = Math.floor(rows.length * 0.9);
  const buildStarted = process.cpuUsage();
  let tailStarted = buildStarted;
  for (let label = 0; label < rows.length; label++) {
    if (label === tail) tailStarted = process.cpuUsage();
    index.add(label, rows[label]!);
  }
  const buildMs = cpuMs(buildStarted);
  const tailMs = cpuMs(tailStarted);
  let hits = 0;
  const searchStarted = process.cpuUsage();
  for (const [at, vector] of queryVectors.entries()) {
    for (const hit of index.search(vector, K)) if (truth[at]!.has(hit.label)) hits++;
  }
  const searchMs = cpuMs(searchStarted) / queryVectors.length;
  index.dispose();
  console.log(
    `| ${m} | ${efConstruction} | ${(buildMs / 1000).toFixed(1)} s | ${((buildMs * 1000) / rows.length).toFixed(0)} / ${((tailMs * 1000) / (rows.length - tail)).toFixed(0)} | ${searchMs.toFixed(3)} ms | ${(hits / (truth.length * K)).toFixed(3)} | ${load()} |`,
  );
}
