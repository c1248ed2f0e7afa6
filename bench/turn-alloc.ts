/**
 * `node --import tsx bench/turn-alloc.ts [--data DIR] [--top N]`: where a SciFact turn's
 * garbage comes from. Ingests SciFact, runs 50 train claims as warm-up, then samples the heap
 * allocations (`HeapProfiler` sampling, 1 KB interval) of the 300 test claims as `mode: 'query'`
 * turns and prints KB allocated per turn by source file and by function (self; a native function's
 * allocations count for the script function that called it).
 */
import { Session } from 'node:inspector/promises';
import { createChatEngine } from '../src/index.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

interface SamplingNode {
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly selfSize: number;
  readonly children: readonly SamplingNode[];
}

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

const dir = sciFactDir();
if (!hasSciFact(dir)) throw new Error(`SciFact data not found in ${dir} (pass --data DIR)`);
const engine = createChatEngine();
await engine.ingest(loadCorpus(dir).map(({ id, title, text }) => ({ id, title, text })));
for (const query of loadQueries(dir, 'train').slice(0, 50)) {
  await engine.chat({ message: query.text, mode: 'query' });
}
const claims = loadQueries(dir).map((query) => query.text);
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 1024,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
for (const claim of claims) await engine.chat({ message: claim, mode: 'query' });
const { profile } = (await session.post('HeapProfiler.stopSampling')) as {
  profile: { head: SamplingNode };
};
session.disconnect();

const byFile = new Map<string, number>();
const byFunction = new Map<string, number>();
// Native frames (`match`, `replace`, `Set.add`, …) count for the nearest script frame calling them.
const walk = (node: SamplingNode, caller: string): void => {
  const url = node.callFrame.url;
  const file =
    url === '' ? caller.split(' ')[1]! : url.replace(/^.*?\/(src|bench|node_modules)\//, '$1/');
  const name = url === '' ? caller : `${node.callFrame.functionName || '(anonymous)'} ${file}`;
  byFile.set(file, (byFile.get(file) ?? 0) + node.selfSize);
  byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child, name);
};
walk(profile.head, '(root) (native)');
const top = Number(flag('--top') ?? 25);
const total = [...byFile.values()].reduce((sum, size) => sum + size, 0);
const print = (title: string, table: Map<string, number>): void => {
  console.log(`\n${title} (KB per turn; total ${(total / 1024 / claims.length).toFixed(0)} KB)`);
  for (const [name, size] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(size / 1024 / claims.length).toFixed(1).padStart(7)}  ${name}`);
  }
};
print('by file', byFile);
print('by function', byFunction);
