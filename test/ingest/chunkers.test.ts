import { beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  createChatEngine,
  createMemoryVectorStore,
  fixedSizeChunker,
  markdownSectionChunker,
  tokenChunker,
  ValidationError,
  type Chunker,
} from 'cortexis';
import { createGptTokenizer } from '../../src/adapters/tokenizer/gpt-tokenizer.js';
import { chunkText } from '../../src/ingest/chunk.js';
import { pageMetadata } from '../../src/ingest/chunkers.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';
import type { IngestDocument } from '../../src/types.js';

let tokenizer: Tokenizer;
beforeAll(async () => {
  tokenizer = await createGptTokenizer();
});

const context = () => ({ tokenizer, chunkSize: 64, chunkOverlap: 16 });
const doc = (text: string): IngestDocument => ({ id: 'doc', text });

const sentences = (topic: string, count: number) =>
  Array.from(
    { length: count },
    (_, index) => `The ${topic} rule number ${index} applies here.`,
  ).join(' ');

const MANUAL = [
  '# Manual',
  'Intro text.',
  '## Install',
  'Run the installer.',
  '### On Linux',
  'Use the package manager.',
  '### On macOS',
  'Use the disk image.',
  '## Usage',
  sentences('usage', 20),
].join('\n\n');

describe('tokenChunker', () => {
  it('is chunkText: the default chunking is unchanged', async () => {
    const chunks = await tokenChunker()(doc(MANUAL), context());
    expect(chunks).toEqual(
      chunkText(MANUAL, context()).map(({ text, start, end, headingPath }) => ({
        text,
        start,
        end,
        headingPath,
      })),
    );
  });

  it('never lets a chunk span a page break (form feed)', async () => {
    const text = 'Invoices are kept ten years.\n\n\f\n\nTranscripts are deleted after ninety days.';
    const chunks = await tokenChunker()(doc(text), context());
    expect(chunks.map((chunk) => chunk.text)).toEqual([
      'Invoices are kept ten years.',
      'Transcripts are deleted after ninety days.',
    ]);
    expect(chunks.map((chunk) => pageMetadata(text, chunk.start!, chunk.end!))).toEqual([
      { page: 1 },
      { page: 2 },
    ]);
  });
});

