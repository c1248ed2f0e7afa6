import { describe, expect, it } from 'vitest';
import {
  analyse,
  contentStems,
  contentStemsOf,
  tokensOf,
} from '../../../src/pipeline/judge/contradiction-analysis.js';
import { quantitiesOf } from '../../../src/pipeline/judge/contradiction-quantities.js';
import { prepareSource } from '../../../src/pipeline/judge/source.js';
import { splitSentences } from '../../../src/text/sentences.js';
import { forgetTextAnalyses } from '../../../src/util/second-sight.js';

const TEXT =
  'Refunds are paid within 5 business days of the request. Shipping is never refunded. ' +
  'Orders above 50 euros ship for free.';

describe('analyse (the contradiction checks’ sentences)', () => {
  it('analyses a prepared source once for every claim checked against it', () => {
    forgetTextAnalyses();
    const source = prepareSource(TEXT);
    const first = analyse(source.text, source.sentences);
    expect(analyse(source.text, source.sentences)).toBe(first);
    expect(first.map((sentence) => sentence.text)).toEqual(
      source.sentences.map(({ start, end }) => TEXT.slice(start, end)),
    );
  });

  it('keeps a text’s analysis from its second sight on, not its first', () => {
    forgetTextAnalyses();
    const spans = () => splitSentences(TEXT).map(({ start, end }) => ({ start, end }));
    const first = analyse(TEXT, spans());
    const second = analyse(TEXT, spans());
    const third = analyse(TEXT, spans());
    expect(second).not.toBe(first);
    expect(third).toBe(second);
    expect(second).toEqual(first);
  });

  it('does not answer for other spans of the same text', () => {
    forgetTextAnalyses();
    const whole = [{ start: 0, end: TEXT.length }];
    analyse(TEXT, splitSentences(TEXT));
    analyse(TEXT, splitSentences(TEXT));
    const one = analyse(TEXT, whole);
    expect(one).toHaveLength(1);
    expect(one[0]!.text).toBe(TEXT);
  });
});

describe('contentStemsOf and the lazy analysis', () => {
  const texts = [
    TEXT,
    "Don't refund it: we cannot, won't and never will. Nobody said none of 3 cases, NOR 12%.",
    'Il n’a pas été remboursé; Müller’s 2nd trial (n = 32) showed no effect without dosing.',
    'IL-6 and TNF-α levels did not differ; neither group’s 1,000 mg dose was toxic.',
    '',
  ];

  it('gives the content stems of the tokens, in order', () => {
    for (const text of texts) {
      expect([...contentStemsOf(text)]).toEqual([...contentStems(tokensOf(text))]);
    }
  });

  it('gives each sentence the terms, tokens and quantities of its text', () => {
    forgetTextAnalyses();
    for (const text of texts) {
      for (const sentence of analyse(text, splitSentences(text))) {
        expect([...sentence.terms]).toEqual([...contentStems(tokensOf(sentence.text))]);
        expect(sentence.tokens).toEqual(tokensOf(sentence.text));
        expect(sentence.quantities).toEqual(quantitiesOf(sentence.text));
        expect(sentence.tokens).toBe(sentence.tokens);
      }
    }
  });
});
