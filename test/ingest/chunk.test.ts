import { beforeAll, describe, expect, it } from 'vitest';
import { createGptTokenizer } from '../../src/adapters/tokenizer/gpt-tokenizer.js';
import { ValidationError } from '../../src/errors/index.js';
import { chunkText, type TextChunk } from '../../src/ingest/chunk.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';
import { seededRandom as random } from '../util/helpers.js';

let tokenizer: Tokenizer;
beforeAll(async () => {
  tokenizer = await createGptTokenizer();
});

const VOCABULARY = (
  'refund policy customer order digital goods shipping days within issued support contact ' +
  'invoice payment card account returns warehouse delivery carrier tracking number weeks ' +
  'the a of to and in is are for with on by'
).split(' ');

function sentence(next: () => number, words = 6 + Math.floor(next() * 14)): string {
  const parts = Array.from(
    { length: words },
    () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]!,
  );
  const text = parts.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function paragraph(next: () => number, sentences = 1 + Math.floor(next() * 8)): string {
  return Array.from({ length: sentences }, () => sentence(next)).join(' ');
}

/** A markdown document with headings, paragraphs, a list, a code fence and a long sentence. */
function document(seed: number): string {
  const next = random(seed);
  const parts: string[] = [];
  for (let section = 0; section < 4; section++) {
    parts.push(`${'#'.repeat(1 + (section % 3))} Section ${seed}-${section}`);
    const paragraphs = 1 + Math.floor(next() * 5);
    for (let index = 0; index < paragraphs; index++) parts.push(paragraph(next));
    if (next() < 0.4) parts.push('- first item\n- second item\n- third item');
    if (next() < 0.3) parts.push('```js\nconst total = items.reduce((a, b) => a + b, 0);\n```');
    if (next() < 0.3) parts.push(sentence(next, 300));
  }
  return parts.join('\n\n');
}

/** The invariants every chunking must keep. */
function expectValidChunks(text: string, chunks: readonly TextChunk[], chunkSize: number): void {
  for (const chunk of chunks) {
    expect(text.slice(chunk.start, chunk.end)).toBe(chunk.text);
    expect(chunk.text).toBe(chunk.text.trim());
    expect(chunk.text.length).toBeGreaterThan(0);
    expect(chunk.tokenCount).toBe(tokenizer.count(chunk.text));
    expect(chunk.tokenCount).toBeLessThanOrEqual(chunkSize);
  }
  for (let index = 1; index < chunks.length; index++) {
    expect(chunks[index]!.start).toBeGreaterThan(chunks[index - 1]!.start);
    expect(chunks[index]!.end).toBeGreaterThan(chunks[index - 1]!.end);
  }
}

/** Whether every non-space character of `text` lies inside some chunk. */
function coversAllText(text: string, chunks: readonly TextChunk[]): boolean {
  const covered = new Uint8Array(text.length);
  for (const chunk of chunks) covered.fill(1, chunk.start, chunk.end);
  for (let index = 0; index < text.length; index++) {
    if (!covered[index] && /\S/.test(text[index]!)) return false;
  }
  return true;
}

