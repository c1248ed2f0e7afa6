import { describe, expect, it, vi } from 'vitest';
import { focusChunkText, focusTermsOf, missingFocus } from '../../src/pipeline/guard-focus.js';
import { decideGuard, guardFeatures, indexTerms } from '../../src/pipeline/guard.js';

/** Every text the analyser cut into words. */
const analysed: string[] = [];

vi.mock('../../src/text/segment.js', async (importOriginal) => {
  const module = await importOriginal<typeof import('../../src/text/segment.js')>();
  return {
    ...module,
    segmentText: (text: string) => {
      analysed.push(text);
      return module.segmentText(text);
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
    vectorScore: 0.05,
  },
];
const input = { query: 'How old must riders be?', topScore: 0.5, indexSize: 8, chunks };

describe('guard: chunk analysis shared between turns and stages', () => {
  it('analyses a retrieved chunk once for the guard and the focus check, turn after turn', () => {
    analysed.length = 0;
    const chunkAnalyses = () => analysed.filter((text) => text.endsWith('(guard analysis).'));
    const first = decideGuard(input);
    const focus = chunks.map((chunk, index) => ({
      documentId: `doc-${index}`,
      title: 'E-bikes',
      section: 'Rules',
      text: chunk.text,
    }));
    const missing = missingFocus(input.query, focus.map(focusChunkText), 0.5, focusTermsOf(focus));
    const second = decideGuard({ ...input, query: 'How old do riders have to be?' });
    const third = decideGuard(input);
    decideGuard({ ...input, query: 'Which battery range?' });
    expect(chunkAnalyses()).toEqual(chunks.map((chunk) => chunk.text));
    expect(missing.terms).toEqual([]);
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
