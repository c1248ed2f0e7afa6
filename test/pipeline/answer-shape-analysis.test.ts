import { describe, expect, it, vi } from 'vitest';
import { checkAnswerShape } from '../../src/pipeline/answer-shape.js';

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