describe('chunkText', () => {
  it('returns no chunks for empty or blank text', () => {
    expect(chunkText('', { tokenizer })).toEqual([]);
    expect(chunkText(' \n\n\t  \n', { tokenizer })).toEqual([]);
  });

  it('keeps a short text as one chunk with its exact token count', () => {
    const text = '  Refunds are issued within 14 days.\n\nContact support for help.  ';
    const chunks = chunkText(text, { tokenizer });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toEqual({
      text: text.trim(),
      start: 2,
      end: text.trimEnd().length,
      tokenCount: tokenizer.count(text.trim()),
      headingPath: [],
    });
  });

  it('starts a chunk at each heading and records the heading path', () => {
    const text = [
      'Welcome to the handbook.',
      '# Handbook',
      '## Refunds',
      'Refunds are issued within 14 days.',
      '### Digital goods',
      'Digital goods are refunded within 48 hours.',
      '## Shipping',
      'Orders ship in 2 days.',
      '# Appendix #',
      'Nothing here.',
    ].join('\n\n');
    const chunks = chunkText(text, { tokenizer });
    expect(chunks.map((chunk) => chunk.headingPath)).toEqual([
      [],
      ['Handbook', 'Refunds'],
      ['Handbook', 'Refunds', 'Digital goods'],
      ['Handbook', 'Shipping'],
      ['Appendix'],
    ]);
    // A heading with no text of its own opens the chunk of the heading below it.
    expect(chunks[1]!.text).toBe('# Handbook\n\n## Refunds\n\nRefunds are issued within 14 days.');
    expect(chunks[3]!.text).toBe('## Shipping\n\nOrders ship in 2 days.');
    expectValidChunks(text, chunks, 512);
  });

  it('does not read headings inside code fences and keeps a fitting fence whole', () => {
    const code = '```python\n# not a heading\n\n\nprint("hi")\n```';
    const text = `# Setup\n\nInstall it.\n\n${code}\n\n## Next\n\nDone.`;
    const chunks = chunkText(text, { tokenizer, chunkSize: 64, chunkOverlap: 0 });
    expect(chunks.map((chunk) => chunk.headingPath)).toEqual([['Setup'], ['Setup', 'Next']]);
    expect(chunks[0]!.text).toContain(code);
  });

  it('keeps paragraphs whole when they fit', () => {
    const next = random(7);
    const paragraphs = Array.from({ length: 12 }, () => paragraph(next, 3));
    const text = paragraphs.join('\n\n');
    const chunkSize = 128;
    const chunks = chunkText(text, { tokenizer, chunkSize, chunkOverlap: 0 });
    expect(chunks.length).toBeGreaterThan(1);
    expectValidChunks(text, chunks, chunkSize);
    for (const chunk of chunks) {
      // Every chunk is a run of whole paragraphs.
      for (const piece of chunk.text.split('\n\n')) expect(paragraphs).toContain(piece);
    }
  });

  it('splits an oversized paragraph at sentence boundaries', () => {
    const next = random(11);
    const sentences = Array.from({ length: 40 }, () => sentence(next));
    const text = sentences.join(' ');
    const chunkSize = 64;
    const chunks = chunkText(text, { tokenizer, chunkSize, chunkOverlap: 0 });
    expect(chunks.length).toBeGreaterThan(3);
    expectValidChunks(text, chunks, chunkSize);
    expect(chunks.map((chunk) => chunk.text).join(' ')).toBe(text);
    for (const chunk of chunks) {
      expect(chunk.text).toMatch(/^[A-Z]/);
      expect(chunk.text).toMatch(/\.$/);
    }
  });

  it('splits an oversized sentence at token boundaries', () => {
    const text = `${sentence(random(3), 400)} Short tail sentence.`;
    const chunkSize = 50;
    const chunks = chunkText(text, { tokenizer, chunkSize, chunkOverlap: 10 });
    expect(chunks.length).toBeGreaterThan(5);
    expectValidChunks(text, chunks, chunkSize);
    expect(coversAllText(text, chunks)).toBe(true);
  });

  it('cuts text with multi-byte characters on character boundaries', () => {
    const text = 'Ünïcödé 😀🎉🚀 テキスト '.repeat(60);
    const chunks = chunkText(text, { tokenizer, chunkSize: 16, chunkOverlap: 0 });
    expectValidChunks(text, chunks, 16);
    for (const chunk of chunks) expect(chunk.text).not.toContain('\uFFFD');
    expect(coversAllText(text, chunks)).toBe(true);
  });

  it('repeats whole trailing sentences of the previous chunk as overlap', () => {
    const next = random(5);
    const sentences = Array.from({ length: 30 }, () => sentence(next));
    const text = sentences.join(' ');
    const chunkOverlap = 24;
    const chunks = chunkText(text, { tokenizer, chunkSize: 80, chunkOverlap });
    expectValidChunks(text, chunks, 80);
    let overlapped = 0;
    for (let index = 1; index < chunks.length; index++) {
      const previous = chunks[index - 1]!;
      const current = chunks[index]!;
      if (current.start >= previous.end) continue;
      overlapped++;
      const shared = text.slice(current.start, previous.end);
      // The overlap is whole sentences, at most chunkOverlap tokens, never the whole chunk.
      expect(sentences.some((item) => shared.startsWith(item))).toBe(true);
      expect(shared).toMatch(/\.$/);
      expect(tokenizer.count(shared)).toBeLessThanOrEqual(chunkOverlap + 1);
      expect(current.start).toBeGreaterThan(previous.start);
    }
    expect(overlapped).toBeGreaterThan(0);
  });

  it('has no overlap when chunkOverlap is 0 and never overlaps across headings', () => {
    const text = document(42);
    const chunks = chunkText(text, { tokenizer, chunkSize: 64, chunkOverlap: 0 });
    for (let index = 1; index < chunks.length; index++) {
      expect(chunks[index]!.start).toBeGreaterThanOrEqual(chunks[index - 1]!.end);
    }
    const withOverlap = chunkText(text, { tokenizer, chunkSize: 64, chunkOverlap: 20 });
    for (let index = 1; index < withOverlap.length; index++) {
      const current = withOverlap[index]!;
      if (current.text.startsWith('#')) {
        expect(current.start).toBeGreaterThanOrEqual(withOverlap[index - 1]!.end);
      }
    }
  });

  it('keeps every invariant over generated documents and chunk sizes', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const text = document(seed);
      for (const [chunkSize, chunkOverlap] of [
        [16, 0],
        [32, 8],
        [100, 20],
        [512, 64],
      ] as const) {
        const chunks = chunkText(text, { tokenizer, chunkSize, chunkOverlap });
        expectValidChunks(text, chunks, chunkSize);
        expect(coversAllText(text, chunks)).toBe(true);
      }
    }
  });

  it('is deterministic', () => {
    const text = document(99);
    expect(chunkText(text, { tokenizer, chunkSize: 48 })).toEqual(
      chunkText(text, { tokenizer, chunkSize: 48 }),
    );
  });

  it('rejects invalid options with a ValidationError naming the option', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ chunkSize: 15 }, 'chunkSize'],
      [{ chunkSize: 100.5 }, 'chunkSize'],
      [{ chunkSize: Number.NaN }, 'chunkSize'],
      [{ chunkOverlap: -1 }, 'chunkOverlap'],
      [{ chunkSize: 64, chunkOverlap: 64 }, 'chunkOverlap'],
      [{ chunkOverlap: 1.5 }, 'chunkOverlap'],
      [{ tokenizer: undefined }, 'tokenizer'],
    ];
    for (const [options, path] of cases) {
      const call = () => chunkText('Some text.', { tokenizer, ...options } as never);
      expect(call).toThrow(ValidationError);
      try {
        call();
      } catch (error) {
        expect((error as ValidationError).issues[0]?.path).toBe(path);
        expect((error as ValidationError).message).toContain(path);
      }
    }
  });

  it('defaults the overlap below small chunk sizes', () => {
    expect(() => chunkText('Some text.', { tokenizer, chunkSize: 16 })).not.toThrow();
  });
});
