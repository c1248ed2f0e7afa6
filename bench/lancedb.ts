/**
 * Rough timings of the LanceDB vector store on one machine (docs/adapters/lancedb.md
 * quotes its output). Writes `rows` random 384-dimensional vectors into a temporary directory,
 * times exact queries, builds the default index and times indexed queries and their recall@10
 * against the exact results.
 * Run: `npm run bench:lancedb -- [rows=20000]`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLanceDbVectorStore } from '../src/adapters/lancedb/index.js';
import type { MetadataFilter } from '../src/ports/common.js';

const rows = Number(process.argv[2] ?? 20_000);
const dimensions = 384;
const batch = 5000;
const directory = mkdtempSync(join(tmpdir(), 'cortexis-lancedb-measure-'));
const store = await createLanceDbVectorStore({ uri: directory, dimensions });

let state = 1;
const random = (): number => {
  state = (state * 16807) % 2147483647;
  return (state / 2147483647) * 2 - 1;
};
const vector = (): number[] => Array.from({ length: dimensions }, random);

async function timed(label: string, runs: number, work: () => Promise<unknown>): Promise<void> {
  await work();
  const start = performance.now();
  for (let run = 0; run < runs; run++) await work();
  console.log(`${label}: ${((performance.now() - start) / runs).toFixed(1)} ms each`);
}

try {
  let start = performance.now();
  for (let offset = 0; offset < rows; offset += batch) {
    await store.upsert(
      'ns',
      Array.from({ length: Math.min(batch, rows - offset) }, (_, index) => ({
        id: `r${offset + index}`,
        vector: vector(),
        metadata: { group: (offset + index) % 10, year: 2000 + ((offset + index) % 30) },
      })),
    );
  }
  console.log(
    `upsert ${rows} × ${dimensions} in calls of ${batch}: ${(performance.now() - start).toFixed(0)} ms`,
  );
  const queries = Array.from({ length: 20 }, vector);
  const filters: Array<[string, MetadataFilter | undefined]> = [
    ['no filter', undefined],
    ['{ group: 3 }', { group: 3 }],
    ['{ year: { $gt: 2025 } }', { year: { $gt: 2025 } }],
  ];
  const exact = new Map<string, string[][]>();
  for (const [label, filter] of filters) {
    let index = 0;
    await timed(`exact query k=10, ${label}`, queries.length, () =>
      store.query('ns', queries[index++ % queries.length]!, { k: 10, filter }),
    );
    exact.set(
      label,
      await Promise.all(
        queries.map(async (query) =>
          (await store.query('ns', query, { k: 10, filter })).map((match) => match.id),
        ),
      ),
    );
  }
  await timed('upsert of one record', 20, () =>
    store.upsert('ns', [{ id: 'single', vector: vector(), metadata: { group: -1 } }]),
  );
  start = performance.now();
  await store.createIndex();
  console.log(`createIndex() (hnsw + scalar): ${(performance.now() - start).toFixed(0)} ms`);
  for (const [label, filter] of filters) {
    let index = 0;
    await timed(`hnsw query k=10, ${label}`, queries.length, () =>
      store.query('ns', queries[index++ % queries.length]!, { k: 10, filter }),
    );
    let found = 0;
    for (const [position, query] of queries.entries()) {
      const truth = new Set(exact.get(label)![position]);
      const matches = await store.query('ns', query, { k: 10, filter });
      found += matches.filter((match) => truth.has(match.id)).length;
    }
    console.log(`hnsw recall@10, ${label}: ${(found / (queries.length * 10)).toFixed(3)}`);
  }
  await timed('upsert of one record, indexed key', 20, () =>
    store.upsert('ns', [{ id: 'single', vector: vector(), metadata: { group: -1 } }]),
  );
} finally {
  await store.close();
  rmSync(directory, { recursive: true, force: true });
}
