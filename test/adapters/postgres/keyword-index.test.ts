import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryKeywordIndex } from '../../../src/adapters/memory/keyword-index.js';
import { createPostgresStores, type PostgresStores } from '../../../src/adapters/postgres/index.js';
import { ConfigError, ValidationError } from '../../../src/errors/index.js';
import type { MetadataFilter } from '../../../src/ports/common.js';
import type { KeywordIndex, KeywordRecord } from '../../../src/ports/keyword-index.js';
import { testKeywordIndex } from '../../../src/testing/index.js';
import { uniqueName } from '../../../src/testing/shared.js';

const url = process.env['CORTEXIS_TEST_POSTGRES_URL'];
const title = (text: string): string =>
  url ? text : `${text} [skipped: CORTEXIS_TEST_POSTGRES_URL is not set]`;

// One throwaway schema for the whole file, dropped at the end; two store instances on it,
// each with its own pool, stand for two app instances.
const schema = uniqueName('cortexis_test');
let first: Promise<PostgresStores> | undefined;
let second: Promise<PostgresStores> | undefined;
const instanceA = (): Promise<PostgresStores> =>
  (first ??= createPostgresStores({ connectionString: url!, schema, maxConnections: 4 }));
const instanceB = (): Promise<PostgresStores> =>
  (second ??= createPostgresStores({ connectionString: url!, schema, maxConnections: 4 }));

afterAll(async () => {
  const opened = await Promise.all([first, second]);
  await opened[0]?.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  for (const stores of opened) await stores?.close();
});

if (url) {
  testKeywordIndex({
    title: 'postgres keyword index',
    create: async () => (await instanceA()).keywordIndex,
  });
} else {
  it.skip(title('postgres keyword index conformance'), () => {});
}

/** Short texts with overlapping vocabulary, lengths and repeated terms. */
const CORPUS: readonly KeywordRecord[] = [
  [
    'refund-policy',
    'Refunds are issued within 14 days of the request, to the original payment method.',
  ],
  ['refund-digital', 'Digital goods are refunded only if they have not been downloaded.'],
  ['gift-cards', 'Gift cards are never refunded and never expire.'],
  [
    'refund-long',
    'A refund request needs the order number. Refund requests without an order number are answered by email, and the refund is then issued to the card used for the order.',
  ],
  ['shipping', 'Orders ship within 2 business days from our warehouse in Rotterdam.'],
  [
    'shipping-international',
    'International shipping takes up to 10 business days; customs fees are paid by the customer.',
  ],
  ['shipping-express', 'Express shipping costs 15 euros and arrives the next business day.'],
  ['passwords', 'Passwords must be at least 12 characters long and are stored hashed.'],
  [
    'two-factor',
    'Two-factor authentication can be enabled in the security settings of the account.',
  ],
  ['delete-account', 'Deleting an account removes all order history after 30 days.'],
  ['warehouse', 'The Rotterdam warehouse packs orders on business days between 8 and 18.'],
  ['payment', 'We accept cards, bank transfers and PayPal as payment methods.'],
  [
    'payment-failed',
    'A failed payment cancels the order after three days; the customer gets an email.',
  ],
  ['email', 'Every order confirmation is sent by email to the account address.'],
  ['security', 'Security questions about the account go to the security team by email.'],
  ['returns', 'Returned goods must be unused and in the original packaging for a refund.'],
].map(([id, text], index) => ({
  id: id!,
  text: text!,
  metadata: { position: index, topic: id!.split('-')[0]!, even: index % 2 === 0 },
}));

const QUERIES = [
  'refund policy',
  'how long does shipping take',
  'international shipping customs',
  'reset my password',
  'two-factor authentication security settings',
  'payment failed email',
  'refunds for digital downloads',
  'delete my account and order history',
  'warehouse Rotterdam business days',
  'refund refund order',
];

