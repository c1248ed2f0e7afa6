/**
 * Pathological input (issue 14 item 10): byte-pair encoding is quadratic in the length of one
 * pre-tokenized piece, so long runs are cut before it (the longest run handed to the encoder is
 * bounded; ordinary text is encoded exactly as before), and a huge single paragraph ingests
 * instead of overflowing the call stack. Behaviour only: the timings are in
 * `bench/pathological.ts`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createGptTokenizer } from '../../src/adapters/tokenizer/gpt-tokenizer.js';
import { bpeSegments, MAX_BPE_RUN } from '../../src/adapters/tokenizer/segments.js';
import { chunkText } from '../../src/ingest/chunk.js';
import { createChatEngine } from '../../src/index.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';

/** Every piece of text the tokenizer handed to byte-pair encoding. */
const encoded: string[] = [];

vi.mock('../../src/adapters/tokenizer/segments.js', async (importOriginal) => {
  const module = await importOriginal<typeof import('../../src/adapters/tokenizer/segments.js')>();
  return {
    ...module,
    bpeSegments: (text: string, maxRun?: number) => {
      const segments = module.bpeSegments(text, maxRun);
      encoded.push(...segments);
      return segments;
    },
  };
});

/** The longest run of letters (with marks) or of symbols in `text`. */
function longestRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/[\p{L}\p{M}]+|[^\s\p{L}\p{M}\p{N}]+/gu)) {
    longest = Math.max(longest, match[0].length);
  }
  return longest;
}

/** A tokenizer for structure-only tests: one token per 4 characters, cheap at any size. */
const quarterTokenizer: Tokenizer = {
  name: 'quarter',
  count: (text) => Math.ceil(text.length / 4),
  encode: (text) => Array.from({ length: Math.ceil(text.length / 4) }, (_, index) => index),
  decode: (tokens) => 'x'.repeat(tokens.length * 4),
};

describe('byte-pair encoding of pathological runs', () => {
  it('never hands the encoder a run longer than MAX_BPE_RUN characters', async () => {
    const tokenizer = await createGptTokenizer();
    const texts = [
      '='.repeat(200_000),
      'abcdefghij'.repeat(10_000),
      `Intro text. ${'-'.repeat(5_000)} then ${'ü'.repeat(3_000)} end.`,
    ];
    for (const text of texts) {
      encoded.length = 0;
      const count = tokenizer.count(text);
      const tokens = tokenizer.encode(text);
      expect(tokens.length).toBe(count);
      expect(tokenizer.decode(tokens)).toBe(text);
      expect(encoded.length).toBeGreaterThan(0);
      expect(Math.max(...encoded.map(longestRun))).toBeLessThanOrEqual(MAX_BPE_RUN);
    }
  });

  it('cuts only inside long runs, never inside a surrogate pair, and keeps every character', () => {
    const emoji = '😀'.repeat(700); // 1,400 UTF-16 units, all symbols
    const text = `head ${'a'.repeat(2_500)} mid ${emoji} tail`;
    const segments = bpeSegments(text);
    expect(segments.join('')).toBe(text);
    expect(segments.length).toBeGreaterThan(3);
    for (const segment of segments) {
      expect(longestRun(segment)).toBeLessThanOrEqual(MAX_BPE_RUN);
      expect(segment).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
    expect(bpeSegments('ordinary words, a URL https://example.com/a/b?c=d and more')).toHaveLength(
      1,
    );
  });

  it('counts and encodes ordinary text exactly as the encoding does (every docs/*.md page)', async () => {
    const tokenizer = await createGptTokenizer();
    const library = await vi.importActual<typeof import('gpt-tokenizer/encoding/cl100k_base')>(
      'gpt-tokenizer/encoding/cl100k_base',
    );
    const plain = { disallowedSpecial: new Set<string>() };
    const directory = join(import.meta.dirname, '../../docs');
    const pages = readdirSync(directory).filter((name) => name.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) {
      const text = readFileSync(join(directory, page), 'utf8');
      expect(tokenizer.count(text), page).toBe(library.countTokens(text, plain));
      expect(tokenizer.encode(text), page).toEqual(library.encode(text, plain));
    }
  });
});

describe('huge inputs without recursion or argument spreading', () => {
  // One paragraph of 1.4 million short sentences, under the default 10M-character limit: the
  // chunker once spread every sentence's atoms into `push(...)` and overflowed the stack.
  const hugeParagraph = 'Go on. '.repeat(Math.floor(9_900_000 / 7));

  it('chunks a 9.9M-character single paragraph', () => {
    const chunks = chunkText(hugeParagraph, { tokenizer: quarterTokenizer, chunkSize: 512 });
    expect(chunks.length).toBeGreaterThan(1000);
    expect(chunks[0]!.start).toBe(0);
    expect(chunks[chunks.length - 1]!.end).toBe(hugeParagraph.trimEnd().length);
  });

  it('ingests it through the engine with the default document limit', async () => {
    const engine = createChatEngine({ tokenizer: quarterTokenizer, graph: { enabled: false } });
    const result = await engine.ingest([{ id: 'huge', text: hugeParagraph }]);
    expect(result.documents).toBe(1);
    expect(result.chunks).toBeGreaterThan(1000);
  }, 120_000);
});
