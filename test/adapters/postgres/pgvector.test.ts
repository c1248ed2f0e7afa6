import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchesFilter } from '../../../src/query/filter.js';
import {
  createPgVectorStore,
  type PgVectorStore,
  type SqlQueryable,
} from '../../../src/adapters/postgres/vector-store.js';
import type { Metadata, MetadataFilter } from '../../../src/ports/common.js';
import { testVectorStore } from '../../../src/testing/index.js';
import { uniqueName } from '../../../src/testing/shared.js';
import { codeOf, seededRandom as random } from '../../util/helpers.js';

// One in-process PGlite (WASM Postgres with pgvector) for the whole file; tests stay apart
// through fresh namespaces and tables.
const db = new PGlite({ extensions: { vector } });
const queryable = db as unknown as SqlQueryable;
let shared: Promise<PgVectorStore> | undefined;
const sharedStore = (): Promise<PgVectorStore> =>
  (shared ??= createPgVectorStore({ queryable, dimensions: 4, table: 'conformance' }));

beforeAll(async () => {
  await db.waitReady;
});

afterAll(async () => {
  await db.close();
});

testVectorStore({ title: 'pgvector store on PGlite', create: sharedStore });

describe('pgvector store specifics', () => {
  it('creates the table with a vector(dimensions) column and an HNSW cosine index', async () => {
    const store = await sharedStore();
    expect(store.table).toBe('"cortexis"."conformance"');
    const { rows } = await db.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'cortexis' AND tablename = 'conformance'`,
    );
    const definitions = rows.map((row) => row.indexdef).join('\n');
    expect(definitions).toMatch(/USING hnsw \(embedding vector_cosine_ops\)/);
    expect(definitions).toMatch(/PRIMARY KEY|\(namespace, id\)/);
  });

  it('filters exactly like matchesFilter, edge cases included', async () => {
    const store = await sharedStore();
    const namespace = uniqueName('filters');
    const metadata: Metadata[] = [
      { lang: 'en', year: 2019, score: 0.5, flag: true, note: null },
      { lang: 'de', year: 2020, score: -1, flag: false },
      { lang: 'EN', year: '2021', flag: 'true' },
      { lang: 'é', year: 2021.5, note: 'x', score: 1e21 },
      { year: 0, flag: 1, note: '' },
      {},
    ];
    await store.upsert(
      namespace,
      metadata.map((value, index) => ({
        id: `r${index}`,
        vector: [1, index, 0, 1],
        metadata: value,
      })),
    );
    const filters: MetadataFilter[] = [
      { lang: 'en' },
      { note: null },
      { note: { $ne: null } },
      { flag: true },
      { flag: { $eq: 'true' } },
      { flag: 1 },
      { year: 2021 },
      { year: '2021' },
      { lang: { $in: ['en', 'é', null] } },
      { note: { $in: [null] } },
      { lang: { $in: [] } },
      { lang: { $nin: ['en', 'de'] } },
      { note: { $nin: [null, ''] } },
      { year: { $gt: 2019 } },
      { year: { $gte: 2019, $lt: 2021 } },
      { year: { $lte: '2021' } },
      { year: { $gt: 0, $ne: 2020 } },
      { lang: { $gt: 'Z' } },
      { lang: { $lt: 'e' } },
      { lang: { $gte: 'en', $lte: 'é' } },
      { score: { $gt: 1e20 } },
      { score: { $lt: 0 } },
      { lang: 'en', flag: true },
      { missing: { $ne: 'x' } },
      { missing: { $nin: ['x'] } },
      { missing: { $gt: 0 } },
      {},
    ];
    for (const filter of filters) {
      const expected = metadata
        .map((value, index) => ({ id: `r${index}`, value }))
        .filter(({ value }) => matchesFilter(value, filter))
        .map(({ id }) => id);
      const matches = await store.query(namespace, [1, 0, 0, 0], { k: 50, filter });
      expect(matches.map((match) => match.id).sort(), JSON.stringify(filter)).toEqual(expected);
    }
    expect(await store.delete(namespace, { filter: { year: { $gte: 2020 } } })).toBe(2);
    expect(await store.count(namespace)).toBe(metadata.length - 2);
  });

  it('returns k matches of one namespace when the HNSW index is walked (iterative scans)', async () => {
    const store = await createPgVectorStore({ queryable, dimensions: 8, table: 'indexed' });
    const next = random(7);
    const vectorOf = (): number[] => Array.from({ length: 8 }, () => next() * 2 - 1);
    const namespace = uniqueName('indexed');
    const crowd = uniqueName('crowd');
    // A crowd in another namespace sits right next to the query; few records match the filter.
    await store.upsert(
      crowd,
      Array.from({ length: 400 }, (_, index) => ({
        id: `c${index}`,
        vector: [1, 0.01 * next(), 0, 0, 0, 0, 0, 0],
        metadata: { keep: true },
      })),
    );
    await store.upsert(
      namespace,
      Array.from({ length: 400 }, (_, index) => ({
        id: `n${index}`,
        vector: vectorOf(),
        metadata: { keep: index % 25 === 0, index },
      })),
    );
    // Make the planner walk the HNSW index rather than scan the namespace and sort.
    await db.exec(
      'ANALYZE "cortexis"."indexed"; SET enable_seqscan = off; SET enable_bitmapscan = off',
    );
    try {
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT id FROM "cortexis"."indexed" WHERE namespace = $1
          ORDER BY embedding <=> '[1,0,0,0,0,0,0,0]'::vector LIMIT 10`,
        [namespace],
      );
      expect(rows.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/indexed_embedding_hnsw/);
      // Unfiltered, the planner walks the index: its first candidates are all in the crowd,
      // so only iterative scans (the default) bring k back from this namespace.
      const nearest = await store.query(namespace, [1, 0, 0, 0, 0, 0, 0, 0], { k: 10 });
      expect(nearest).toHaveLength(10);
      expect(nearest.every((match) => match.id.startsWith('n'))).toBe(true);
      const scores = nearest.map((match) => match.score);
      expect([...scores].sort((x, y) => y - x)).toEqual(scores);
      const single = await createPgVectorStore({
        queryable,
        dimensions: 8,
        table: 'indexed',
        hnsw: { iterativeScan: 'off' },
      });
      const starved = await single.query(namespace, [1, 0, 0, 0, 0, 0, 0, 0], { k: 10 });
      expect(starved.length).toBeLessThan(10);
      // A selective filter: the planner may scan the namespace instead; k still comes back.
      const filtered = await store.query(namespace, [1, 0, 0, 0, 0, 0, 0, 0], {
        k: 10,
        filter: { keep: true },
      });
      expect(filtered).toHaveLength(10);
      expect(filtered.every((match) => match.metadata['keep'] === true)).toBe(true);
    } finally {
      await db.exec('RESET enable_seqscan; RESET enable_bitmapscan');
    }
  });

  it('writes nothing when any record of a batch is invalid', async () => {
    const store = await sharedStore();
    const namespace = uniqueName('invalid');
    const good = { id: 'good', vector: [1, 0, 0, 0], metadata: {} };
    const cases: unknown[] = [
      [good, { id: 'zero', vector: [0, 0, 0, 0], metadata: {} }],
      [good, { id: 'inf', vector: [1, Infinity, 0, 0], metadata: {} }],
      [good, { id: 'short', vector: [1, 0, 0], metadata: {} }],
      [good, { id: '', vector: [1, 0, 0, 0], metadata: {} }],
      [good, { id: 'nested', vector: [1, 0, 0, 0], metadata: { deep: { a: 1 } } }],
      [good, { id: 'nan-meta', vector: [1, 0, 0, 0], metadata: { n: Number.NaN } }],
      // PostgreSQL cannot store U+0000 in text or jsonb.
      [good, { id: 'nul-meta', vector: [1, 0, 0, 0], metadata: { s: 'a\u0000b' } }],
      [good, { id: 'nul-field', vector: [1, 0, 0, 0], metadata: { 'a\u0000': 1 } }],
      [good, { id: 'not-vector', vector: 'abc', metadata: {} }],
    ];
    for (const records of cases) {
      expect(await codeOf(store.upsert(namespace, records as never)), JSON.stringify(records)).toBe(
        'validation_error',
      );
    }
    expect(await store.count(namespace)).toBe(0);
    expect(await codeOf(store.query(namespace, [0, 0, 0, 0], { k: 1 }))).toBe('validation_error');
    expect(await codeOf(store.query(namespace, [1, 0, 0, 0], { k: 0 }))).toBe('validation_error');
    expect(await codeOf(store.query('', [1, 0, 0, 0], { k: 1 }))).toBe('validation_error');
    expect(
      await codeOf(
        store.query(namespace, [1, 0, 0, 0], { k: 1, filter: { a: { $like: 'x' } } as never }),
      ),
    ).toBe('validation_error');
    expect(await codeOf(store.delete(namespace, {} as never))).toBe('validation_error');
  });

  it('keeps the last of repeated ids in a batch and writes batches beyond one statement', async () => {
    const store = await sharedStore();
    const namespace = uniqueName('batch');
    await store.upsert(namespace, [
      { id: 'a', vector: [1, 0, 0, 0], metadata: { version: 1 } },
      { id: 'a', vector: [0, 1, 0, 0], metadata: { version: 2 } },
    ]);
    const [match] = await store.query(namespace, [0, 1, 0, 0], { k: 1 });
    expect(match).toMatchObject({ id: 'a', metadata: { version: 2 } });
    expect(match?.score).toBeCloseTo(1, 5);
    await store.upsert(
      namespace,
      Array.from({ length: 1234 }, (_, index) => ({
        id: `b${index}`,
        vector: [1, index, 1, 0],
        metadata: {},
      })),
    );
    expect(await store.count(namespace)).toBe(1235);
    expect(await store.delete(namespace, { ids: ['a', 'b0', 'b1233', 'nope'] })).toBe(3);
  });

  it('scores very large and very small vectors by direction only', async () => {
    const store = await sharedStore();
    const namespace = uniqueName('scale');
    await store.upsert(namespace, [
      { id: 'tiny', vector: [1e-30, 1e-30, 0, 0], metadata: {} },
      { id: 'huge', vector: [1e200, 0, 0, 0], metadata: {} },
    ]);
    const matches = await store.query(namespace, [3e-300, 0, 0, 0], { k: 2 });
    expect(matches.map((match) => match.id)).toEqual(['huge', 'tiny']);
    expect(matches[0]?.score).toBeCloseTo(1, 5);
    expect(matches[1]?.score).toBeCloseTo(Math.SQRT1_2, 5);
  });

  it('rejects bad settings and a table of another dimension with ConfigError', async () => {
    await sharedStore();
    const attempts: Array<Promise<unknown>> = [
      createPgVectorStore({ queryable, dimensions: 0 }),
      createPgVectorStore({ queryable, dimensions: 2001 }),
      createPgVectorStore({ queryable, dimensions: 4, table: 'bad-name' }),
      createPgVectorStore({ queryable, dimensions: 4, schema: '1x' }),
      createPgVectorStore({ dimensions: 4 }),
      createPgVectorStore({ queryable, dimensions: 4, hnsw: { m: 1 } }),
      createPgVectorStore({ queryable, dimensions: 5, table: 'conformance' }),
      createPgVectorStore({ queryable, dimensions: 4, table: 'absent', migrate: false }),
    ];
    for (const attempt of attempts) expect(await codeOf(attempt)).toBe('config_error');
    const existing = await createPgVectorStore({
      queryable,
      dimensions: 4,
      table: 'conformance',
      migrate: false,
    });
    expect(existing.dimensions).toBe(4);
  });
});
