import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  approximateInputTokens,
  approximateTokens,
  limitTokens,
  splitDeltas,
} from '../../../src/adapters/extractive/tokens.js';

/** The approximation as defined: one token per four characters of each `\S+` run, at least one. */
function reference(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(/\S+/g)) tokens += Math.max(1, Math.ceil(match[0].length / 4));
  return tokens;
}

describe('approximate token counts', () => {
  it('counts one token per four characters of each word, at least one', () => {
    expect(approximateTokens('')).toBe(0);
    expect(approximateTokens('a bb ccccc')).toBe(1 + 1 + 2);
    expect(approximateTokens('  lead\tand\ntrail  ')).toBe(1 + 1 + 2);
  });

  it('splits words exactly where the regular expression \\s does, for every UTF-16 code unit', () => {
    const mismatches: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const text = `abcde${String.fromCharCode(code)}fgh`;
      if (approximateTokens(text) !== reference(text)) mismatches.push(code.toString(16));
    }
    expect(mismatches).toEqual([]);
  });
});

describe('approximate input tokens', () => {
  it('count the parts the request sends as their text joined by line breaks', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'bb', ' ', '\n', '\t', 'é', '\u3000', '<s>'),
    });
    fc.assert(
      fc.property(
        fc.option(text, { nil: undefined }),
        fc.array(text, { maxLength: 4 }),
        fc.array(text, { maxLength: 4 }),
        (system, contents, sourceTexts) => {
          const sources = sourceTexts.map((sourceText, index) => ({
            label: `S${index + 1}`,
            text: sourceText,
          }));
          const messages = contents.map((content) => ({ role: 'user' as const, content }));
          // A source the system prompt holds is sent once.
          const sent = sources.filter((source) => !system?.includes(source.text));
          const joined = [system ?? '', ...contents, ...sent.map((source) => source.text)].join(
            '\n',
          );
          expect(approximateInputTokens({ system, messages, sources })).toBe(
            approximateTokens(joined),
          );
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('cutting an answer to maxTokens', () => {
  /** The cut as defined: whole deltas while the approximate count of the prefix fits. */
  function referenceCut(text: string, maxTokens: number): { text: string; truncated: boolean } {
    if (approximateTokens(text) <= maxTokens) return { text, truncated: false };
    let kept = '';
    for (const delta of splitDeltas(text)) {
      if (approximateTokens(kept + delta) > maxTokens) break;
      kept += delta;
    }
    return { text: kept.trimEnd(), truncated: true };
  }

  it('keeps the same prefix as recounting the whole prefix per delta', () => {
    const pieces = ['a', 'word', 'longerword', ' ', '  ', '\n', '\u00a0', '[source: S1]', '.', 'é'];
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 400; round++) {
      let text = '';
      const length = Math.floor(next() * 60);
      for (let index = 0; index < length; index++) {
        text += pieces[Math.floor(next() * pieces.length)]!;
      }
      const maxTokens = 1 + Math.floor(next() * 20);
      expect(limitTokens(text, maxTokens, undefined)).toEqual(referenceCut(text, maxTokens));
    }
  });

  it('cuts a long text within maxTokens at a whole word', () => {
    const text = Array.from({ length: 5000 }, (_, index) => `word${index}`).join(' ');
    const { text: cut, truncated } = limitTokens(text, 500, undefined);
    expect(truncated).toBe(true);
    expect(approximateTokens(cut)).toBeLessThanOrEqual(500);
    // the next word (two tokens) would not fit
    expect(approximateTokens(cut)).toBeGreaterThan(498);
    expect(text.startsWith(cut)).toBe(true);
  });
});
