import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import * as cl100kLibrary from 'gpt-tokenizer/encoding/cl100k_base';
import * as o200kLibrary from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createBpeTokenizer, type BpeEncodingData } from '../../../src/adapters/tokenizer/bpe.js';
import cl100kData from '../../../src/adapters/tokenizer/encodings/cl100k_base.js';
import o200kData from '../../../src/adapters/tokenizer/encodings/o200k_base.js';
import { createGptTokenizer } from '../../../src/adapters/tokenizer/gpt-tokenizer.js';
import { bpeSegments } from '../../../src/adapters/tokenizer/segments.js';
import { ValidationError } from '../../../src/errors/index.js';
import { bikeShareHandbook } from '../../fixtures/bike-share-handbook.js';
import { handbook } from '../../fixtures/handbook.js';
import { hostileDocuments } from '../../fixtures/hostile/corpus.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Texts of every kind: prose in five languages, markup, code, symbols, long runs. */
function corpus(): string[] {
  const texts: string[] = [];
  for (const document of [...handbook, ...bikeShareHandbook, ...hostileDocuments]) {
    texts.push(document.title ?? '', document.text);
  }
  const languages = join(root, 'test/fixtures/languages');
  for (const file of readdirSync(languages))
    texts.push(readFileSync(join(languages, file), 'utf8'));
  for (const file of ['notes.txt', 'warranty.md', 'shop.html', 'faq.jsonl']) {
    texts.push(readFileSync(join(root, 'test/fixtures/loaders', file), 'utf8'));
  }
  // Code: this test and the sources it exercises.
  for (const file of [
    'src/adapters/tokenizer/bpe.ts',
    'src/adapters/tokenizer/segments.ts',
    'test/adapters/tokenizer/bpe.test.ts',
  ]) {
    texts.push(readFileSync(join(root, file), 'utf8'));
  }
  texts.push(
    '',
    ' ',
    '\n\n\n',
    '\r\n\t  \u00a0\u2003x',
    "I'm sure you'll find we've DON'T they'RE it's",
    'Ünïcödé — 😀 text, 👩‍👩‍👧‍👦 family, 🇫🇷 flag, e\u0301 combining, ﬁ ligature',
    'Ελληνικά, русский текст, עברית, العربية, हिन्दी, ไทย, 日本語のテキスト、中文文本，한국어',
    '12345678901234567890 3.14159 1,000,000 0x1F 2026-11-24T09:42:50Z',
    '<|endoftext|> before <|im_start|>user<|im_sep|>hi<|im_end|> <|fim_prefix|><|endofprompt|>',
    'lone surrogates \ud800 and \udfff end',
    'https://example.com/a/b?c=d&e=f#g user@example.com C:\\path\\to\\file.txt',
    '='.repeat(5000),
    'a'.repeat(3000) + ' ' + 'ab'.repeat(1500),
    '😀'.repeat(700),
    '中'.repeat(2500),
    ' '.repeat(3000) + 'x' + '\n'.repeat(2000),
    '1'.repeat(4000),
    '!?'.repeat(1800) + '\n',
  );
  return texts;
}

const encodings = [
  { data: cl100kData, library: cl100kLibrary },
  { data: o200kData, library: o200kLibrary },
] as const;

// gpt-tokenizer as cortexis used it: runs cut by `bpeSegments`, special tokens as plain text.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
function reference(library: (typeof encodings)[number]['library'], text: string): number[] {
  return bpeSegments(text).flatMap((segment) => library.encode(segment, PLAIN_TEXT));
}