describe.skipIf(!url)(title('postgres keyword index: two instances, ranking, filters'), () => {
  let a: KeywordIndex;
  let b: KeywordIndex;
  const memory = createMemoryKeywordIndex();
  const corpus = uniqueName('corpus');

  beforeAll(async () => {
    a = (await instanceA()).keywordIndex;
    b = (await instanceB()).keywordIndex;
    await a.add(corpus, CORPUS);
    await memory.add(corpus, CORPUS);
  });

  it('sees the writes of another instance (its own pool)', async () => {
    const namespace = uniqueName('shared');
    await a.add(namespace, CORPUS.slice(0, 4));
    expect(await b.count(namespace)).toBe(4);
    const [top] = await b.search(namespace, 'gift cards', { k: 1 });
    expect(top?.id).toBe('gift-cards');

    await b.add(namespace, [
      { id: 'gift-cards', text: 'Vouchers expire after a year.', metadata: {} },
    ]);
    expect(await a.search(namespace, 'gift', { k: 5 })).toEqual([]);
    expect((await a.search(namespace, 'vouchers', { k: 5 })).map((match) => match.id)).toEqual([
      'gift-cards',
    ]);
    expect(await b.delete(namespace, { ids: ['refund-policy', 'gift-cards'] })).toBe(2);
    expect(await a.count(namespace)).toBe(2);
  });

  it('keeps records, postings and statistics consistent under concurrent writers of one namespace', async () => {
    const namespace = uniqueName('race');
    const version = (suffix: string) =>
      CORPUS.map((record) => ({ ...record, text: `${record.text} ${suffix}` }));
    await Promise.all([
      a.add(namespace, version('alpha')),
      b.add(namespace, version('beta')),
      a.add(namespace, version('gamma').reverse()),
      b.delete(namespace, { ids: ['shipping', 'payment'] }),
      b.add(namespace, version('delta').slice(0, 8)),
    ]);
    const count = await a.count(namespace);
    const { pool } = await instanceA();
    const s = `"${schema}"`;
    const { rows } = await pool.query(
      `SELECT n.documents, n.total_length,
         (SELECT count(*) FROM ${s}.keyword_records r WHERE r.namespace = n.namespace) AS records,
         (SELECT COALESCE(sum(length), 0) FROM ${s}.keyword_records r WHERE r.namespace = n.namespace) AS length,
         (SELECT count(*) FROM ${s}.keyword_postings p WHERE p.space = n.space) AS postings,
         (SELECT count(*) FROM ${s}.keyword_postings p JOIN ${s}.keyword_records r USING (doc)
           WHERE p.space = n.space AND r.namespace = n.namespace) AS linked
       FROM ${s}.keyword_namespaces n WHERE n.namespace = $1`,
      [namespace],
    );
    const [row] = rows;
    expect(Number(row?.['records'])).toBe(count);
    expect(Number(row?.['documents'])).toBe(count);
    expect(Number(row?.['total_length'])).toBe(Number(row?.['length']));
    expect(Number(row?.['postings'])).toBe(Number(row?.['linked']));
    // Each record holds exactly one writer's version: never two suffixes, never stale terms.
    const suffixes = ['alpha', 'beta', 'gamma', 'delta'];
    const found = await Promise.all(
      suffixes.map(async (suffix) => (await a.search(namespace, suffix, { k: 100 })).length),
    );
    expect(found.reduce((sum, value) => sum + value, 0)).toBe(count);
  });

  it('ranks like the in-memory BM25 index: same order, scores and coverage', async () => {
    for (const query of QUERIES) {
      const expected = await memory.search(corpus, query, { k: 5 });
      const actual = await a.search(corpus, query, { k: 5 });
      expect(actual.length, query).toBeGreaterThan(0);
      expect(actual[0]?.id, query).toBe(expected[0]?.id);
      expect(
        actual.map((match) => match.id),
        query,
      ).toEqual(expected.map((match) => match.id));
      actual.forEach((match, index) => {
        expect(match.score, query).toBeCloseTo(expected[index]!.score, 9);
        expect(match.coverage, query).toBeCloseTo(expected[index]!.coverage!, 9);
        expect(match.metadata).toEqual(expected[index]!.metadata);
      });
    }
  });

  it('keeps the BM25 statistics in step with replaces and deletes', async () => {
    const namespace = uniqueName('edits');
    const reference = createMemoryKeywordIndex();
    for (const index of [a, reference]) {
      await index.add(namespace, CORPUS);
      await index.add(namespace, [
        { id: 'refund-policy', text: 'Refunds take five days.', metadata: {} },
        { id: 'new', text: 'Refund shipping costs are never refunded.', metadata: {} },
        { id: 'new', text: 'Refund shipping costs are refunded for faulty goods.', metadata: {} },
      ]);
      expect(await index.delete(namespace, { filter: { topic: 'shipping' } })).toBe(3);
      expect(await index.delete(namespace, { ids: ['passwords', 'unknown'] })).toBe(1);
    }
    expect(await a.count(namespace)).toBe(await reference.count(namespace));
    for (const query of ['refund shipping', 'business days', 'faulty goods refunded']) {
      const expected = await reference.search(namespace, query, { k: 20 });
      const actual = await a.search(namespace, query, { k: 20 });
      expect(actual.map((match) => match.id)).toEqual(expected.map((match) => match.id));
      actual.forEach((match, index) => {
        expect(match.score).toBeCloseTo(expected[index]!.score, 9);
      });
    }
  });

  it('filters like the in-memory index, before k', async () => {
    const namespace = uniqueName('filters');
    const records: KeywordRecord[] = [
      { id: 'n1', text: 'refund one', metadata: { value: 1, label: 'b' } },
      { id: 's1', text: 'refund one', metadata: { value: '1', label: 'B' } },
      { id: 't', text: 'refund true', metadata: { value: true, label: 'a' } },
      { id: 'null', text: 'refund null', metadata: { value: null } },
      { id: 'missing', text: 'refund nothing', metadata: {} },
      { id: 'big', text: 'refund big', metadata: { value: 10, label: 'ä' } },
    ];
    const reference = createMemoryKeywordIndex();
    await a.add(namespace, records);
    await reference.add(namespace, records);
    const filters: MetadataFilter[] = [
      { value: 1 },
      { value: '1' },
      { value: true },
      { value: null },
      { value: { $ne: 1 } },
      { value: { $in: [1, '1'] } },
      { value: { $nin: [1, null] } },
      { value: { $gt: 1 } },
      { value: { $gte: '1' } },
      { label: { $lt: 'b' } },
      { label: { $gte: 'a', $lte: 'z' } },
      { value: 1, label: 'b' },
      { unknown: { $ne: 'x' } },
    ];
    for (const filter of filters) {
      const ids = async (index: KeywordIndex) =>
        (await index.search(namespace, 'refund', { k: 10, filter }))
          .map((match) => match.id)
          .sort();
      expect(await ids(a), JSON.stringify(filter)).toEqual(await ids(reference));
    }
    const [onlyBig] = await a.search(namespace, 'refund one', { k: 1, filter: { value: 10 } });
    expect(onlyBig?.id).toBe('big');
  });

  it('rejects invalid input with a ValidationError naming the field, writing nothing', async () => {
    const namespace = uniqueName('invalid');
    const cases: [unknown, string][] = [
      [
        [
          { id: 'ok', text: 'refund', metadata: {} },
          { id: '', text: 'x', metadata: {} },
        ],
        'records.1.id',
      ],
      [
        [
          { id: 'ok', text: 'refund', metadata: {} },
          { id: 'x', text: 3, metadata: {} },
        ],
        'records.1.text',
      ],
      [[{ id: 'ok', text: 'refund', metadata: { nested: { a: 1 } } }], 'records.0.metadata.nested'],
      [[{ id: 'ok', text: 'refund', metadata: { n: Number.NaN } }], 'records.0.metadata.n'],
      [[{ id: 'ok', text: 'refund', metadata: [] }], 'records.0.metadata'],
      ['not an array', 'records'],
    ];
    for (const [records, path] of cases) {
      const error = await a.add(namespace, records as KeywordRecord[]).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(ValidationError.isInstance(error), path).toBe(true);
      expect((error as ValidationError).issues[0]?.path).toBe(path);
    }
    expect(await a.count(namespace)).toBe(0);
    await expect(a.add('', [])).rejects.toMatchObject({ issues: [{ path: 'namespace' }] });
    await expect(a.search(namespace, 'refund', { k: 0 })).rejects.toMatchObject({
      issues: [{ path: 'k' }],
    });
    await expect(
      a.search(namespace, 'refund', { k: 1, filter: { year: { $regex: 'x' } as never } }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(a.delete(namespace, { ids: [1 as never] })).rejects.toMatchObject({
      issues: [{ path: 'target.ids' }],
    });
  });

  it('keeps texts with NUL characters, very long words or no terms; accepts any positive k', async () => {
    const namespace = uniqueName('odd');
    const long = 'x'.repeat(5000);
    await a.add(namespace, [
      { id: 'nul', text: 'refund\u0000policy', metadata: {} },
      { id: 'long', text: `${long} refund`, metadata: {} },
    ]);
    expect((await a.search(namespace, 'policy', { k: 5 })).map((match) => match.id)).toEqual([
      'nul',
    ]);
    expect((await a.search(namespace, long, { k: 5 })).map((match) => match.id)).toEqual(['long']);
    expect(await a.search(namespace, 'refund', { k: 2 ** 40 })).toHaveLength(2);
    // A record without index terms is stored and counted, and matches nothing.
    await a.add(namespace, [{ id: 'empty', text: 'the and of', metadata: {} }]);
    expect(await a.count(namespace)).toBe(3);
    expect(await a.search(namespace, 'the', { k: 5 })).toEqual([]);
    expect(await a.delete(namespace, { filter: {} })).toBe(3);
  });

  it('uses the BM25 settings given to createPostgresStores', async () => {
    const namespace = uniqueName('settings');
    const custom = await createPostgresStores({
      pool: (await instanceA()).pool,
      schema,
      keywordIndex: { k1: 1.2, b: 0.75 },
    });
    const reference = createMemoryKeywordIndex({ k1: 1.2, b: 0.75 });
    await custom.keywordIndex.add(namespace, CORPUS);
    await reference.add(namespace, CORPUS);
    const actual = await custom.keywordIndex.search(namespace, 'refund order email', { k: 3 });
    const expected = await reference.search(namespace, 'refund order email', { k: 3 });
    expect(actual.map((match) => [match.id, match.score.toFixed(9)])).toEqual(
      expected.map((match) => [match.id, match.score.toFixed(9)]),
    );
    await expect(
      createPostgresStores({ pool: (await instanceA()).pool, schema, keywordIndex: { b: 2 } }),
    ).rejects.toSatisfy(
      (error: unknown) =>
        ConfigError.isInstance(error) && error.issues[0]?.path === 'keywordIndex.b',
    );
  });
});
