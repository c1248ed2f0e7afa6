import { afterEach, beforeEach, describe, expect, it } from './runner.js';
import type { Metadata, MetadataFilter } from '../ports/common.js';
import type { KeywordIndex, KeywordRecord } from '../ports/keyword-index.js';
import {
  abortedSignal,
  expectErrorCode,
  titled,
  uniqueName,
  type SkipReasons,
  type SuiteOptions,
} from './shared.js';

/** Parts of the `KeywordIndex` contract an adapter may lack (see {@link SkipReasons}). */
export type KeywordIndexCapability = 'filters' | 'rangeFilters' | 'abort';

/** Options of {@link testKeywordIndex}. */
export interface KeywordIndexSuiteOptions extends SuiteOptions<KeywordIndex> {
  /** Prefix of the namespaces the tests create, one fresh namespace per test (default `cortexis_test`). */
  readonly namespacePrefix?: string | undefined;
  /** Capabilities the adapter lacks, with the reason printed in the skipped tests' titles. */
  readonly skip?: SkipReasons<KeywordIndexCapability> | undefined;
}

const REFUND = 'Our refund policy: a refund is issued to the customer within fourteen days.';
const SHIPPING = 'Shipping is free for orders over fifty euros, delivered by courier.';
const DIGITAL = 'Digital goods get no refund once downloaded.';

/**
 * Registers a `describe` block checking a `KeywordIndex` against the port contract:
 * matching any query term case-insensitively, ranking, `k`, replace by id, delete by ids and
 * by filter with counts, `count`, metadata filters, namespace isolation, `coverage` bounds
 * and rejection of aborted calls.
 */
