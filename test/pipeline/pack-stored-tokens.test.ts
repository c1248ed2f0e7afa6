import { describe, expect, it } from 'vitest';
import { createGptTokenizer } from '../../src/adapters/tokenizer/gpt-tokenizer.js';
import {
  prepareChunks,
  prepareJob,
  readTokenCount,
  storedTokenCount,
  TOKEN_COUNT_KEY,
} from '../../src/ingest/prepare.js';
import { createHashingEmbedder } from '../../src/adapters/hashing/embedder.js';
import { markdownSectionChunker, type Chunker } from '../../src/ingest/chunkers.js';
import { packContext } from '../../src/pipeline/pack.js';
import { frontMatterMetadata } from '../../src/loaders/markdown.js';
import { RESERVED_METADATA_KEYS } from '../../src/validate.js';
import { createChatEngine } from '../../src/engine.js';
import type { Metadata } from '../../src/ports/common.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';

/** One token per word, remembering every text it counted. */
function wordTokenizer(name = 'words'): Tokenizer & { counted: string[] } {
  const counted: string[] = [];
  return {
    name,
    counted,
    count: (text) => {
      counted.push(text);
      return text.split(/\s+/).filter(Boolean).length;
    },
    encode: () => [],
    decode: () => '',
  };
}
const words = (n: number, word = 'w') => Array.from({ length: n }, () => word).join(' ');
const base = {
  contextWindow: 400,
  answerTokens: 50,
  system: words(10),
  message: words(10),
  history: [],
  historyTokens: 40,
};

type Chunk = { readonly text: string; readonly metadata?: Metadata };

/** Packs chunks as a turn does: their stored counts by the tokenizer's name. */
function pack(chunks: readonly Chunk[], tokenizer: Tokenizer) {
  return packContext(
    {
      ...base,
      chunks,
      chunkTokens: (chunk) => readTokenCount(chunk.metadata, tokenizer.name),
    },
    tokenizer,
  );
}

describe('stored token counts in the pack stage', () => {
  it('does not count a chunk whose record holds its count by this tokenizer', () => {
    const tokenizer = wordTokenizer();
    const text = words(30, 'stored');
    const chunk = { text, metadata: { [TOKEN_COUNT_KEY]: storedTokenCount('words', 30) } };
    const result = pack([chunk, { text: words(20) }], tokenizer);
    expect(tokenizer.counted).not.toContain(text);
    expect(result.tokens.chunks).toBe(30 + 12 + 20 + 12);
    expect(result.chunks).toHaveLength(2);
  });

  it('uses the stored count as given: the budget follows it', () => {
    // A count that differs from the text's shows it is the stored one that was used.
    const tokenizer = wordTokenizer();
    const chunk = { text: words(5), metadata: { [TOKEN_COUNT_KEY]: 'words:400' } };
    const result = pack([chunk], tokenizer);
    expect(result.chunks).toEqual([]);
  });

  it('counts the chunk when the count is by another tokenizer, malformed or escaping changes the text', () => {
    const values = ['o200k_base:3', 'words:', 'words:-1', 'words:3.5', 'words3', 'wordsx:3', 3];
    for (const value of values) {
      const tokenizer = wordTokenizer();
      const chunk = { text: words(7, 'other'), metadata: { [TOKEN_COUNT_KEY]: value } };
      const result = pack([chunk], tokenizer);
      expect(tokenizer.counted).toContain(chunk.text);
      expect(result.tokens.chunks).toBe(7 + 12);
    }
    const tokenizer = wordTokenizer();
    const fenced = { text: 'a <b> c', metadata: { [TOKEN_COUNT_KEY]: 'words:1' } };
    const result = pack([fenced], tokenizer);
    expect(tokenizer.counted).toContain('a &lt;b&gt; c');
    expect(result.tokens.chunks).toBe(3 + 12);
  });

  it('reads only counts of the named tokenizer', () => {
    const stored = { [TOKEN_COUNT_KEY]: 'cl100k_base:42' };
    expect(readTokenCount(stored, 'cl100k_base')).toBe(42);
    expect(readTokenCount(stored, 'o200k_base')).toBeUndefined();
    expect(readTokenCount(stored, 'cl100k')).toBeUndefined();
    expect(readTokenCount({}, 'cl100k_base')).toBeUndefined();
    expect(readTokenCount(undefined, 'cl100k_base')).toBeUndefined();
  });
});

