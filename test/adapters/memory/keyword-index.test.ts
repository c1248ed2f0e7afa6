import { describe, expect, it } from 'vitest';

import { createMemoryKeywordIndex } from '../../../src/adapters/memory/keyword-index.js';
import { bm25Idf } from '../../../src/query/bm25.js';
import { AbortError, ValidationError } from '../../../src/errors/index.js';

const records = [
  { id: 'a', text: 'Cats chase mice. Cats sleep.', metadata: { animal: 'cat' } },
  { id: 'b', text: 'Dogs chase cats in the park', metadata: { animal: 'dog' } },
  { id: 'c', text: 'Birds sing', metadata: { animal: 'bird' } },
];

/** BM25 of one term, written out independently of the implementation. */
function bm25(
  tf: number,
  df: number,
  n: number,
  length: number,
  average: number,
  k1 = 0.9,
  b = 0.4,
): number {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * length) / average));
}

describe('createMemoryKeywordIndex', () => {
  it('scores with BM25 as computed by hand', async () => {
    const index = createMemoryKeywordIndex();
    await index.add('ns', records);
    // Terms without stop words: a = cats chase mice cats sleep (5), b = dogs chase cats park (4), c = birds sing (2)
    const average = 11 / 3;
    const matches = await index.search('ns', 'cats', { k: 10 });
    expect(matches.map((match) => match.id)).toEqual(['a', 'b']);
    expect(matches[0]!.score).toBeCloseTo(bm25(2, 2, 3, 5, average), 10);
    expect(matches[1]!.score).toBeCloseTo(bm25(1, 2, 3, 4, average), 10);
    // By hand: idf = ln(1 + 1.5/2.5) = 0.470004; a = 0.470004·2·1.9 / (2 + 0.9·(0.6 + 0.4·5/(11/3))) = 1.786015 / 3.030909
    expect(matches[0]!.score).toBeCloseTo(0.58927, 4);
  });

  it('sums terms and reports IDF-weighted coverage, unknown terms at max IDF', async () => {
    const index = createMemoryKeywordIndex();
    await index.add('ns', records);
    const [best] = await index.search('ns', 'dogs chase', { k: 1 });
    expect(best!.id).toBe('b');
    expect(best!.coverage).toBeCloseTo(1, 10);
    const [partial] = await index.search('ns', 'birds unicorn', { k: 1 });
    expect(partial!.id).toBe('c');
    expect(partial!.coverage).toBeCloseTo(bm25Idf(3, 1) / (bm25Idf(3, 1) + bm25Idf(3, 0)), 10);
    expect(partial!.coverage).toBeLessThan(0.5);
  });

  it('ignores case and stop words; a stop-word-only query finds nothing', async () => {
    const index = createMemoryKeywordIndex();
    await index.add('ns', records);
    expect((await index.search('ns', 'THE BIRDS', { k: 5 })).map((match) => match.id)).toEqual([
      'c',
    ]);
    expect(await index.search('ns', 'the and of', { k: 5 })).toEqual([]);
  });

  it('keeps document statistics right after replace and delete', async () => {
    const index = createMemoryKeywordIndex();
    await index.add('ns', records);
    await index.add('ns', [{ id: 'c', text: 'Cats purr loudly', metadata: { animal: 'cat' } }]);
    await index.delete('ns', { ids: ['b'] });
    const fresh = createMemoryKeywordIndex();
    await fresh.add('ns', [
      records[0]!,
      { id: 'c', text: 'Cats purr loudly', metadata: { animal: 'cat' } },
    ]);
    const updated = await index.search('ns', 'cats purr birds', { k: 5 });
    const rebuilt = await fresh.search('ns', 'cats purr birds', { k: 5 });
    expect(updated).toEqual(rebuilt);
    expect(await index.search('ns', 'sing', { k: 5 })).toEqual([]);
    expect(await index.count('ns')).toBe(2);
  });

  it('filters by metadata and deletes by filter', async () => {
    const index = createMemoryKeywordIndex();
    await index.add('ns', records);
    const matches = await index.search('ns', 'cats', { k: 5, filter: { animal: { $ne: 'cat' } } });
    expect(matches.map((match) => match.id)).toEqual(['b']);
    expect(await index.delete('ns', { filter: { animal: 'cat' } })).toBe(1);
    expect((await index.search('ns', 'cats', { k: 5 })).map((match) => match.id)).toEqual(['b']);
  });

  it('keeps namespaces isolated, including their statistics', async () => {
    const index = createMemoryKeywordIndex();
    await index.add('one', records);
    await index.add('two', [{ id: 'a', text: 'cats', metadata: {} }]);
    const [match] = await index.search('two', 'cats', { k: 5 });
    expect(match!.score).toBeCloseTo(bm25(1, 1, 1, 1, 1), 10);
    expect(await index.count('one')).toBe(3);
    expect(await index.search('three', 'cats', { k: 5 })).toEqual([]);
  });

  it('returns the k best, best first, with ties broken by id', async () => {
    const index = createMemoryKeywordIndex();
    await index.add(
      'ns',
      Array.from({ length: 300 }, (_, i) => ({
        id: `d${String(i).padStart(3, '0')}`,
        text: 'alpha '.repeat(1 + (i % 7)),
        metadata: {},
      })),
    );
    const matches = await index.search('ns', 'alpha', { k: 4 });
    expect(matches.map((match) => match.id)).toEqual(['d006', 'd013', 'd020', 'd027']);
  });

  it('honours k1 and b settings', async () => {
    const index = createMemoryKeywordIndex({ k1: 1.2, b: 0.75 });
    await index.add('ns', records);
    const [match] = await index.search('ns', 'cats', { k: 1 });
    expect(match!.score).toBeCloseTo(bm25(2, 2, 3, 5, 11 / 3, 1.2, 0.75), 10);
  });

  it('posts given terms alike in any order: runs of one term, repeats apart, replaced documents', async () => {
    const records = (order: 'text' | 'runs') =>
      [
        ['a', 'cell cell divid cell grow grow'],
        ['b', 'grow cell protein protein'],
        ['a', 'protein cell cell'],
        ['c', 'divid divid divid'],
      ].map(([id, text]) => {
        const terms = text!.split(' ');
        const runs = [...new Set(terms)].flatMap((term) => terms.filter((t) => t === term));
        return { id: id!, text: text!, metadata: {}, terms: order === 'text' ? terms : runs };
      });
    const analysed = createMemoryKeywordIndex({ tokenize: (text) => text.split(' ') });
    for (const record of records('text'))
      await analysed.add('n', [{ ...record, terms: undefined }]);
    for (const order of ['text', 'runs'] as const) {
      const index = createMemoryKeywordIndex({ tokenize: (text) => text.split(' ') });
      for (const record of records(order)) await index.add('n', [record]);
      // The same postings, lengths and statistics as analysing the texts.
      expect(index.snapshot()).toEqual(analysed.snapshot());
      const hits = await index.search('n', 'cell', { k: 3 });
      expect(hits.map((hit) => hit.id)).toEqual(['a', 'b']);
    }
  });

  it('rejects bad input with typed errors', async () => {
    const index = createMemoryKeywordIndex();
    await expect(index.add('', records)).rejects.toThrow(ValidationError);
    await expect(index.add('ns', [{ id: '', text: 'x', metadata: {} }])).rejects.toThrow(
      /records\.0\.id/,
    );
    await expect(index.search('ns', 'x', { k: 0 })).rejects.toThrow(ValidationError);
    await expect(
      index.search('ns', 'x', { k: 1, filter: { a: { $in: 1 } as never } }),
    ).rejects.toThrow(/filter\.a\.\$in/);
    const controller = new AbortController();
    controller.abort();
    await expect(index.search('ns', 'x', { k: 1, signal: controller.signal })).rejects.toThrow(
      AbortError,
    );
  });
});

describe('top-k selection', () => {
  it('returns exactly the first k of the full ranking, ties included, for every k', async () => {
    const index = createMemoryKeywordIndex();
    let seed = 7;
    const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    const vocabulary = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
    // Few distinct texts among many records: many exactly tied scores.
    const records = Array.from({ length: 300 }, (_, number) => ({
      id: `r${number}`,
      metadata: {},
      text: Array.from(
        { length: 1 + Math.floor(next() * 4) },
        () => vocabulary[Math.floor(next() * vocabulary.length)],
      ).join(' '),
    }));
    await index.add('ns', records);
    for (const query of ['alpha', 'alpha beta', 'gamma delta omega']) {
      const full = await index.search('ns', query, { k: 1000 });
      for (const k of [1, 2, 5, 17, 50, 299]) {
        expect(await index.search('ns', query, { k }), `${query} k=${k}`).toEqual(full.slice(0, k));
      }
    }
  });
});
