import { describe, expect, it } from 'vitest';
import {
  analyse,
  contentStems,
  contentStemsOf,
  tokensOf,
} from '../../../src/pipeline/judge/contradiction-analysis.js';
import { prepareSource, termsOf } from '../../../src/pipeline/judge/source.js';
import { splitSentences } from '../../../src/text/sentences.js';
import { forgetTextAnalyses } from '../../../src/util/second-sight.js';
import { settledHeap } from '../../fixtures/heap.js';

// Words the one pass treats apart: stop words, negators, numbers, mixed case, markup, and the
// apostrophe forms that send a text to the general path.
const WORDS = [
  ...'Refunds are NOT paid within 5 2nd days never Nobody none neither nor cannot'.split(' '),
  ...'without nothing no IL-6 TNF x2 the of a mice. cells; ? ! U.S. e.g. Müller TNF-α …'.split(' '),
  '(n = 32)',
  '`code`',
  '- item',
  '\n\n## Heading\n',
  '| a | b |',
  "don't",
  "Won'T",
  "it's",
];

function randomTexts(count: number, seed: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(next() * 40) }, () => {
      const word = WORDS[Math.floor(next() * WORDS.length)]!;
      return next() < 0.2 ? `${word}.` : word;
    }).join(next() < 0.1 ? '  ' : ' '),
  );
}

describe('prepareSource: the support terms and the contradiction stems in one pass', () => {
  const texts = [
    'Refunds are paid within 5 business days of the request. Shipping is never refunded.',
    "Don't refund it: we cannot, won't and never will. Nobody said none of 3 cases, NOR 12%.",
    'IL-6 and TNF-α levels did not differ; neither group’s 1,000 mg dose was toxic.',
    '',
    ...randomTexts(2_000, 7),
  ];

  it('gives each sentence the terms of its text, as the sentence alone gives them', () => {
    for (const text of texts) {
      const prepared = prepareSource(text);
      const spans = splitSentences(text);
      expect(prepared.sentences.map(({ start, end }) => [start, end])).toEqual(
        spans.map(({ start, end }) => [start, end]),
      );
      prepared.sentences.forEach((sentence, index) => {
        expect(sentence.sequence).toEqual(termsOf(spans[index]!.text));
      });
      expect(prepared.lower).toBe(text.toLowerCase());
    }
  });

  it('gives the contradiction checks the content stems of each sentence, in order', () => {
    forgetTextAnalyses();
    for (const text of texts) {
      const prepared = prepareSource(text);
      for (const sentence of analyse(prepared.text, prepared.sentences)) {
        expect([...sentence.terms]).toEqual([...contentStemsOf(sentence.text)]);
        expect([...sentence.terms]).toEqual([...contentStems(tokensOf(sentence.text))]);
      }
    }
  });

  it('computes the stems in the same pass for an ASCII sentence without "\'t", not otherwise', () => {
    const plain = prepareSource('Refunds are not paid after 30 days. Nobody pays twice.');
    expect(plain.sentences.every((sentence) => sentence.contentStems !== undefined)).toBe(true);
    expect([...plain.sentences[0]!.contentStems!]).toEqual(['refund', 'paid', 'day']);
    const mixed = prepareSource("Refunds aren't paid. Café refunds are paid. Refunds are paid.");
    expect(mixed.sentences.map((sentence) => sentence.contentStems !== undefined)).toEqual([
      false,
      false,
      true,
    ]);
  });
});

describe("the judge's stem cache", () => {
  it('keeps a long word, not the text it was cut from', () => {
    const heap = settledHeap();
    const before = heap();
    for (let index = 0; index < 60; index++) {
      // A 200,000-character text with one long word of its own, in the judge's stem cache.
      const filler = 'lorem ipsum dolor '.repeat(11_000);
      termsOf(`${filler} unprecedentedness${index}x ${filler}`);
    }
    // Kept whole, the texts would be 12 MB.
    expect(heap() - before).toBeLessThan(4 * 2 ** 20);
  });
});