describe('token counts stored at ingest', () => {
  const settings = { chunkSize: 64, chunkOverlap: 8 };
  const text = [
    '# Refunds',
    '',
    'A refund takes two weeks from the day the parcel arrives back at the warehouse.',
    '',
    Array.from({ length: 30 }, (_, n) => `Order ${n} ships from depot ${n % 3}.`).join(' '),
  ].join('\n');

  it("keeps the built-in chunkers' exact counts, by the tokenizer's name", async () => {
    const tokenizer = await createGptTokenizer();
    for (const chunker of [undefined, markdownSectionChunker()]) {
      const chunks = await prepareChunks(
        { id: 'doc', text },
        'r',
        { ...settings, chunker },
        tokenizer,
      );
      expect(chunks.length).toBeGreaterThan(2);
      for (const chunk of chunks) {
        const value = chunk.metadata[TOKEN_COUNT_KEY];
        expect(value).toBe(
          storedTokenCount('cl100k_base', tokenizer.count(chunk.metadata['text'] as string)),
        );
      }
    }
  });

  it("stores no count for an application's chunker; no document or file can set one", async () => {
    const tokenizer = await createGptTokenizer();
    const own: Chunker = (doc) => [{ text: doc.text.slice(0, 40) }];
    const [mine] = await prepareChunks(
      { id: 'doc', text },
      'r',
      { ...settings, chunker: own },
      tokenizer,
    );
    expect(mine!.metadata).not.toHaveProperty(TOKEN_COUNT_KEY);
    // A hostile document claiming its chunks cost one token each is refused, naming the key.
    expect(RESERVED_METADATA_KEYS).toContain(TOKEN_COUNT_KEY);
    const engine = createChatEngine();
    await expect(
      engine.ingest([{ id: 'doc', text, metadata: { [TOKEN_COUNT_KEY]: 'cl100k_base:1' } }]),
    ).rejects.toThrow(/tokenCount/);
    const spoof: Chunker = (doc) => [{ text: doc.text, metadata: { [TOKEN_COUNT_KEY]: 'x:1' } }];
    await expect(
      createChatEngine({ chunking: { chunker: spoof } }).ingest([{ id: 'doc', text }]),
    ).rejects.toThrow(/metadata\.tokenCount is reserved/);
    // Front matter does not reach the metadata either.
    expect(frontMatterMetadata({ tokenCount: 'cl100k_base:1', team: 'docs' })).toEqual({
      team: 'docs',
    });
  });

  it('stores a count for every chunk, whatever was counted before (a section that fits too)', async () => {
    // Words no text counted before: the chunker could bound them by their bytes, but stores
    // their exact count, so what is stored does not depend on the process's history.
    const unseen = Array.from({ length: 12 }, (_, n) => `zq${n}xv${(n * 7919).toString(36)}k`).join(
      ' ',
    );
    const cold = await prepareChunks(
      { id: 'fresh', text: unseen },
      'r',
      { chunkSize: 512, chunkOverlap: 8 },
      await createGptTokenizer(),
    );
    const warmTokenizer = await createGptTokenizer();
    warmTokenizer.count(unseen);
    await prepareChunks({ id: 'other', text }, 'r', settings, warmTokenizer);
    const warm = await prepareChunks(
      { id: 'fresh', text: unseen },
      'r',
      { chunkSize: 512, chunkOverlap: 8 },
      warmTokenizer,
    );
    expect(cold).toHaveLength(1);
    expect(readTokenCount(cold[0]!.metadata, 'cl100k_base')).toBe(warmTokenizer.count(unseen));
    expect(warm).toEqual(cold);
  });
});

describe('token counts of an ingest worker', () => {
  it('travel in the prepared chunks a worker sends back', async () => {
    const tokenizer = await createGptTokenizer();
    const wire = await prepareJob(
      {
        documents: [{ id: 'a', text: 'A refund takes two weeks from the day the parcel arrives.' }],
        revision: 'r',
        chunkSize: 64,
        chunkOverlap: 8,
        tokenizer: tokenizer.name,
      },
      tokenizer,
      createHashingEmbedder({ dimensions: 8 }),
    );
    const [chunk] = structuredClone(wire.chunks)[0]!;
    expect(readTokenCount(chunk!.metadata, 'cl100k_base')).toBe(
      tokenizer.count(chunk!.metadata['text'] as string),
    );
  });
});
