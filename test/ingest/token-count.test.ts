import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import { createGptTokenizer } from '../../src/adapters/tokenizer/gpt-tokenizer.js';
import { chunkText } from '../../src/ingest/chunk.js';
import { spanCounter } from '../../src/ingest/token-count.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';
import { bikeShareHandbook } from '../fixtures/bike-share-handbook.js';
import { handbook } from '../fixtures/handbook.js';
import { hostileDocuments } from '../fixtures/hostile/corpus.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/** Prose in five languages, markup, code and symbols. */
function corpus(): string[] {
  const texts: string[] = [];
  for (const document of [...handbook, ...bikeShareHandbook, ...hostileDocuments]) {
    texts.push(document.title ?? '', document.text);
  }
  const languages = join(root, 'test/fixtures/languages');
  for (const file of readdirSync(languages)) {
    texts.push(readFileSync(join(languages, file), 'utf8'));
  }
  for (const file of ['notes.txt', 'warranty.md', 'shop.html', 'faq.jsonl']) {
    texts.push(readFileSync(join(root, 'test/fixtures/loaders', file), 'utf8'));
  }
  texts.push(
    "It's what they'd've said: don't, won't, y'all — 'quoted' words and CAPS Words.",
    'Spaces  twice,   three times,\ttabs\t and\nnewlines\n\n  indented lines and trailing spaces   ',
    `${'x'.repeat(3000)} then ${'=+'.repeat(900)} and ${'é'.repeat(1500)} words after`,
    'Numbers 12345678 and 3.14159, 1,000,000 units; x86_64 v2.0.1 <|endoftext|> here.',
    'Emoji 🙂 mixed 🚲 in text, ｆｕｌｌ-width ＡＢＣ and ﬁ ligatures, a\u00a0non-breaking space.',
  );
  return texts;
}

/** Wraps a tokenizer to count how many texts it counts. */
function counting(tokenizer: Tokenizer): Tokenizer & { calls: number } {
  const wrapper = {
    name: tokenizer.name,
    piecewise: tokenizer.piecewise,
    calls: 0,
    count(text: string) {
      wrapper.calls++;
      return tokenizer.count(text);
    },
    encode: (text: string) => tokenizer.encode(text),
    decode: (tokens: readonly number[]) => tokenizer.decode(tokens),
  };
  return wrapper;
}

describe.each(['cl100k_base', 'o200k_base'] as const)('spanCounter (%s)', (encoding) => {
  let tokenizer: Tokenizer;
  beforeAll(async () => {
    tokenizer = await createGptTokenizer({ encoding });
  });

  it("gives the tokenizer's own count of every text and of spans inside it", () => {
    const count = spanCounter(tokenizer);
    for (const text of corpus()) {
      expect(count(text, 0, text.length)).toBe(tokenizer.count(text));
      for (const [start, end] of [
        [1, text.length - 1],
        [Math.floor(text.length / 3), Math.floor((2 * text.length) / 3)],
      ] as const) {
        if (end > start)
          expect(count(text, start, end)).toBe(tokenizer.count(text.slice(start, end)));
      }
    }
  });

  it('matches on arbitrary mixes of words, spaces, punctuation and symbols', () => {
    const count = spanCounter(tokenizer);
    const part = fc.constantFrom(
      ' ',
      '  ',
      '\n',
      '\t',
      '.',
      ',',
      "'",
      "'s",
      '-',
      '(',
      ')',
      '"',
      '!',
      '?',
      '#',
      '`',
      '1',
      '42',
      'a',
      'I',
      'the',
      'The',
      'cells',
      'Mutation',
      'é',
      'ü',
      '保証',
      '🙂',
      '\u00a0',
      'x86',
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 20, maxLength: 120 }), (parts) => {
        const text = parts.join('');
        expect(count(text, 0, text.length)).toBe(tokenizer.count(text));
      }),
      { numRuns: 300 },
    );
  });

  it('byte-pair encodes each repeated word once', () => {
    const wrapped = counting(tokenizer);
    const count = spanCounter(wrapped);
    const text = 'The cells divide and the cells grow, then the cells divide again. '.repeat(20);
    const first = count(text, 0, text.length);
    const firstCalls = wrapped.calls;
    // Each distinct piece once (" cells", " divide", " grow,", …), not 20 times.
    expect(firstCalls).toBeLessThan(20);
    expect(count(text, 0, text.length)).toBe(first);
    expect(wrapped.calls).toBe(firstCalls);
    expect(first).toBe(tokenizer.count(text));
  });

  it('lets chunkText count a corpus it has seen without the tokenizer', () => {
    const wrapped = counting(tokenizer);
    const text = handbook.map((document) => document.text).join('\n\n');
    const before = chunkText(text, { tokenizer: wrapped, chunkSize: 64, chunkOverlap: 16 });
    const calls = wrapped.calls;
    const again = chunkText(text, { tokenizer: wrapped, chunkSize: 64, chunkOverlap: 16 });
    expect(again).toEqual(before);
    // Only spans too short to cut (under 64 characters) are counted again.
    expect(wrapped.calls - calls).toBeLessThan(calls / 2);
    for (const chunk of before) expect(chunk.tokenCount).toBe(tokenizer.count(chunk.text));
  });
});

