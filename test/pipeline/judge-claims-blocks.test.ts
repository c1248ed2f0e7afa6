import { describe, expect, it } from 'vitest';
import { extractClaims } from '../../src/pipeline/judge/claims.js';

describe('extractClaims: blocks an answer quotes', () => {
  it('makes no claim of a fenced code block: it belongs to the sentence before', () => {
    const answer =
      "Set a default value [source: S1]:\n\n```js\nprogram.option('-c', 'cheese', 'blue');\n\nprogram.parse();\n```\n";
    const claims = extractClaims(answer);
    expect(claims.map((claim) => claim.text)).toEqual(['Set a default value:']);
    expect(claims[0]!.end).toBeGreaterThan(answer.indexOf('program.parse'));
  });

  it('cites the list items and rows a cited lead-in introduces with its sources', () => {
    const answer =
      'The caret ranges are [source: S2]:\n\n- ^1.2.3 := >=1.2.3 <2.0.0-0\n- ^0.2.3 := >=0.2.3 <0.3.0-0\n\nA later sentence.';
    const claims = extractClaims(answer);
    expect(claims.map((claim) => claim.sourceIds)).toEqual([['S2'], ['S2'], ['S2'], []]);
  });

  it('leaves list items uncited after a sentence that does not introduce them', () => {
    const claims = extractClaims('A fact [source: S1].\n\n- an item\n- another item');
    expect(claims.map((claim) => claim.sourceIds)).toEqual([['S1'], [], []]);
  });
});
