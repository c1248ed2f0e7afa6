import { describe, expect, it } from 'vitest';

import {
  addDocument,
  createSpace,
  removeDocument,
  type Space,
} from '../../../src/adapters/memory/keyword-postings.js';
import {
  queryTerms,
  search,
  type SearchCounts,
} from '../../../src/adapters/memory/keyword-scoring.js';
import {
  snapshotSpaces,
  spacesFromSnapshot,
} from '../../../src/adapters/memory/keyword-snapshot.js';
import type { KeywordMatch, KeywordSearchOptions } from '../../../src/ports/keyword-index.js';
import { bm25Idf } from '../../../src/query/bm25.js';
import { compileFilter } from '../../../src/query/filter.js';
import { seededRandom as random } from '../../util/helpers.js';

const bm25 = { k1: 0.9, b: 0.4 };
const split = (text: string): string[] => text.split(' ');

/** A word drawn with Zipf-like frequencies: `w0` in most documents, `w299` in few. */
const word = (next: () => number): string => `w${Math.floor(300 * next() ** 3)}`;

/** Every posting of every term scored, in the query's term order: the search without pruning. */
function reference(
  space: Space,
  terms: Map<string, number>,
  options: KeywordSearchOptions,
): KeywordMatch[] {
  const scores = new Map<number, number>();
  const matched = new Map<number, number>();
  const average = space.totalLength / space.count || 1;
  let totalIdf = 0;
  for (const [term, queryFrequency] of terms) {
    const list = space.postings.get(term);
    if (list === undefined) {
      totalIdf += bm25Idf(space.count, 0);
      continue;
    }
    const idf = bm25Idf(space.count, list.documents.length);
    totalIdf += idf;
    const weight = idf * queryFrequency * (bm25.k1 + 1);
    list.documents.forEach((number, at) => {
      const frequency = list.frequencies[at]!;
      const score =
        (weight * frequency) /
        (frequency +
          bm25.k1 * (1 - bm25.b) +
          ((bm25.k1 * bm25.b) / average) * space.lengths[number]!);
      scores.set(number, (scores.get(number) ?? 0) + score);
      matched.set(number, (matched.get(number) ?? 0) + idf);
    });
  }
  const allowed = compileFilter(options.filter);
  return [...scores]
    .filter(([number]) => allowed(space.metadata[number]!))
    .map(([number, score]) => ({
      id: space.ids[number]!,
      score,
      coverage: Math.min(1, matched.get(number)! / totalIdf),
      metadata: space.metadata[number]!,
    }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, options.k);
}

describe('memory keyword scoring', () => {
  it('returns exactly the matches of scoring every posting (ids, scores, coverage, order)', () => {
    const next = random(27);
    const space = createSpace();
    const text = (): string =>
      Array.from({ length: 3 + Math.floor(next() * 40) }, () => word(next)).join(' ');
    for (let n = 0; n < 3000; n++) {
      addDocument(
        space,
        { id: `d${n}`, text: text(), metadata: { documentId: `doc${n % 1500}`, part: n % 3 } },
        split,
      );
    }
    // Replaced and deleted documents: reused numbers, swapped postings.
    for (let n = 0; n < 300; n++) {
      const id = `d${Math.floor(next() * 3000)}`;
      if (n % 2 === 0) removeDocument(space, id);
      else addDocument(space, { id, text: text(), metadata: { documentId: id, part: 1 } }, split);
    }
    let compared = 0;
    for (let q = 0; q < 120; q++) {
      const query = [...Array.from({ length: 1 + Math.floor(next() * 8) }, () => word(next))];
      if (q % 7 === 0) query.push('absent');
      const terms = queryTerms(query);
      const documentIds = Array.from({ length: 12 }, () => `doc${Math.floor(next() * 1500)}`);
      for (const options of [
        { k: 1 + Math.floor(next() * 60) },
        { k: 5 },
        { k: 40, filter: { part: 2 } },
        { k: 96, filter: { documentId: { $in: documentIds } } },
        { k: 3, filter: { documentId: documentIds[0]!, part: { $ne: 1 } } },
      ]) {
        expect(search(space, terms, options, bm25)).toEqual(reference(space, terms, options));
        compared++;
      }
    }
    expect(compared).toBe(600);
  });

  it('scores only the documents that can reach the k best once the rare terms are read', () => {
    const space = createSpace();
    for (let n = 0; n < 2000; n++) {
      const words = n % 200 === 0 ? 'rare common' : `common filler${n % 7}`;
      addDocument(space, { id: `d${n}`, text: words, metadata: {} }, split);
    }
    const terms = queryTerms(['common', 'rare']);
    const counts: SearchCounts = { scored: 0 };
    const matches = search(space, terms, { k: 5 }, bm25, counts);
    expect(matches.map((match) => match.id)).toEqual(['d0', 'd1000', 'd1200', 'd1400', 'd1600']);
    expect(matches).toEqual(reference(space, terms, { k: 5 }));
    // The ten documents with "rare", not the 2,000 with "common".
    expect(counts.scored).toBe(10);
    // With k above the rare term's documents, every document with either term is scored.
    search(space, terms, { k: 11 }, bm25, counts);
    expect(counts.scored).toBe(2000);
  });

  it('seeks in long ascending lists, and reads whole a list a delete unordered', () => {
    const next = random(11);
    const space = createSpace();
    // "common" is in every document; "rare" and the "topic" words in few.
    for (let n = 0; n < 6000; n++) {
      const extra = n % 300 === 0 ? ' rare' : n % 40 === 0 ? ` topic${n % 3}` : '';
      const filler = Array.from({ length: 1 + Math.floor(next() * 12) }, () => word(next));
      addDocument(
        space,
        { id: `d${n}`, text: `common ${filler.join(' ')}${extra}`, metadata: {} },
        split,
      );
    }
    const ascending = (term: string): boolean => space.postings.get(term)!.ascending;
    expect(ascending('common')).toBe(true);
    const queries = [
      ['rare', 'common'],
      ['topic1', 'common', 'w0'],
      ['common', 'topic2', 'rare'],
    ];
    const check = (expectSought: boolean, asked = queries): void => {
      for (const query of asked) {
        for (const k of [3, 10, 25]) {
          const counts: SearchCounts = { scored: 0 };
          const terms = queryTerms(query);
          expect(search(space, terms, { k }, bm25, counts)).toEqual(reference(space, terms, { k }));
          if (expectSought) expect(counts.sought).toBeGreaterThan(0);
          else expect(counts.sought).toBe(0);
        }
      }
    };
    check(true);
    // A delete moves the last posting of each of the document's lists into its place.
    removeDocument(space, 'd17');
    expect(ascending('common')).toBe(false);
    expect(ascending('rare')).toBe(true);
    // "common" is read whole now ("rare" is too short to seek in); the others stay exact.
    check(false, [['rare', 'common']]);
    for (const query of queries) {
      const terms = queryTerms(query);
      expect(search(space, terms, { k: 10 }, bm25)).toEqual(reference(space, terms, { k: 10 }));
    }
    // Restored lists are ascending again when they are.
    const fresh = createSpace();
    for (let n = 0; n < 3; n++)
      addDocument(fresh, { id: `e${n}`, text: 'a b', metadata: {} }, split);
    removeDocument(fresh, 'e2');
    expect(fresh.postings.get('a')!.ascending).toBe(true);
    // The freed number is reused by the next document, after higher ones in "a"'s list.
    addDocument(fresh, { id: 'e3', text: 'c', metadata: {} }, split);
    addDocument(fresh, { id: 'e4', text: 'a', metadata: {} }, split);
    expect(fresh.postings.get('a')!.documents).toEqual([0, 1, 3]);
    expect(fresh.postings.get('a')!.ascending).toBe(true);
    removeDocument(fresh, 'e0');
    addDocument(fresh, { id: 'e5', text: 'a', metadata: {} }, split);
    expect(fresh.postings.get('a')!.documents).toEqual([3, 1, 0]);
    expect(fresh.postings.get('a')!.ascending).toBe(false);
    // A restored snapshot knows which of its lists are ascending.
    const restored = spacesFromSnapshot(snapshotSpaces(new Map([['ns', fresh]]))).get('ns')!;
    expect(restored.postings.get('a')!.ascending).toBe(false);
    expect(restored.postings.get('b')!.ascending).toBe(true);
  });

  it('drops the seen documents that can no longer reach the k best before a long list', () => {
    const next = random(5);
    const space = createSpace();
    // "rare" in 60 documents (some twice), "mid" in 600, "common" in all 6,000.
    for (let n = 0; n < 6000; n++) {
      const rare = n % 100 === 0 ? (n % 300 === 0 ? ' rare rare' : ' rare') : '';
      const mid = n % 10 === 0 ? ' mid' : '';
      const filler = Array.from({ length: 1 + Math.floor(next() * 12) }, () => word(next));
      addDocument(
        space,
        { id: `d${n}`, text: `common ${filler.join(' ')}${mid}${rare}`, metadata: {} },
        split,
      );
    }
    const terms = queryTerms(['common', 'mid', 'rare']);
    const counts: SearchCounts = { scored: 0 };
    expect(search(space, terms, { k: 10 }, bm25, counts)).toEqual(
      reference(space, terms, { k: 10 }),
    );
    // The pass closes after "rare" (60 documents seen); once "mid" is read, fewer of them can
    // still reach the 10 best, and only those are sought in "common".
    expect(counts.scored).toBe(60);
    expect(counts.alive).toBeGreaterThanOrEqual(10);
    expect(counts.alive).toBeLessThan(30);
    expect(counts.sought).toBeGreaterThan(0);
  });

  it('keeps every match exact with many terms of graded frequencies and ties', () => {
    const next = random(91);
    const space = createSpace();
    // Few distinct lengths and frequencies: many documents tie on their sums.
    for (let n = 0; n < 4000; n++) {
      const words = Array.from({ length: 2 + Math.floor(next() * 6) }, () => word(next));
      addDocument(space, { id: `d${n}`, text: words.join(' '), metadata: {} }, split);
    }
    let compared = 0;
    for (let q = 0; q < 150; q++) {
      const query = Array.from({ length: 3 + Math.floor(next() * 12) }, () => word(next));
      const terms = queryTerms(query);
      for (const k of [1, 2, 7, 30, 200]) {
        expect(search(space, terms, { k }, bm25)).toEqual(reference(space, terms, { k }));
        compared++;
      }
    }
    expect(compared).toBe(750);
  });

  it('scores only the documents a documentId filter names', () => {
    const space = createSpace();
    for (let n = 0; n < 500; n++) {
      addDocument(
        space,
        { id: `d${n}`, text: 'common word', metadata: { documentId: `doc${n}` } },
        split,
      );
    }
    const counts: SearchCounts = { scored: 0 };
    const options = { k: 10, filter: { documentId: { $in: ['doc3', 'doc9', 'none'] } } };
    const terms = queryTerms(['word']);
    expect(search(space, terms, options, bm25, counts).map((match) => match.id)).toEqual([
      'd3',
      'd9',
    ]);
    expect(counts.scored).toBe(2);
  });
});
