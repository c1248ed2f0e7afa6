import { afterEach, beforeEach, describe, expect, it } from './runner.js';
import type { MetadataFilter, Metadata } from '../ports/common.js';
import type { VectorRecord, VectorStore } from '../ports/vector-store.js';
import {
  abortedSignal,
  expectErrorCode,
  titled,
  uniqueName,
  type SkipReasons,
  type SuiteOptions,
} from './shared.js';

/** Parts of the `VectorStore` contract an adapter may lack (see {@link SkipReasons}). */
export type VectorStoreCapability = 'filters' | 'rangeFilters' | 'validation' | 'abort';

/** Options of {@link testVectorStore}. */
export interface VectorStoreSuiteOptions extends SuiteOptions<VectorStore> {
  /** Length of the test vectors (default 4, at least 3); for stores with a fixed dimension. */
  readonly dimensions?: number | undefined;
  /** Prefix of the namespaces the tests create, one fresh namespace per test (default `cortexis_test`). */
  readonly namespacePrefix?: string | undefined;
  /** Capabilities the adapter lacks, with the reason printed in the skipped tests' titles. */
  readonly skip?: SkipReasons<VectorStoreCapability> | undefined;
}

/**
 * Registers a `describe` block checking a `VectorStore` against the port contract: cosine
 * ranking, `k`, replace by id, delete by ids and by filter with counts, `count`, metadata
 * filters, namespace isolation, rejection of bad vectors and of aborted calls.
 */
