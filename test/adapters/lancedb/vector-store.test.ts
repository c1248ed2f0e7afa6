import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { createLanceDbVectorStore, type LanceDbVectorStore } from 'cortexis/lancedb';
import { testVectorStore } from 'cortexis/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { matchesFilter } from '../../../src/query/filter.js';
import type { Metadata, MetadataFilter } from '../../../src/ports/common.js';
import type { VectorRecord } from '../../../src/ports/vector-store.js';
import { cosine, uniqueName } from '../../../src/testing/shared.js';
import { codeOf, seededRandom as random } from '../../util/helpers.js';

// One temporary directory for the file; tests stay apart through fresh namespaces and tables.
const directory = mkdtempSync(join(tmpdir(), 'cortexis-lancedb-'));
const opened: LanceDbVectorStore[] = [];

async function open(
  settings: Partial<Parameters<typeof createLanceDbVectorStore>[0]> = {},
): Promise<LanceDbVectorStore> {
  const store = await createLanceDbVectorStore({ uri: directory, dimensions: 4, ...settings });
  opened.push(store);
  return store;
}

let shared: Promise<LanceDbVectorStore> | undefined;
const sharedStore = (): Promise<LanceDbVectorStore> => (shared ??= open({ table: 'conformance' }));

afterAll(async () => {
  for (const store of opened) await store.close();
  rmSync(directory, { recursive: true, force: true });
});

testVectorStore({ title: 'LanceDB vector store', create: sharedStore });

const METADATA: Metadata[] = [
  { lang: 'en', year: 2019, score: 0.5, flag: true, note: null },
  { lang: 'de', year: 2020, score: -1, flag: false },
  { lang: 'EN', year: '2021', flag: 'true' },
  { lang: 'é', year: 2021.5, note: 'x', score: 1e21 },
  { year: 0, flag: 1, note: '' },
  { "it's": "o'k", lang: 'en"\\', year: -0 },
  {},
];

const FILTERS: MetadataFilter[] = [
  { lang: 'en' },
  { note: null },
  { note: { $ne: null } },
  { flag: true },
  { flag: { $eq: 'true' } },
  { flag: 1 },
  { year: 2021 },
  { year: '2021' },
  { year: 0 },
  { lang: { $in: ['en', 'é', null] } },
  { note: { $in: [null] } },
  { lang: { $in: [] } },
  { lang: { $nin: [] } },
  { lang: { $nin: ['en', 'de'] } },
  { note: { $nin: [null, ''] } },
  { year: { $gt: 2019 } },
  { year: { $gte: 2019, $lt: 2021 } },
  { year: { $lte: '2021' } },
  { year: { $gt: 0, $ne: 2020 } },
  { year: { $gte: 0, $lte: 'z' } },
  { lang: { $gt: 'Z' } },
  { lang: { $lt: 'e' } },
  { lang: { $gte: 'en', $lte: 'é' } },
  { score: { $gt: 1e20 } },
  { score: { $lt: 0 } },
  { lang: 'en', flag: true },
  { "it's": "o'k" },
  { lang: 'en"\\' },
  { "it's": { $ne: "o'k" } },
  { missing: { $ne: 'x' } },
  { missing: { $nin: ['x'] } },
  { missing: { $gt: 0 } },
  {},
];

/** Upserts METADATA into a fresh namespace and checks every filter against matchesFilter. */
async function expectFilterParity(store: LanceDbVectorStore): Promise<void> {
  const namespace = uniqueName('filters');
  const pad = (values: number[]): number[] =>
    Array.from({ length: store.dimensions }, (_, index) => values[index] ?? 0);
  await store.upsert(
    namespace,
    METADATA.map((metadata, index) => ({
      id: `r${index}`,
      vector: pad([1, index, 0, 1]),
      metadata,
    })),
  );
  for (const filter of FILTERS) {
    const expected = METADATA.map((metadata, index) => ({ id: `r${index}`, metadata }))
      .filter(({ metadata }) => matchesFilter(metadata, filter))
      .map(({ id }) => id);
    const matches = await store.query(namespace, pad([1, 0, 0, 0]), { k: 50, filter });
    expect(matches.map((match) => match.id).sort(), JSON.stringify(filter)).toEqual(expected);
  }
  expect(await store.delete(namespace, { filter: { year: { $gte: 2020 } } })).toBe(2);
  expect(await store.delete(namespace, { filter: { "it's": "o'k" } })).toBe(1);
  expect(await store.count(namespace)).toBe(METADATA.length - 3);
}

