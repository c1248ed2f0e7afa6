/**
 * `node --expose-gc --import tsx bench/turn-heap.ts [--data DIR]`: the heap a process keeps
 * after ingesting SciFact and after its 300 test claims as `mode: 'query'` turns (a full `gc()`
 * before each reading): what the engine's indexes and the analysis caches hold. Copy it into
 * another tree to compare (it imports that tree's `src`).
 */
import { createChatEngine } from '../src/index.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with node --expose-gc');

function heapMB(): string {
  collect!();
  collect!();
  return (process.memoryUsage().heapUsed / 2 ** 20).toFixed(1);
}

const dir = sciFactDir();
if (!hasSciFact(dir)) throw new Error(`SciFact data not found in ${dir} (pass --data DIR)`);
const before = heapMB();
const engine = createChatEngine();
await engine.ingest(loadCorpus(dir).map(({ id, title, text }) => ({ id, title, text })));
const ingested = heapMB();
for (const query of loadQueries(dir).map((claim) => claim.text)) {
  await engine.chat({ message: query, mode: 'query' });
}
const turned = heapMB();
console.log(`heap used MB: before ${before}, after ingest ${ingested}, after 300 turns ${turned}`);