describe.each(encodings)('createBpeTokenizer ($data.name)', ({ data, library }) => {
  const tokenizer = createBpeTokenizer({ data });

  it('gives the tokens of gpt-tokenizer on a varied corpus, and decodes them back', () => {
    for (const text of corpus()) {
      const tokens = tokenizer.encode(text);
      expect(tokens).toEqual(reference(library, text));
      expect(tokenizer.count(text)).toBe(tokens.length);
      if (!/[\ud800-\udfff]/u.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) {
        expect(tokenizer.decode(tokens)).toBe(text);
      }
    }
  });

  it('gives the tokens of gpt-tokenizer on random text', () => {
    const pieces = fc.constantFrom(
      ...' \n\t\r.,;:!?\'"()[]{}<>=+-*/\\|_#@$%&~`^0123456789aeiouAEIOUxyzXYZ',
      'é',
      'ß',
      'Ω',
      'ж',
      '中',
      'の',
      '한',
      '😀',
      '\u0301',
      '\u00a0',
      "'s",
      "'LL",
      ' the',
      'ing',
      '<|endoftext|>',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 80 }), (parts) => {
        const text = parts.join('');
        const tokens = tokenizer.encode(text);
        expect(tokens).toEqual(reference(library, text));
        expect(tokenizer.count(text)).toBe(tokens.length);
        expect(tokenizer.decode(tokens)).toBe(text);
      }),
      { seed: 17, numRuns: 600 },
    );
  });

  it('gives the tokens of gpt-tokenizer on 20,000 distinct invented words, past the pair table limit', () => {
    // Each invented word is merged pair by pair; their distinct token pairs outnumber the
    // tokenizer's table of merged pairs (emptied at 49,152: once with cl100k_base, twice with
    // o200k_base), so its refill is covered.
    const fresh = createBpeTokenizer({ data, cacheSize: 2 });
    let seed = 0x2545f491;
    const next = (): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    const letters = 'abcdefghijklmnopqrstuvwxyzéüçñ';
    const words: string[] = [];
    for (let index = 0; index < 20_000; index++) {
      let word = next() % 2 === 0 ? ' ' : '';
      const length = 5 + (next() % 12);
      for (let at = 0; at < length; at++) word += letters[next() % letters.length];
      words.push(word);
    }
    for (const word of words) {
      expect(fresh.encode(word)).toEqual(reference(library, word));
      expect(fresh.count(word)).toBe(fresh.encode(word).length);
    }
  });

  it('decodes any token sequence as gpt-tokenizer does once flushed, special tokens included', () => {
    const special = Object.values(data.specialTokens);
    const ids = [0, 1, 255, 256, 1000, 50_000, 100_000, special[0]!, special.at(-1)!];
    expect(tokenizer.decode(ids)).toBe(new TextDecoder().decode(bytesOf(library, ids)));
    // A token cut inside a character decodes to U+FFFD, with no state left for the next call.
    const emoji = tokenizer.encode('🪿');
    expect(emoji.length).toBeGreaterThan(1);
    expect(tokenizer.decode(emoji.slice(0, 1))).toBe('\uFFFD');
    expect(tokenizer.decode(tokenizer.encode('plain'))).toBe('plain');
    expect(() => tokenizer.decode([10_000_000])).toThrow(RangeError);
  });
});

/** The bytes of `ids` as gpt-tokenizer decodes them one by one (special tokens as their text). */
function bytesOf(library: (typeof encodings)[number]['library'], ids: number[]): Uint8Array {
  const chunks = ids.map((id) => {
    const piece = [...library.decodeGenerator([id])][0]!;
    return typeof piece === 'string' ? new TextEncoder().encode(piece) : piece;
  });
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

describe('createBpeTokenizer with injected data', () => {
  it('takes a table as plain JSON, as a browser host would fetch it', () => {
    const fetched = JSON.parse(JSON.stringify(o200kData)) as BpeEncodingData;
    const tokenizer = createBpeTokenizer({ data: fetched });
    expect(tokenizer.name).toBe('o200k_base');
    expect(tokenizer.encode('Refunds within 14 days.')).toEqual(
      o200kLibrary.encode('Refunds within 14 days.'),
    );
  });

  it('works with a tiny custom table', () => {
    // Every byte, then "ab" and "abc": "abcab" is one piece (letters) → [abc, ab].
    const ranks = [
      ...Array.from({ length: 256 }, (_, byte) => [1, byte]),
      [2, 97, 98],
      [3, 97, 98, 99],
    ];
    const data: BpeEncodingData = {
      name: 'tiny',
      pattern: '\\p{L}+|\\s+|.',
      specialTokens: { '<|end|>': 300 },
      ranks: Buffer.from(ranks.flat()).toString('base64'),
    };
    const tokenizer = createBpeTokenizer({ data });
    expect(tokenizer.encode('abcab c')).toEqual([257, 256, 32, 99]);
    expect(tokenizer.decode([257, 300, 256])).toBe('abc<|end|>ab');
  });

  it('rejects a table that is not one with a ValidationError naming the field', () => {
    const bad = [
      { ...cl100kData, pattern: '(' },
      { ...cl100kData, ranks: Buffer.from([1, 97]).toString('base64') },
      { ...cl100kData, name: 3 },
      null,
    ] as unknown as BpeEncodingData[];
    for (const data of bad) expect(() => createBpeTokenizer({ data })).toThrow(ValidationError);
    expect(() => createBpeTokenizer({ data: { ...cl100kData, pattern: '(' } })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'data.pattern' })] }),
    );
  });
});

describe('createGptTokenizer', () => {
  it('loads each encoding once and shares it', async () => {
    const [first, second] = await Promise.all([createGptTokenizer(), createGptTokenizer()]);
    expect(first).toBe(second);
    expect(first.name).toBe('cl100k_base');
  });
});