describe('LanceDB vector store specifics', () => {
  it('creates the table with an explicit schema and (namespace, id) as its primary key', async () => {
    const store = await sharedStore();
    expect(store.table).toBe('conformance');
    const connection = await lancedb.connect(directory);
    try {
      const table = await connection.openTable('conformance');
      const schema = await table.schema();
      expect(schema.fields.map((field) => `${field.name}: ${String(field.type)}`)).toEqual([
        'key: Utf8',
        'namespace: Utf8',
        'id: Utf8',
        'vector: FixedSizeList[4]<Float32>',
        'metadata: Utf8',
        'terms: List<Utf8>',
      ]);
      const key = schema.fields.find((field) => field.name === 'key');
      expect(key?.metadata.get('lance-schema:unenforced-primary-key')).toBe('true');
      table.close();
    } finally {
      connection.close();
    }
  });

  it('filters exactly like matchesFilter, edge cases included', async () => {
    await expectFilterParity(await sharedStore());
  });

  it('returns exactly k matches of a range filter whose matches lie far from the query', async () => {
    const store = await sharedStore();
    const namespace = uniqueName('ranges');
    const next = random(11);
    // 300 records right next to the query fail the filter; 12 far away pass it.
    await store.upsert(namespace, [
      ...Array.from({ length: 300 }, (_, index) => ({
        id: `near${index}`,
        vector: [1, 0.01 * next(), 0.01 * next(), 0],
        metadata: { year: 2000 + (index % 20) },
      })),
      ...Array.from({ length: 12 }, (_, index) => ({
        id: `far${index}`,
        vector: [-1, next(), next(), 1],
        metadata: { year: 2030 + index },
      })),
    ]);
    for (const [k, expected] of [
      [5, 5],
      [12, 12],
      [40, 12],
    ] as const) {
      const matches = await store.query(namespace, [1, 0, 0, 0], {
        k,
        filter: { year: { $gt: 2025 } },
      });
      expect(matches).toHaveLength(expected);
      expect(matches.every((match) => match.id.startsWith('far'))).toBe(true);
      const scores = matches.map((match) => match.score);
      expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    }
    // The same over-fetch for a range combined with exact conditions, and for delete.
    const mixed = await store.query(namespace, [1, 0, 0, 0], {
      k: 3,
      filter: { year: { $gte: 2035, $ne: 2036 } },
    });
    expect(mixed.map((match) => match.id)).toHaveLength(3);
    expect(await store.delete(namespace, { filter: { year: { $gte: 2030 } } })).toBe(12);
    expect(await store.count(namespace)).toBe(300);
  });

  it('keeps ids and namespaces with quotes, backslashes and newlines apart and intact', async () => {
    const store = await sharedStore();
    const namespace = `o'neil's "ns" \\ ${uniqueName('quotes')}`;
    const other = `${namespace}'`;
    const ids = ["it's", "''", 'back\\slash', 'new\nline', '"double"', "x' OR '1'='1", 'é😀'];
    await store.upsert(
      namespace,
      ids.map((id, index) => ({ id, vector: [1, index, 0, 0], metadata: { id } })),
    );
    await store.upsert(other, [{ id: "it's", vector: [0, 0, 1, 0], metadata: { id: 'other' } }]);
    expect(await store.count(namespace)).toBe(ids.length);
    expect(await store.count(other)).toBe(1);
    const matches = await store.query(namespace, [1, 0, 0, 0], { k: 20 });
    expect(matches.map((match) => match.id).sort()).toEqual([...ids].sort());
    expect(matches.every((match) => match.metadata['id'] === match.id)).toBe(true);
    const [quoted] = await store.query(namespace, [1, 0, 0, 0], {
      k: 5,
      filter: { id: "x' OR '1'='1" },
    });
    expect(quoted?.id).toBe("x' OR '1'='1");
    await store.upsert(namespace, [{ id: "it's", vector: [0, 1, 0, 0], metadata: { v: 2 } }]);
    expect(await store.count(namespace)).toBe(ids.length);
    expect(await store.delete(namespace, { ids: ["it's", 'new\nline', "x' OR '1'='1"] })).toBe(3);
    expect(await store.delete(namespace, { filter: { id: 'back\\slash' } })).toBe(1);
    expect(await store.count(namespace)).toBe(ids.length - 4);
    expect(await store.count(other)).toBe(1);
  });

  it('writes nothing when any record of a batch is invalid', async () => {
    const store = await sharedStore();
    const namespace = uniqueName('invalid');
    const good = { id: 'good', vector: [1, 0, 0, 0], metadata: {} };
    const cases: Array<[unknown, string]> = [
      [[good, { id: 'zero', vector: [0, 0, 0, 0], metadata: {} }], 'records.1.vector'],
      [[good, { id: 'inf', vector: [1, Infinity, 0, 0], metadata: {} }], 'records.1.vector.1'],
      [[good, { id: 'nan', vector: [1, Number.NaN, 0, 0], metadata: {} }], 'records.1.vector.1'],
      [[good, { id: 'short', vector: [1, 0, 0], metadata: {} }], 'records.1.vector'],
      [[good, { id: '', vector: [1, 0, 0, 0], metadata: {} }], 'records.1.id'],
      [[good, { id: 'bad\uD800', vector: [1, 0, 0, 0], metadata: {} }], 'records.1.id'],
      [
        [good, { id: 'deep', vector: [1, 0, 0, 0], metadata: { a: { b: 1 } } }],
        'records.1.metadata.a',
      ],
      [
        [good, { id: 'nan-meta', vector: [1, 0, 0, 0], metadata: { n: Number.NaN } }],
        'records.1.metadata.n',
      ],
      [[good, { id: 'not-vector', vector: 'abc', metadata: {} }], 'records.1.vector'],
    ];
    for (const [records, path] of cases) {
      const error = await store.upsert(namespace, records as VectorRecord[]).catch((e) => e);
      expect(error, JSON.stringify(records)).toMatchObject({ code: 'validation_error' });
      expect((error as { issues: Array<{ path: string }> }).issues[0]?.path).toBe(path);
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
    expect(await codeOf(store.delete(namespace, { ids: [1] } as never))).toBe('validation_error');
  });

  it('keeps the last of repeated ids in a batch and scores vectors by direction only', async () => {
    const store = await sharedStore();
    const namespace = uniqueName('batch');
    await store.upsert(namespace, [
      { id: 'a', vector: [1, 0, 0, 0], metadata: { version: 1 } },
      { id: 'a', vector: [0, 1, 0, 0], metadata: { version: 2 } },
      { id: 'tiny', vector: [1e-30, 1e-30, 0, 0], metadata: {} },
      { id: 'huge', vector: [1e200, 0, 0, 0], metadata: {} },
    ]);
    expect(await store.count(namespace)).toBe(3);
    const [match] = await store.query(namespace, [0, 1, 0, 0], { k: 1 });
    expect(match).toMatchObject({ id: 'a', metadata: { version: 2 } });
    expect(match?.score).toBeCloseTo(1, 5);
    const matches = await store.query(namespace, [3e-300, 0, 0, 0], { k: 2 });
    expect(matches.map((found) => found.id)).toEqual(['huge', 'tiny']);
    expect(matches[1]?.score).toBeCloseTo(Math.SQRT1_2, 5);
    await store.upsert(
      namespace,
      Array.from({ length: 2500 }, (_, index) => ({
        id: `b${index}`,
        vector: [1, index, 1, 0],
        metadata: {},
      })),
    );
    expect(await store.count(namespace)).toBe(2503);
    const doomed = [...Array.from({ length: 1500 }, (_, index) => `b${index}`), 'a', 'nope'];
    expect(await store.delete(namespace, { ids: doomed })).toBe(1501);
    expect(await store.count(namespace)).toBe(1002);
  });

  it('shows each connection the writes of the other at once (readConsistencyIntervalMs 0)', async () => {
    const first = await open({ table: 'two_connections' });
    const second = await open({ table: 'two_connections' });
    const namespace = uniqueName('visible');
    await first.upsert(namespace, [
      { id: 'a', vector: [1, 0, 0, 0], metadata: { by: 'first' } },
      { id: 'b', vector: [0, 1, 0, 0], metadata: { by: 'first' } },
    ]);
    expect(await second.count(namespace)).toBe(2);
    await second.upsert(namespace, [{ id: 'a', vector: [1, 0, 0, 0], metadata: { by: 'second' } }]);
    const [best] = await first.query(namespace, [1, 0, 0, 0], { k: 1 });
    expect(best?.metadata).toEqual({ by: 'second' });
    expect(await second.delete(namespace, { ids: ['b'] })).toBe(1);
    expect(await first.count(namespace)).toBe(1);
    expect(await first.delete(namespace, { filter: { by: 'second' } })).toBe(1);
    expect(await second.query(namespace, [1, 0, 0, 0], { k: 5 })).toEqual([]);
  });

  it('lets several connections create the same table at once', async () => {
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => open({ table: 'created_together', dimensions: 3 })),
    );
    await Promise.all(
      stores.map((store, index) =>
        store.upsert('ns', [{ id: `s${index}`, vector: [1, index, 0], metadata: {} }]),
      ),
    );
    expect(await stores[0]!.count('ns')).toBe(4);
  });

  it('survives the create race LanceDB reports as a commit conflict', async () => {
    // Eight connections creating one new table at once, ten times: LanceDB reports some losers
    // as "Retryable commit conflict … preempted" rather than "already exists" (seen in CI).
    for (let round = 0; round < 10; round++) {
      const table = uniqueName('raced');
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, () => open({ table, dimensions: 3 })),
      );
      expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    }
  });

  it('builds scalar and ANN indexes; filters stay exact and scores exact under them', async () => {
    const store = await open({ table: 'indexed', dimensions: 8 });
    const next = random(7);
    const vectorOf = (): number[] => Array.from({ length: 8 }, () => next() * 2 - 1);
    const namespace = uniqueName('indexed');
    const crowd = uniqueName('crowd');
    // A crowd in another namespace sits right next to the query.
    await store.upsert(
      crowd,
      Array.from({ length: 300 }, (_, index) => ({
        id: `c${index}`,
        vector: [1, 0.01 * next(), 0, 0, 0, 0, 0, 0],
        metadata: { keep: true },
      })),
    );
    const records = Array.from({ length: 300 }, (_, index) => ({
      id: `n${index}`,
      vector: vectorOf(),
      metadata: { keep: index % 25 === 0, index },
    }));
    await store.upsert(namespace, records);
    const query = [1, 0, 0, 0, 0, 0, 0, 0];
    const exact = records
      .map((record) => ({ id: record.id, score: cosine(record.vector, query) }))
      .sort((a, b) => b.score - a.score);
    const indexesOf = async (): Promise<string[]> => {
      const connection = await lancedb.connect(directory);
      try {
        const table = await connection.openTable('indexed');
        const indexes = await table.listIndices();
        table.close();
        return indexes.map((index) => `${index.columns.join()}:${index.indexType}`).sort();
      } finally {
        connection.close();
      }
    };
    const scalar = ['key:BTree', 'namespace:BTree', 'terms:LabelList'];
    for (const vector of ['none', 'ivf_pq', 'hnsw', 'none'] as const) {
      await store.createIndex({ vector, numPartitions: 2 });
      const kind = { none: [], ivf_pq: ['vector:IvfPq'], hnsw: ['vector:IvfHnswSq'] }[vector];
      expect(await indexesOf()).toEqual([...scalar, ...kind].sort());
      const nearest = await store.query(namespace, query, { k: 10 });
      expect(nearest).toHaveLength(10);
      for (const match of nearest) {
        const record = records.find((candidate) => candidate.id === match.id)!;
        expect(match.score).toBeCloseTo(cosine(record.vector, query), 5);
      }
      // Without a vector index the search is exact.
      if (vector === 'none')
        expect(nearest.map((match) => match.id)).toEqual(
          exact.slice(0, 10).map((match) => match.id),
        );
      const filtered = await store.query(namespace, query, { k: 10, filter: { keep: true } });
      expect(filtered).toHaveLength(10);
      expect(filtered.every((match) => match.metadata['keep'] === true)).toBe(true);
      const ranged = await store.query(namespace, query, {
        k: 5,
        filter: { index: { $gte: 250 } },
      });
      expect(ranged).toHaveLength(5);
      expect(ranged.every((match) => Number(match.metadata['index']) >= 250)).toBe(true);
    }
    await store.createIndex();
    await expectFilterParity(store);
    // Rows written after the index are scanned exactly until optimize() indexes them.
    await store.upsert(namespace, [{ id: 'late', vector: query, metadata: { keep: false } }]);
    const [late] = await store.query(namespace, query, { k: 1 });
    expect(late?.id).toBe('late');
    expect(late?.score).toBeCloseTo(1, 5);
    await store.optimize();
    expect(await store.count(namespace)).toBe(301);
    expect(await store.query(namespace, query, { k: 10 })).toHaveLength(10);
    expect(await codeOf(store.createIndex({ vector: 'flat' as never }))).toBe('validation_error');
  });

  it('takes an injected library or connection; close() leaves a given connection open', async () => {
    const viaModule = await open({
      table: 'injected',
      library: lancedb,
      readConsistencyIntervalMs: 250,
    });
    const viaLoader = await open({ table: 'injected', library: () => import('@lancedb/lancedb') });
    await viaModule.upsert('ns', [{ id: 'a', vector: [1, 0, 0, 0], metadata: {} }]);
    expect(await viaLoader.count('ns')).toBe(1);
    const connection = await lancedb.connect(directory, { readConsistencyInterval: 0 });
    const store = await createLanceDbVectorStore({
      connection,
      table: 'injected',
      dimensions: 4,
      name: 'vectors',
    });
    expect(store.name).toBe('vectors');
    expect(await store.count('ns')).toBe(1);
    await store.close();
    await store.close();
    expect(connection.isOpen()).toBe(true);
    connection.close();
  });

  it('rejects bad settings and a table of another shape with ConfigError', async () => {
    await sharedStore();
    const connection = await lancedb.connect(directory);
    await connection.createTable('foreign', [{ id: 'a', vector: [1, 0, 0, 0] }], {
      mode: 'overwrite',
    });
    const attempts: Array<[() => Promise<unknown>, string]> = [
      [() => createLanceDbVectorStore({ uri: directory, dimensions: 0 }), 'dimensions'],
      [() => createLanceDbVectorStore({ uri: directory, dimensions: 1.5 }), 'dimensions'],
      [() => createLanceDbVectorStore({ dimensions: 4 }), 'uri'],
      [() => createLanceDbVectorStore({ uri: directory, connection, dimensions: 4 }), 'uri'],
      [() => createLanceDbVectorStore({ uri: '', dimensions: 4 }), 'uri'],
      [() => createLanceDbVectorStore({ uri: directory, dimensions: 4, table: 'a b' }), 'table'],
      [() => createLanceDbVectorStore({ uri: directory, dimensions: 4, table: '../up' }), 'table'],
      [() => createLanceDbVectorStore({ uri: directory, dimensions: 4, efSearch: 0 }), 'efSearch'],
      [
        () =>
          createLanceDbVectorStore({
            uri: directory,
            dimensions: 4,
            readConsistencyIntervalMs: -1,
          }),
        'readConsistencyIntervalMs',
      ],
      [
        () => createLanceDbVectorStore({ connection, dimensions: 4, readConsistencyIntervalMs: 0 }),
        'readConsistencyIntervalMs',
      ],
      [
        () => createLanceDbVectorStore({ uri: directory, dimensions: 4, library: {} as never }),
        'library',
      ],
      [
        () =>
          createLanceDbVectorStore({
            uri: directory,
            dimensions: 4,
            library: () => Promise.reject(new Error('Cannot find package')),
          }),
        'library',
      ],
      [
        () => createLanceDbVectorStore({ uri: directory, dimensions: 5, table: 'conformance' }),
        'dimensions',
      ],
      [
        () => createLanceDbVectorStore({ uri: directory, dimensions: 4, table: 'foreign' }),
        'table',
      ],
    ];
    for (const [attempt, path] of attempts) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error, path).toMatchObject({ code: 'config_error' });
      expect((error as { issues: Array<{ path: string }> }).issues[0]?.path).toBe(path);
    }
    connection.close();
  });
});