export function testKeywordIndex(options: KeywordIndexSuiteOptions): void {
  const prefix = options.namespacePrefix ?? 'cortexis_test';
  const skip = options.skip ?? {};
  const record = (id: string, text: string, metadata: Metadata = {}): KeywordRecord => ({
    id,
    text,
    metadata,
  });

  describe(options.title ?? 'KeywordIndex conformance', () => {
    let index: KeywordIndex;
    let namespace: string;

    beforeEach(async () => {
      index = await options.create();
      namespace = uniqueName(prefix);
    });

    afterEach(async () => {
      await options.destroy?.(index);
    });

    async function ids(query: string, filter?: MetadataFilter): Promise<string[]> {
      const matches = await index.search(namespace, query, { k: 100, filter });
      return matches.map((match) => match.id).sort();
    }

    it('declares its name and specification version', () => {
      expect(typeof index.name).toBe('string');
      expect(index.name.length).toBeGreaterThan(0);
      expect(index.specificationVersion).toBe('v1');
    });

    it('starts empty: count is 0 and a search finds nothing', async () => {
      expect(await index.count(namespace)).toBe(0);
      expect(await index.search(namespace, 'refund', { k: 5 })).toEqual([]);
    });

    it('finds records containing any query term, best first; others are not returned', async () => {
      await index.add(namespace, [
        record('shipping', SHIPPING),
        record('digital', DIGITAL),
        record('refund', REFUND),
      ]);
      const matches = await index.search(namespace, 'refund policy', { k: 10 });
      expect(matches.map((match) => match.id)).toEqual(['refund', 'digital']);
      const [first, second] = matches;
      expect(first!.score).toBeGreaterThan(second!.score);
      for (const match of matches) expect(Number.isFinite(match.score)).toBe(true);
    });

    it('matches case-insensitively and ignores punctuation in the query', async () => {
      await index.add(namespace, [record('refund', REFUND), record('shipping', SHIPPING)]);
      expect(await ids('REFUND?')).toEqual(['refund']);
      expect(await ids('Shipping, please!')).toEqual(['shipping']);
    });

    it('finds nothing for a query of unknown words', async () => {
      await index.add(namespace, [record('refund', REFUND)]);
      expect(await index.search(namespace, 'zebra xylophone', { k: 5 })).toEqual([]);
    });

    it('reports coverage, when it does, in [0, 1] and higher for records with more query terms', async () => {
      await index.add(namespace, [record('refund', REFUND), record('digital', DIGITAL)]);
      const matches = await index.search(namespace, 'refund policy', { k: 10 });
      const coverage = Object.fromEntries(matches.map((match) => [match.id, match.coverage]));
      for (const value of Object.values(coverage)) {
        if (value === undefined) continue;
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(1);
      }
      if (coverage['refund'] !== undefined && coverage['digital'] !== undefined) {
        expect(coverage['refund']).toBeGreaterThan(coverage['digital']);
      }
    });

    it('returns at most k matches', async () => {
      await index.add(namespace, [
        record('refund', REFUND),
        record('digital', DIGITAL),
        record('more', 'A refund needs the receipt.'),
      ]);
      expect(await index.search(namespace, 'refund', { k: 2 })).toHaveLength(2);
      expect(await index.search(namespace, 'refund', { k: 10 })).toHaveLength(3);
    });

    it('returns each match with its metadata', async () => {
      // `tokenCount`: a chunk's token count stored at ingest, read back by the pack stage.
      const metadata = {
        title: 'Policy',
        page: 2,
        draft: false,
        author: null,
        tokenCount: 'cl100k_base:183',
      };
      await index.add(namespace, [record('refund', REFUND, metadata)]);
      const [match] = await index.search(namespace, 'refund', { k: 1 });
      expect(match?.metadata).toEqual(metadata);
    });

    it('replaces a record added again with the same id', async () => {
      await index.add(namespace, [record('a', REFUND, { version: 1 }), record('b', SHIPPING)]);
      await index.add(namespace, [
        record('a', 'Warranty claims take thirty days.', { version: 2 }),
      ]);
      expect(await index.count(namespace)).toBe(2);
      expect(await ids('refund')).toEqual([]);
      const [match] = await index.search(namespace, 'warranty', { k: 1 });
      expect(match?.id).toBe('a');
      expect(match?.metadata).toEqual({ version: 2 });
    });

    it('deletes by ids and returns how many were removed (unknown ids not counted)', async () => {
      await index.add(namespace, [
        record('refund', REFUND),
        record('digital', DIGITAL),
        record('shipping', SHIPPING),
      ]);
      expect(await index.delete(namespace, { ids: ['refund', 'missing'] })).toBe(1);
      expect(await index.count(namespace)).toBe(2);
      expect(await ids('refund')).toEqual(['digital']);
      expect(await index.delete(namespace, { ids: ['refund'] })).toBe(0);
    });

    it.skipIf(skip.filters)(
      titled('deletes by metadata filter and returns the count', skip.filters),
      async () => {
        await index.add(namespace, [
          record('refund', REFUND, { documentId: 'policy' }),
          record('digital', DIGITAL, { documentId: 'policy' }),
          record('shipping', SHIPPING, { documentId: 'faq' }),
        ]);
        expect(await index.delete(namespace, { filter: { documentId: 'policy' } })).toBe(2);
        expect(await index.count(namespace)).toBe(1);
        expect(await ids('refund shipping')).toEqual(['shipping']);
      },
    );

    describe('metadata filters', () => {
      beforeEach(async () => {
        await index.add(namespace, [
          record('a', 'refund rules for books', { lang: 'en', year: 2019, tag: 'x' }),
          record('b', 'refund rules for music', { lang: 'de', year: 2020, tag: 'y' }),
          record('c', 'refund rules for films', { lang: 'en', year: 2021 }),
          record('d', 'refund rules for games', { lang: 'fr', year: 2022, tag: 'x' }),
        ]);
      });

      it.skipIf(skip.filters)(titled('bare value, $eq, $ne, $in, $nin', skip.filters), async () => {
        expect(await ids('refund', { lang: 'en' })).toEqual(['a', 'c']);
        expect(await ids('refund', { lang: { $eq: 'de' } })).toEqual(['b']);
        expect(await ids('refund', { tag: { $ne: 'x' } })).toEqual(['b', 'c']);
        expect(await ids('refund', { lang: { $in: ['de', 'fr'] } })).toEqual(['b', 'd']);
        expect(await ids('refund', { lang: { $nin: ['de', 'fr'] } })).toEqual(['a', 'c']);
        expect(await ids('refund', { lang: 'en', year: 2021 })).toEqual(['c']);
      });

      it.skipIf(skip.filters ?? skip.rangeFilters)(
        titled('$gt, $gte, $lt, $lte', skip.filters ?? skip.rangeFilters),
        async () => {
          expect(await ids('refund', { year: { $gt: 2020 } })).toEqual(['c', 'd']);
          expect(await ids('refund', { year: { $gte: 2020, $lt: 2022 } })).toEqual(['b', 'c']);
          expect(await ids('refund', { year: { $lte: 2019 } })).toEqual(['a']);
        },
      );

      it.skipIf(skip.filters)(titled('a filter applies within k', skip.filters), async () => {
        const matches = await index.search(namespace, 'refund', { k: 1, filter: { lang: 'fr' } });
        expect(matches.map((match) => match.id)).toEqual(['d']);
      });
    });

    it('keeps namespaces apart for search, count and delete', async () => {
      const other = uniqueName(prefix);
      await index.add(namespace, [record('shared-id', REFUND, { owner: 'first' })]);
      await index.add(other, [
        record('shared-id', SHIPPING, { owner: 'second' }),
        record('only-other', DIGITAL),
      ]);
      expect(await index.count(namespace)).toBe(1);
      expect(await index.count(other)).toBe(2);
      expect(await ids('shipping digital')).toEqual([]);
      const [match] = await index.search(namespace, 'refund', { k: 5 });
      expect(match?.metadata).toEqual({ owner: 'first' });
      expect(await index.delete(namespace, { ids: ['only-other'] })).toBe(0);
      expect(await index.delete(other, { ids: ['shared-id'] })).toBe(1);
      expect(await index.count(namespace)).toBe(1);
    });

    it.skipIf(skip.abort)(
      titled("rejects calls with an aborted signal with code 'aborted'", skip.abort),
      async () => {
        const signal = abortedSignal();
        await expectErrorCode(
          () => index.add(namespace, [record('a', REFUND)], { signal }),
          'aborted',
          'add',
        );
        await expectErrorCode(
          () => index.search(namespace, 'refund', { k: 1, signal }),
          'aborted',
          'search',
        );
        await expectErrorCode(
          () => index.delete(namespace, { ids: ['a'] }, { signal }),
          'aborted',
          'delete',
        );
        await expectErrorCode(() => index.count(namespace, { signal }), 'aborted', 'count');
        expect(await index.count(namespace)).toBe(0);
      },
    );
  });
}
