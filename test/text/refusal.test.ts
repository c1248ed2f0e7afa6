import { describe, expect, it } from 'vitest';

import { NO_ANSWER_TEXT, NO_SOURCES_TEXT } from '../../src/adapters/extractive/answer.js';
import { DEFAULT_GUARD_ANSWER } from '../../src/pipeline/prompt.js';
import { isRefusalText } from '../../src/text/refusal.js';

describe('isRefusalText', () => {
  it("recognises the extractive model's refusals and the guard answer", () => {
    expect(isRefusalText(NO_ANSWER_TEXT)).toBe(true);
    expect(isRefusalText(NO_SOURCES_TEXT)).toBe(true);
    expect(isRefusalText(DEFAULT_GUARD_ANSWER)).toBe(true);
  });

  it.each([
    'The provided sources do not contain an answer to this question.',
    "The documents don't mention a rate limit.",
    'The context does not say how to cancel a stream.',
    'Sorry, the sources do not cover that.',
    'There is no information about SOCKS proxies in the sources.',
    "I don't know.",
    'I’m unable to answer that from the documents.',
    "I couldn't find that in the documentation.",
    'I cannot answer this question based on the given context.',
    'No relevant information was found.',
    '  the SOURCES DO NOT contain it  ',
  ])('recognises a model-written refusal: %s', (text) => {
    expect(isRefusalText(text)).toBe(true);
  });

  it.each([
    'Requests time out after 10 minutes by default [source: S1].',
    // says plainly what the docs leave out, but states something first, with a citation
    'The docs describe retries [source: S1] but do not say how long the backoff is.',
    'The sources do not contain a limit, so uploads of any size work [source: S2].',
    'No. Retries stop after 2 attempts [source: S1].',
    'I know three ways to do this: npm, yarn and pnpm.',
    'Use maxRetries: 0 to disable retries.',
    '',
    '   ',
  ])('does not take an answer for a refusal: %s', (text) => {
    expect(isRefusalText(text)).toBe(false);
  });

  it('does not take a long text for a refusal, however it starts', () => {
    const long = `The sources do not contain a single number. ${'Retries use backoff. '.repeat(40)}`;
    expect(isRefusalText(long)).toBe(false);
  });

  it('handles hostile input: NUL, lone surrogates, a huge text', () => {
    expect(isRefusalText('\u0000')).toBe(false);
    expect(isRefusalText('I don\u0000t know')).toBe(false);
    expect(isRefusalText('\ud800 The sources do not contain it')).toBe(false);
    expect(isRefusalText('The sources do not contain it \udc00')).toBe(true);
    const started = performance.now();
    expect(isRefusalText(`I don't know ${'x'.repeat(5_000_000)}`)).toBe(false);
    expect(isRefusalText('i '.repeat(200))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
