import { describe, expect, it } from 'vitest';
import { splitSentences } from '../../src/text/sentences.js';

const texts = (text: string) => splitSentences(text).map((span) => span.text);

describe('splitSentences: an ellipsis inside brackets', () => {
  it('reads an ellipsis right after an opening bracket as elided content', () => {
    // A README's "(… — any characters or their absence)": it ended the sentence at "(".
    expect(
      texts('It is dynamic if it holds these characters (… — any text) or options: Next.'),
    ).toEqual(['It is dynamic if it holds these characters (… — any text) or options: Next.']);
    expect(texts('Use [... ] or {… } here. Done.')).toEqual(['Use [... ] or {… } here.', 'Done.']);
  });

  it('still ends a sentence at an ellipsis after a word', () => {
    expect(texts('It trails (off)… Then it goes.')).toEqual(['It trails (off)…', 'Then it goes.']);
  });

  it('keeps a long run of opened ellipses as one sentence, spans matching the text', () => {
    const text = '(… '.repeat(30_000);
    const spans = splitSentences(text);
    for (const span of spans) expect(text.slice(span.start, span.end)).toBe(span.text);
    expect(spans).toHaveLength(1);
  });
});
