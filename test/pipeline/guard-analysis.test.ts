import { describe, expect, it, vi } from 'vitest';
import { checkAnswerShape } from '../../src/pipeline/answer-shape.js';
import { decideGuard, guardFeatures, indexTerms } from '../../src/pipeline/guard.js';

/** Every text the index-term analyser was asked to analyse. */
const analysed: string[] = [];

vi.mock('../../src/text/stem.js', async (importOriginal) => {
  const module = await importOriginal<typeof import('../../src/text/stem.js')>();
  return {
    ...module,
    stemmedTerms: (text: string) => {
      analysed.push(text);
      return module.stemmedTerms(text);
    },
  };
});

const chunks = [
  {
    text: 'Riders must be at least 16 years old to ride an e-bike (guard analysis).',
    vectorScore: 0.3,
  },
  {
    text: 'A fully charged battery lasts about 60 kilometres (guard analysis).',
    // As close as the first: a chunk far below the best one is not analysed at all.
    vectorScore: 0.3,
  },
];
const input = { query: 'How old must riders be?', topScore: 0.5, indexSize: 8, chunks };

describe('guard: chunk analysis shared between turns', () => {
  it('analyses a retrieved chunk at most twice, however many turns retrieve it', () => {
    analysed.length = 0;
    const chunkAnalyses = () => analysed.filter((text) => text.endsWith('(guard analysis).'));
    // The first sight is analysed and forgotten, the second analysed and kept.
    const first = decideGuard(input);
    const second = decideGuard({ ...input, query: 'How old do riders have to be?' });
    expect(chunkAnalyses()).toHaveLength(4);
    const third = decideGuard(input);
    decideGuard({ ...input, query: 'Which battery range?' });
    expect(chunkAnalyses()).toEqual([...chunks, ...chunks].map((chunk) => chunk.text));
    expect(third).toEqual(first);
    expect(first.guard).toBe(false);
    expect(second.adaptive).toBe(true);
  });

  it('gives the features of a fresh analysis from the cached one', () => {
    const [related] = chunks;
    const fresh = indexTerms(related!.text);
    const features = guardFeatures(related!, indexTerms(input.query), 8);
    const query = indexTerms(input.query);
    const matched = [...query].filter((term) => fresh.has(term)).length;
    expect(features.matchedShare).toBe(matched / query.size);
    expect(features.matchedTerms).toBe(Math.log1p(matched));
  });
});

describe('checkAnswerShape: what it analyses', () => {
  it('does not analyse the answer to a claim, which asks for no focus word', () => {
    analysed.length = 0;
    const shape = checkAnswerShape(
      'Vitamin D deficiency is associated with higher fracture risk.',
      'Low vitamin D levels were linked to more hip fractures [source: S1].',
      'Vitamin D trial',
    );
    expect(shape?.lacksFocus).toEqual([]);
    expect(analysed).toEqual([]);
  });

  it('analyses the answer to a question and reads the focus words it lacks', () => {
    analysed.length = 0;
    const shape = checkAnswerShape(
      'How long does the e-bike battery last?',
      'Riders must be 16 years old [source: S1].',
      'Rules',
    );
    expect(analysed.filter((text) => text.startsWith('Riders must'))).toHaveLength(1);
    expect(shape?.lacksFocus).toEqual(expect.arrayContaining(['battery']));
  });
});
