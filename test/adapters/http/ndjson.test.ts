import { describe, expect, it } from 'vitest';
import { readNdjson } from '../../../src/adapters/http/ndjson.js';
import { ProviderError } from '../../../src/errors/index.js';
import { collect } from '../../../src/testing/shared.js';

function body(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

describe('readNdjson', () => {
  it('yields one value per line whatever the piece size, skipping blank lines', async () => {
    const text = '{"a":1}\n\n{"b":"ü ✓"}\r\n{"c":[1,2]}\n';
    for (const size of [1, 3, 1000]) {
      expect(await collect(readNdjson(body(text, size), { provider: 'p' }))).toEqual([
        { a: 1 },
        { b: 'ü ✓' },
        { c: [1, 2] },
      ]);
    }
  });

  it('parses a complete last line without its newline', async () => {
    expect(await collect(readNdjson(body('{"a":1}\n{"b":2}', 4), { provider: 'p' }))).toEqual([
      { a: 1 },
      { b: 2 },
    ]);
  });

  it('rejects a malformed line (not retryable) after the values before it', async () => {
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const value of readNdjson(body('{"a":1}\n{"b":\n{"c":3}\n', 5), {
        provider: 'ollama',
      })) {
        seen.push(value);
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ a: 1 }]);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toContain('ollama');
  });

  it('treats a body ending inside a line as cut (retryable)', async () => {
    const error = await collect(readNdjson(body('{"a":1}\n{"b":', 100), { provider: 'p' })).catch(
      (e: unknown) => e,
    );
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(true);
  });
});
