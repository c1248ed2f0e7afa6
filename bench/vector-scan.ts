/**
 * `node --import tsx bench/vector-scan.ts [--data DIR] [--rounds N]`: the memory vector store's
 * exact scan with the WebAssembly SIMD kernel against the JS loop, on SciFact. Embeds the
 * 5,183 abstracts (title + text) and the 300 test claims with the default hashing embedder,
 * holds the same rows in two spaces (kernel / plain arrays), checks that every claim's top 100
 * (ids, scores, order) is identical, then times the 300 queries alternately (CPU time per
 * query, `process.cpuUsage()`), N rounds each.
 */
import { loadavg } from 'node:os';
import { createHashingEmbedder } from '../src/index.js';
import { search } from '../src/adapters/memory/vector-exact-search.js';
import { createSpace, write } from '../src/adapters/memory/vector-space.js';
import { hasSciFact, loadCorpus, loadQueries, sciFactDir } from './scifact.js';

const roundsFlag = process.argv.indexOf('--rounds');
const rounds = roundsFlag >= 0 ? Number(process.argv[roundsFlag + 1]) : 5;
const dir = sciFactDir();
if (!hasSciFact(dir)) throw new Error(`SciFact data not found in ${dir} (pass --data DIR)`);
const embedder = createHashingEmbedder();
const docs = loadCorpus(dir);
const queries = loadQueries(dir).map((query) => query.text);

const unit = (vector: Float32Array): Float32Array => {
  let norm = 0;
  for (const value of vector) norm += value * value;
  return vector.map((value) => value / Math.sqrt(norm));
};
const docVectors = await embedder.embed(docs.map((doc) => `${doc.title}\n${doc.text}`));
const queryVectors = (await embedder.embed(queries)).map(unit);
const dimensions = docVectors[0]!.length;
const kernel = createSpace(dimensions, 1024);
const plain = createSpace(dimensions, 1024, false);
if (kernel.kernel === null) throw new Error('WebAssembly SIMD is unavailable here');
docs.forEach((doc, index) => {
  const record = { id: doc.id, vector: unit(docVectors[index]!), metadata: {} };
  write(kernel, record);
  write(plain, record);
});

for (const query of queryVectors) {
  const a = search(kernel, query, { k: 100 });
  const b = search(plain, query, { k: 100 });
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error('the kernel ranks differently');
}
console.log(
  `${docs.length} rows × ${dimensions} dimensions, ${queries.length} queries: top 100 identical (ids, scores, order)`,
);

const cpuPerQuery = (space: typeof kernel): number => {
  const started = process.cpuUsage();
  for (const query of queryVectors) search(space, query, { k: 100 });
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / queryVectors.length;
};
for (let round = 1; round <= rounds; round++) {
  const js = cpuPerQuery(plain);
  const wasm = cpuPerQuery(kernel);
  console.log(
    `round ${round}: JS ${js.toFixed(3)} ms/query, kernel ${wasm.toFixed(3)} ms/query, ×${(js / wasm).toFixed(2)}; load ${loadavg()[0]!.toFixed(2)}`,
  );
}