export function testVectorStore(options: VectorStoreSuiteOptions): void {
  const dimensions = options.dimensions ?? 4;
  if (!Number.isInteger(dimensions) || dimensions < 3) {
    throw new Error('testVectorStore: dimensions must be an integer ≥ 3');
  }
  const prefix = options.namespacePrefix ?? 'cortexis_test';
  const skip = options.skip ?? {};

  /** A vector of the suite's dimension starting with `values`, zero-padded. */
  const vec = (...values: number[]): number[] =>
    Array.from({ length: dimensions }, (_, index) => values[index] ?? 0);
  const record = (id: string, vector: number[], metadata: Metadata = {}): VectorRecord => ({
    id,
    vector,
    metadata,
  });

  describe(options.title ?? 'VectorStore conformance', () => {
    let store: VectorStore;
    let namespace: string;

    beforeEach(async () => {
      store = await options.create();
      namespace = uniqueName(prefix);
    });

    afterEach(async () => {
      await options.destroy?.(store);
    });

    async function ids(filter?: MetadataFilter): Promise<string[]> {
      const matches = await store.query(namespace, vec(1, 1, 1), { k: 100, filter });
      return matches.map((match) => match.id).sort();
    }

    it('declares its name and specification version', () => {
      expect(typeof store.name).toBe('string');
      expect(store.name.length).toBeGreaterThan(0);
      expect(store.specificationVersion).toBe('v1');
    });

    it('starts empty: count is 0 and a query finds nothing', async () => {
      expect(await store.count(namespace)).toBe(0);
      expect(await store.query(namespace, vec(1, 0, 0), { k: 5 })).toEqual([]);
    });

    it('ranks by cosine similarity (not dot product), best first, with cosine scores', async () => {
      await store.upsert(namespace, [
        record('far', vec(10, 10, 0)), // cosine 0.707, large dot product
        record('same', vec(2, 0, 0)), // cosine 1
        record('near', vec(0.9, 0.1, 0)), // cosine 0.994
        record('orthogonal', vec(0, 0, 3)), // cosine 0
        record('opposite', vec(-1, 0, 0)), // cosine -1
      ]);
      const matches = await store.query(namespace, vec(1, 0, 0), { k: 10 });
      expect(matches.map((match) => match.id)).toEqual([
        'same',
        'near',
        'far',
        'orthogonal',
        'opposite',
      ]);
      const scores = Object.fromEntries(matches.map((match) => [match.id, match.score]));
      expect(scores['same']).toBeCloseTo(1, 4);
      expect(scores['near']).toBeCloseTo(0.9 / Math.hypot(0.9, 0.1), 4);
      expect(scores['far']).toBeCloseTo(Math.SQRT1_2, 4);
      expect(scores['orthogonal']).toBeCloseTo(0, 4);
      expect(scores['opposite']).toBeCloseTo(-1, 4);
    });

    it('accepts Float32Array and plain arrays for records and queries', async () => {
      await store.upsert(namespace, [
        { id: 'typed', vector: Float32Array.from(vec(0, 1, 0)), metadata: {} },
        record('plain', vec(1, 0, 0)),
      ]);
      const typed = await store.query(namespace, Float32Array.from(vec(1, 0, 0)), { k: 1 });
      expect(typed.map((match) => match.id)).toEqual(['plain']);
      const plain = await store.query(namespace, vec(0, 1, 0), { k: 1 });
      expect(plain.map((match) => match.id)).toEqual(['typed']);
    });

    it('returns at most k matches, and all of them when k exceeds the count', async () => {
      await store.upsert(namespace, [
        record('a', vec(1, 0, 0)),
        record('b', vec(1, 1, 0)),
        record('c', vec(0, 1, 0)),
      ]);
      const two = await store.query(namespace, vec(1, 0, 0), { k: 2 });
      expect(two.map((match) => match.id)).toEqual(['a', 'b']);
      expect(await store.query(namespace, vec(1, 0, 0), { k: 50 })).toHaveLength(3);
    });

    it('returns each match with its metadata', async () => {
      // `tokenCount`: a chunk's token count stored at ingest, read back by the pack stage.
      const metadata = {
        title: 'Handbook',
        page: 3,
        draft: false,
        author: null,
        tokenCount: 'cl100k_base:183',
      };
      await store.upsert(namespace, [record('a', vec(1, 0, 0), metadata)]);
      const [match] = await store.query(namespace, vec(1, 0, 0), { k: 1 });
      expect(match?.id).toBe('a');
      expect(match?.metadata).toEqual(metadata);
    });

    it('replaces a record upserted again with the same id', async () => {
      await store.upsert(namespace, [
        record('a', vec(1, 0, 0), { version: 1 }),
        record('b', vec(0, 1, 0)),
      ]);
      await store.upsert(namespace, [record('a', vec(0, 0, 1), { version: 2 })]);
      expect(await store.count(namespace)).toBe(2);
      const [best] = await store.query(namespace, vec(0, 0, 1), { k: 1 });
      expect(best?.id).toBe('a');
      expect(best?.metadata).toEqual({ version: 2 });
      const old = await store.query(namespace, vec(1, 0, 0), { k: 3 });
      expect(old.find((match) => match.id === 'a')?.score).toBeCloseTo(0, 4);
    });

    it('counts records per namespace', async () => {
      await store.upsert(namespace, [record('a', vec(1, 0, 0)), record('b', vec(0, 1, 0))]);
      await store.upsert(namespace, [record('c', vec(0, 0, 1))]);
      expect(await store.count(namespace)).toBe(3);
    });

    it('deletes by ids and returns how many were removed (unknown ids not counted)', async () => {
      await store.upsert(namespace, [
        record('a', vec(1, 0, 0)),
        record('b', vec(0, 1, 0)),
        record('c', vec(0, 0, 1)),
      ]);
      expect(await store.delete(namespace, { ids: ['a', 'c', 'missing'] })).toBe(2);
      expect(await store.count(namespace)).toBe(1);
      expect(await ids()).toEqual(['b']);
      expect(await store.delete(namespace, { ids: ['a'] })).toBe(0);
    });

    it.skipIf(skip.filters)(
      titled('deletes by metadata filter and returns the count', skip.filters),
      async () => {
        await store.upsert(namespace, [
          record('a', vec(1, 0, 0), { documentId: 'doc1' }),
          record('b', vec(0, 1, 0), { documentId: 'doc1' }),
          record('c', vec(0, 0, 1), { documentId: 'doc2' }),
        ]);
        expect(await store.delete(namespace, { filter: { documentId: 'doc1' } })).toBe(2);
        expect(await ids()).toEqual(['c']);
        expect(await store.delete(namespace, { filter: { documentId: 'doc1' } })).toBe(0);
      },
    );

    describe('metadata filters', () => {
      beforeEach(async () => {
        await store.upsert(namespace, [
          record('a', vec(1, 0, 0), { lang: 'en', year: 2019, tag: 'x', draft: false }),
          record('b', vec(1, 1, 0), { lang: 'de', year: 2020, tag: 'y', draft: true }),
          record('c', vec(0, 1, 0), { lang: 'en', year: 2021, draft: false }),
          record('d', vec(0, 1, 1), { lang: 'fr', year: 2022, tag: 'x', draft: false }),
        ]);
      });

      it.skipIf(skip.filters)(
        titled('bare value and $eq mean equality', skip.filters),
        async () => {
          expect(await ids({ lang: 'en' })).toEqual(['a', 'c']);
          expect(await ids({ lang: { $eq: 'de' } })).toEqual(['b']);
          expect(await ids({ draft: true })).toEqual(['b']);
          expect(await ids({ year: 2021 })).toEqual(['c']);
        },
      );

      it.skipIf(skip.filters)(
        titled('$ne excludes the value; a missing field counts as not equal', skip.filters),
        async () => {
          expect(await ids({ tag: { $ne: 'x' } })).toEqual(['b', 'c']);
        },
      );

      it.skipIf(skip.filters)(titled('$in and $nin', skip.filters), async () => {
        expect(await ids({ lang: { $in: ['de', 'fr'] } })).toEqual(['b', 'd']);
        expect(await ids({ lang: { $nin: ['de', 'fr'] } })).toEqual(['a', 'c']);
      });

      it.skipIf(skip.filters)(titled('several fields must all hold', skip.filters), async () => {
        expect(await ids({ lang: 'en', draft: false, year: { $in: [2021, 2022] } })).toEqual(['c']);
      });

      it.skipIf(skip.filters ?? skip.rangeFilters)(
        titled('$gt, $gte, $lt, $lte on numbers and strings', skip.filters ?? skip.rangeFilters),
        async () => {
          expect(await ids({ year: { $gt: 2020 } })).toEqual(['c', 'd']);
          expect(await ids({ year: { $gte: 2020 } })).toEqual(['b', 'c', 'd']);
          expect(await ids({ year: { $lt: 2020 } })).toEqual(['a']);
          expect(await ids({ year: { $lte: 2020 } })).toEqual(['a', 'b']);
          expect(await ids({ year: { $gt: 2019, $lt: 2022 } })).toEqual(['b', 'c']);
          expect(await ids({ lang: { $gte: 'en' } })).toEqual(['a', 'c', 'd']);
        },
      );

      it.skipIf(skip.filters)(titled('a filter applies within k', skip.filters), async () => {
        const matches = await store.query(namespace, vec(1, 0, 0), {
          k: 1,
          filter: { lang: 'fr' },
        });
        expect(matches.map((match) => match.id)).toEqual(['d']);
      });
    });

    it('keeps namespaces apart for query, count and delete', async () => {
      const other = uniqueName(prefix);
      await store.upsert(namespace, [record('shared-id', vec(1, 0, 0), { owner: 'first' })]);
      await store.upsert(other, [
        record('shared-id', vec(0, 1, 0), { owner: 'second' }),
        record('only-other', vec(0, 0, 1)),
      ]);
      expect(await store.count(namespace)).toBe(1);
      expect(await store.count(other)).toBe(2);
      const matches = await store.query(namespace, vec(0, 0, 1), { k: 10 });
      expect(matches.map((match) => [match.id, match.metadata['owner']])).toEqual([
        ['shared-id', 'first'],
      ]);
      expect(await store.delete(namespace, { ids: ['only-other'] })).toBe(0);
      expect(await store.delete(other, { ids: ['shared-id'] })).toBe(1);
      expect(await store.count(namespace)).toBe(1);
      expect(await store.count(other)).toBe(1);
    });

    it.skipIf(skip.validation)(
      titled(
        'rejects a vector of another dimension and NaN values with a validation error',
        skip.validation,
      ),
      async () => {
        await store.upsert(namespace, [record('a', vec(1, 0, 0))]);
        await expectErrorCode(
          () => store.upsert(namespace, [record('b', [...vec(1, 0, 0), 1])]),
          'validation_error',
          'upsert of a longer vector',
        );
        await expectErrorCode(
          () => store.query(namespace, vec(1, 0, 0).slice(1), { k: 1 }),
          'validation_error',
          'query with a shorter vector',
        );
        await expectErrorCode(
          () => store.upsert(namespace, [record('c', vec(1, Number.NaN, 0))]),
          'validation_error',
          'upsert of a vector containing NaN',
        );
        expect(await ids()).toEqual(['a']);
      },
    );

    it.skipIf(skip.abort)(
      titled("rejects calls with an aborted signal with code 'aborted'", skip.abort),
      async () => {
        const signal = abortedSignal();
        await expectErrorCode(
          () => store.upsert(namespace, [record('a', vec(1, 0, 0))], { signal }),
          'aborted',
          'upsert',
        );
        await expectErrorCode(
          () => store.query(namespace, vec(1, 0, 0), { k: 1, signal }),
          'aborted',
          'query',
        );
        await expectErrorCode(
          () => store.delete(namespace, { ids: ['a'] }, { signal }),
          'aborted',
          'delete',
        );
        await expectErrorCode(() => store.count(namespace, { signal }), 'aborted', 'count');
        expect(await store.count(namespace)).toBe(0);
      },
    );
  });
}
