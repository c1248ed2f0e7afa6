import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../src/text/sentences.js';
import { contentWords, hashString, words } from '../../src/text/words.js';

describe('words', () => {
  it('lower-cases letter and digit runs, also outside ASCII (accents folded)', () => {
    expect(words('Café costs 3.50€, e-mail!')).toEqual(['cafe', 'costs', '3', '50', 'e', 'mail']);
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

describe('splitSentences: abbreviations, headings and tables', () => {
  const texts = (text: string) => splitSentences(text).map((span) => span.text);

  it('treats No., etc. and single letters by what follows', () => {
    expect(texts('The answer is no. We refuse to pay.')).toEqual([
      'The answer is no.',
      'We refuse to pay.',
    ]);
    expect(texts('See No. 5 for details.')).toEqual(['See No. 5 for details.']);
    expect(texts('Apples, pears etc. The next line.')).toEqual([
      'Apples, pears etc.',
      'The next line.',
    ]);
    expect(texts('We used vitamin D. It helped.')).toEqual(['We used vitamin D.', 'It helped.']);
    expect(texts('John F. Kennedy spoke.')).toEqual(['John F. Kennedy spoke.']);
  });

  it('ends a sentence after a heading line and around table rows', () => {
    expect(texts('# Heading\nText here.')).toEqual(['# Heading', 'Text here.']);
    expect(texts('Intro:\n| a | b |\n| --- | --- |\n| 1 | 2 |\nAfter.')).toEqual([
      'Intro:',
      '| a | b |',
      '| --- | --- |',
      '| 1 | 2 |',
      'After.',
    ]);
  });
});
