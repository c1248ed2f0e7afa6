/**
 * A turn at 100,000 documents with this tree's memory keyword index (A) and with the one of
 * another tree (B), alternately in one process over the same stores:
 * `node --expose-gc --import tsx bench/turn-scale-ab.ts --before DIR [--docs 100000]
 * [--rounds 5] [--queries 100]`.
 *
 * Ingests `bench/scale.ts`'s corpus once (usearch index, the engine's defaults otherwise)
 * through this tree's engine; the keyword index is this tree's, and its snapshot is restored
 * into `--before DIR`'s `createMemoryKeywordIndex` (a checkout of the commit to compare with,
 * `node_modules` linked). The engine's keyword index is a switch between the two. After a
 * warm-up of 50 turns on each, `--rounds` rounds of the first `--queries` SciFact test
 * claims as `mode: 'query'` turns (the search-results cache off, so every turn searches), A then B: the turn's CPU time (`process.cpuUsage`) and
 * wall time per turn, median per round, and the keyword searches' time per turn (mean; the
 * memory index searches synchronously, so the time until its promise returns), with the load
 * average. Only the keyword index
 * differs between A and B; everything else is this tree's.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMemoryGraphStore } from '../src/adapters/memory/graph-store.js';
import {
  createMemoryKeywordIndex,
  type MemoryKeywordIndex,
} from '../src/adapters/memory/keyword-index.js';
import { createMemoryVectorStore } from '../src/adapters/memory/vector-store.js';
import { usearchAnn } from '../src/adapters/usearch/index.js';
import { createChatEngine } from '../src/index.js';
import type { KeywordIndex } from '../src/ports/keyword-index.js';
import { ingestCorpus, scaleCorpus, textFlag } from './scale.js';

const flag = textFlag;
const beforeDir = resolve(flag('before', '/tmp/base-scale'));
const DOCS = Number(flag('docs', '100000'));
const ROUNDS = Number(flag('rounds', '5'));
const QUERIES = Number(flag('queries', '100'));
const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

const { createMemoryKeywordIndex: createBefore } = (await import(
  pathToFileURL(join(beforeDir, 'src/adapters/memory/keyword-index.ts')).href
)) as { createMemoryKeywordIndex: typeof createMemoryKeywordIndex };

const after = createMemoryKeywordIndex({});
const before: MemoryKeywordIndex = createBefore({});
let active: KeywordIndex = after;
let searchMs = 0;
let searches = 0;
const keywordIndex: KeywordIndex = {
  name: 'memory-bm25',
  specificationVersion: 'v1',
  add: (...args) => active.add(...args),
  search: (...args) => {
    // The memory index searches synchronously: the time until it returns its promise.
    const at = performance.now();
    const found = active.search(...args);
    searchMs += performance.now() - at;
    searches++;
    return found;
  },
  delete: (...args) => active.delete(...args),
  count: (...args) => active.count(...args),
};

const { docs, queries } = scaleCorpus(DOCS, 50 + QUERIES, 17);
const vectors = createMemoryVectorStore({ ann: usearchAnn() });
const engine = createChatEngine({
  vectorStore: vectors,
  keywordIndex,
  graphStore: createMemoryGraphStore(),
  // Every round searches: no search-results cache serving a repeated query.
  retrieval: { cache: { maxEntries: 0 } },
});
const started = performance.now();
const chunks = await ingestCorpus(engine, docs, 10_000);
await vectors.whenIndexed();
before.restore(after.snapshot());
console.log(
  `${docs.length} documents, ${chunks} chunks, ingested in ${((performance.now() - started) / 1000).toFixed(1)} s; load ${load()}`,
);

const warm = queries.slice(0, 50);
const measured = queries.slice(50);
const run = async (side: KeywordIndex, list: readonly string[]) => {
  active = side;
  const cpu: number[] = [];
  const wall: number[] = [];
  searchMs = 0;
  searches = 0;
  for (const message of list) {
    const usage = process.cpuUsage();
    const at = performance.now();
    await engine.chat({ message, mode: 'query' });
    wall.push(performance.now() - at);
    const used = process.cpuUsage(usage);
    cpu.push((used.user + used.system) / 1000);
  }
  const median = (values: number[]): number =>
    [...values].sort((x, y) => x - y)[values.length >> 1]!;
  return {
    cpu: median(cpu),
    wall: median(wall),
    search: `${searches / list.length} searches, ${(searchMs / list.length).toFixed(2)} ms`,
  };
};
await run(after, warm);
await run(before, warm);
const ratios: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const a = await run(after, measured);
  const b = await run(before, measured);
  ratios.push(b.cpu / a.cpu);
  console.log(
    `round ${round + 1}: A (this tree) CPU ${a.cpu.toFixed(2)} ms, wall ${a.wall.toFixed(2)} ms, keyword ${a.search} per turn; B (${beforeDir}) CPU ${b.cpu.toFixed(2)} ms, wall ${b.wall.toFixed(2)} ms, keyword ${b.search}; B/A CPU ${(b.cpu / a.cpu).toFixed(2)}; load ${load()}`,
  );
}
ratios.sort((x, y) => x - y);
console.log(`B/A turn CPU p50, median of ${ROUNDS} rounds: ${ratios[ROUNDS >> 1]!.toFixed(2)}`);