describe('markdownSectionChunker', () => {
  it('keeps subsections deeper than `depth` inside their parent section', async () => {
    const chunks = await markdownSectionChunker({ depth: 2 })(doc(MANUAL), {
      ...context(),
      chunkSize: 512,
    });
    expect(chunks.map((chunk) => chunk.headingPath)).toEqual([
      ['Manual'],
      ['Manual', 'Install'],
      ['Manual', 'Usage'],
    ]);
    expect(chunks[1]!.text).toBe(
      '## Install\n\nRun the installer.\n\n### On Linux\n\nUse the package manager.\n\n### On macOS\n\nUse the disk image.',
    );
    for (const chunk of chunks) expect(MANUAL.slice(chunk.start, chunk.end)).toBe(chunk.text);
  });

  it('cuts a section larger than chunkSize like the token chunker, inside the section', async () => {
    const chunks = await markdownSectionChunker({ depth: 2 })(doc(MANUAL), context());
    const usage = chunks.filter((chunk) => chunk.headingPath?.includes('Usage'));
    expect(usage.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(tokenizer.count(chunk.text)).toBeLessThanOrEqual(64);
    expect(chunks.find((chunk) => chunk.text.includes('### On Linux'))?.text).toContain(
      'Use the disk image.',
    );
  });

  it('rejects a depth outside 1..6', () => {
    expect(() => markdownSectionChunker({ depth: 0 })).toThrow(ValidationError);
    expect(() => markdownSectionChunker({ depth: 2.5 })).toThrow(/depth/);
  });
});

describe('fixedSizeChunker', () => {
  it('cuts windows of at most `size` tokens with overlap, ignoring headings', async () => {
    const chunks = await fixedSizeChunker({ size: 40, overlap: 8 })(doc(MANUAL), context());
    expect(chunks.length).toBeGreaterThan(3);
    for (const [index, chunk] of chunks.entries()) {
      expect(tokenizer.count(chunk.text)).toBeLessThanOrEqual(40);
      expect(MANUAL.slice(chunk.start, chunk.end)).toBe(chunk.text);
      expect(chunk.headingPath).toBeUndefined();
      const next = chunks[index + 1];
      if (next) {
        // Consecutive windows overlap and the text is covered without gaps.
        expect(next.start!).toBeLessThan(chunk.end!);
        expect(next.start!).toBeGreaterThan(chunk.start!);
      }
    }
    expect(chunks[0]!.start).toBe(0);
    expect(chunks.at(-1)!.end).toBe(MANUAL.length);
    // A window ends at a word boundary, not inside a word.
    for (const chunk of chunks.slice(0, -1)) expect(MANUAL[chunk.end!]).toMatch(/\s/);
  });

  it('handles text without spaces and never cuts a surrogate pair', async () => {
    const text = '返品は三十日以内に受け付けます。'.repeat(30) + '😀'.repeat(200);
    const chunks = await fixedSizeChunker({ size: 32, overlap: 0 })(doc(text), context());
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(text);
    for (const chunk of chunks) {
      expect(tokenizer.count(chunk.text)).toBeLessThanOrEqual(32);
      expect(chunk.text).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
  });

  it('rejects a size below 16 and an overlap not below the size', async () => {
    expect(() => fixedSizeChunker({ size: 8 })).toThrow(/size/);
    await expect(
      Promise.resolve().then(() =>
        fixedSizeChunker({ size: 16, overlap: 16 })(doc('x'), context()),
      ),
    ).rejects.toThrow(/overlap/);
  });
});

describe('chunking.chunker in the engine', () => {
  it('uses the configured chunker; chunk metadata and heading path reach the stores', async () => {
    const sections: Chunker = (document) =>
      document.text.split('\n\n').map((text, index) => ({
        text,
        headingPath: ['Part', String(index + 1)],
        metadata: { kind: 'paragraph' },
      }));
    const engine = createChatEngine({ chunking: { chunker: sections } });
    const result = await engine.ingest([
      { id: 'a', text: 'Refunds take fourteen days.\n\nShipping takes three days.' },
    ]);
    expect(result.chunks).toBe(2);
    const [hit] = await engine.search('How long does shipping take?');
    expect(hit?.metadata).toMatchObject({ kind: 'paragraph', section: 'Part › 2', chunkIndex: 1 });
  });

  it('gives chunks of paged text their page, and pageEnd when they span pages', async () => {
    const text = `${sentences('archive', 6)}\n\n\f\n\n${sentences('deletion', 6)}`;
    const engine = createChatEngine({
      chunking: { chunker: fixedSizeChunker({ size: 90, overlap: 0 }) },
    });
    await engine.ingest([{ id: 'paged', text }]);
    const hits = await engine.search('archive rule deletion rule', { k: 10 });
    const pages = hits.map((hit) => [hit.metadata.page, hit.metadata.pageEnd ?? null]);
    expect(pages).toContainEqual([1, 2]);
    expect(pages).toContainEqual([2, null]);
  });

  it('rejects a chunker that is not a function, naming the field', () => {
    expect(() =>
      createChatEngine({ chunking: { chunker: 'markdown' as unknown as Chunker } }),
    ).toThrow(ConfigError);
    expect(() =>
      createChatEngine({ chunking: { chunker: 'markdown' as unknown as Chunker } }),
    ).toThrow(/chunking\.chunker/);
  });

  it('rejects malformed chunker output with a ValidationError naming the chunk field; nothing is stored', async () => {
    const vectorStore = createMemoryVectorStore();
    const reserved: Chunker = () => [
      { text: 'ok' },
      { text: 'bad', metadata: { documentId: 'x' } },
    ];
    const engine = createChatEngine({ vectorStore, chunking: { chunker: reserved } });
    const error = await engine
      .ingest([{ id: 'a', text: 'anything' }])
      .catch((caught: unknown) => caught);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).message).toBe(
      "Invalid chunker output for document 'a': 1.metadata.documentId is reserved",
    );
    expect((error as ValidationError).issues).toEqual([
      { path: 'chunking.chunker.1.metadata.documentId', message: 'is reserved' },
    ]);
    const notArray = createChatEngine({
      vectorStore,
      chunking: { chunker: (() => 'text') as unknown as Chunker },
    });
    await expect(notArray.ingest([{ id: 'a', text: 'anything' }])).rejects.toThrow(
      /must be an array/,
    );
    expect(await vectorStore.count('default')).toBe(0);
  });

  it('puts earlier groups back when the chunker fails on a later one (all or nothing)', async () => {
    const vectorStore = createMemoryVectorStore();
    const failing: Chunker = (document, chunkContext) => {
      if (document.id === 'doc-299') throw new Error('chunker broke');
      return tokenChunker()(document, chunkContext);
    };
    const engine = createChatEngine({ vectorStore, chunking: { chunker: failing } });
    const docs = Array.from({ length: 300 }, (_, index) => ({
      id: `doc-${index}`,
      text: `Document ${index} text.`,
    }));
    await expect(engine.ingest(docs)).rejects.toThrow('chunker broke');
    expect(await vectorStore.count('default')).toBe(0);
  });
});
