import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../src/text/sentences.js';
import { contentWords, hashString, words } from '../../src/text/words.js';

describe('words', () => {
  it('lower-cases letter and digit runs, also outside ASCII', () => {
    expect(words('Café costs 3.50€, e-mail!')).toEqual(['café', 'costs', '3', '50', 'e', 'mail']);
    expect(contentWords('What is the refund policy?')).toEqual(['refund', 'policy']);
  });

  it('hashes deterministically and differently per seed', () => {
    expect(hashString('abc')).toBe(hashString('abc'));
    expect(hashString('abc')).not.toBe(hashString('abd'));
    expect(hashString('abc', 1)).not.toBe(hashString('abc'));
  });
});

describe('splitSentences', () => {
  it('splits on sentence ends with offsets that slice back to the sentence', () => {
    const text =
      'Refunds take 14 days. Dr. Smith approves them, e.g. for v2.5 items! Really?  Yes.';
    const spans = splitSentences(text);
    expect(spans.map((span) => span.text)).toEqual([
      'Refunds take 14 days.',
      'Dr. Smith approves them, e.g. for v2.5 items!',
      'Really?',
      'Yes.',
    ]);
    for (const span of spans) expect(text.slice(span.start, span.end)).toBe(span.text);
  });

  it('keeps a citation tag with its sentence and splits paragraphs and list items', () => {
    const spans = splitSentences('A fact [source: S1]. Next\n\nPara two\n- item one\n- item two');
    expect(spans.map((span) => span.text)).toEqual([
      'A fact [source: S1].',
      'Next',
      'Para two',
      '- item one',
      '- item two',
    ]);
  });

  it('gives nothing for blank text', () => {
    expect(splitSentences('  \n ')).toEqual([]);
  });
});