describe('spanCounter with another tokenizer', () => {
  it('trusts the piecewise flag, not the name: a custom "cl100k_base" is counted whole', () => {
    const texts: string[] = [];
    const tokenizer: Tokenizer = {
      name: 'cl100k_base',
      count: (text) => {
        texts.push(text);
        return text.length;
      },
      encode: (text) => [...text].map((character) => character.charCodeAt(0)),
      decode: (tokens) => String.fromCharCode(...tokens),
    };
    const text = 'The cells divide and the cells grow, then the cells divide again. '.repeat(3);
    expect(spanCounter(tokenizer)(text, 0, text.length)).toBe(text.length);
    expect(texts).toEqual([text]);
  });

  it('counts every span whole: the pieces of other tokenizers need not add up', () => {
    const texts: string[] = [];
    const tokenizer: Tokenizer = {
      name: 'characters',
      count: (text) => {
        texts.push(text);
        return text.length;
      },
      encode: (text) => [...text].map((character) => character.charCodeAt(0)),
      decode: (tokens) => String.fromCharCode(...tokens),
    };
    const count = spanCounter(tokenizer);
    const text = 'The cells divide and the cells grow, then the cells divide again. '.repeat(3);
    expect(count(text, 4, text.length)).toBe(text.length - 4);
    expect(texts).toEqual([text.slice(4)]);
    // A section over the budget is counted whole once, not a second time.
    texts.length = 0;
    const section = text.trim();
    const chunks = chunkText(section, { tokenizer, chunkSize: 120, chunkOverlap: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    expect(texts.filter((counted) => counted === section)).toHaveLength(1);
  });
});

describe('spanCounter piece table', () => {
  /** A piecewise tokenizer whose count depends on every character (and adds up over any cut). */
  function weighing(): Tokenizer & { calls: number } {
    const tokenizer = {
      name: 'weights',
      piecewise: true,
      calls: 0,
      count(text: string) {
        tokenizer.calls++;
        let total = 0;
        for (let index = 0; index < text.length; index++) total += text.charCodeAt(index) % 7;
        return total;
      },
      encode: (text: string) => [...text].map((character) => character.charCodeAt(0)),
      decode: (tokens: readonly number[]) => String.fromCharCode(...tokens),
    };
    return tokenizer;
  }

  it('stays exact past its size: characters grown, the table emptied and filled again', () => {
    const tokenizer = weighing();
    const count = spanCounter(tokenizer);
    // 240,000 distinct pieces (more than the table keeps, 196,608), 16 to a text; pieces of the
    // same length that differ in one character, and anagrams of each other.
    const texts: string[] = [];
    for (let text = 0; text < 15_000; text++) {
      const words: string[] = [];
      for (let word = 0; word < 16; word++) {
        const id = (text * 16 + word).toString(36).padStart(4, 'a');
        words.push(word % 2 === 0 ? `w${id}` : `w${[...id].reverse().join('')}x`);
      }
      texts.push(words.join(' '));
    }
    const expected = texts.map((text) => tokenizer.count(text));
    for (let round = 0; round < 2; round++) {
      texts.forEach((text, index) => expect(count(text, 0, text.length)).toBe(expected[index]));
    }
    // Spans that start or end inside a word.
    const text = texts[7]!;
    expect(count(text, 3, text.length - 2)).toBe(tokenizer.count(text.slice(3, -2)));
  });

  it('looks a known piece up by its characters, not by its hash alone', () => {
    const tokenizer = weighing();
    const count = spanCounter(tokenizer);
    const base = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi';
    expect(count(base, 0, base.length)).toBe(tokenizer.count(base));
    const calls = tokenizer.calls;
    // The same words again: no piece counted anew.
    expect(count(base, 0, base.length)).toBe(tokenizer.count(base));
    expect(tokenizer.calls - calls).toBe(1);
    // One letter changed in each word: every piece is new.
    const changed = base.replace(/a\b/g, 'b');
    const before = tokenizer.calls;
    expect(count(changed, 0, changed.length)).toBe(tokenizer.count(changed));
    expect(tokenizer.calls - before).toBeGreaterThan(5);
  });
});
