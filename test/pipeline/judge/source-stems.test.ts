import { describe, expect, it, vi } from 'vitest';
import { contentStemsOf } from '../../../src/pipeline/judge/contradiction-analysis.js';
import { prepareSource, termsOf } from '../../../src/pipeline/judge/source.js';
import { clearAnalysisCaches } from '../../../src/text/analyzer.js';
import { stem, STOP_WORDS } from '../../../src/text/english.js';
import { words } from '../../../src/text/words.js';

vi.mock('../../../src/text/english.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/text/english.js')>();
  return { ...original, stem: vi.fn(original.stem) };
});

const stemCalls = (): number => vi.mocked(stem).mock.calls.length;

describe("the judge's stems come from the analyser's cache", () => {
  it('stems a word once for every stage, and again only after the caches are cleared', () => {
    const text = 'Zebrafish regenerate their fins quickly. Axolotls regrow limbs, newts tails.';
    clearAnalysisCaches();
    const before = stemCalls();
    prepareSource(text);
    const stemmed = stemCalls() - before;
    expect(stemmed).toBeGreaterThan(0);
    // Another text of the same words, and the words of a claim: nothing stemmed again.
    prepareSource(`${text} `);
    termsOf('Zebrafish regrow fins.');
    contentStemsOf('Axolotls regenerate limbs quickly');
    expect(stemCalls() - before).toBe(stemmed);
    // One cache: emptied with the analyser's.
    clearAnalysisCaches();
    prepareSource(`${text}  `);
    expect(stemCalls() - before).toBe(2 * stemmed);
  });

  it('gives the terms of before: each word that is not a stop word, stemmed', () => {
    const texts = [
      'Refunds are NOT paid within 5 2nd days; nobody said otherwise.',
      'IL-6 and TNF-α levels did not differ in Müller cells (n = 32), e.g. the U.S. cohorts.',
      "Don't refund it: we cannot, won't and never will.",
    ];
    for (const text of texts) {
      expect(termsOf(text)).toEqual(
        words(text)
          .filter((word) => !STOP_WORDS.has(word))
          .map((word) => stem(word)),
      );
      const sequence = prepareSource(text).sentences.flatMap((sentence) => sentence.sequence);
      expect(sequence.length).toBeGreaterThan(0);
    }
  });
});
