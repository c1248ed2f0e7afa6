import { describe, expect, it } from 'vitest';
import { readSse } from '../../../src/adapters/http/sse.js';
import { AbortError, ProviderError } from '../../../src/errors/index.js';
import { collect } from '../../../src/testing/shared.js';

/** A body delivering `bytes` in pieces of `size` bytes. */
function body(
  text: string,
  size: number,
  options: { error?: Error } = {},
): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) {
        if (options.error) controller.error(options.error);
        else controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + size));
      offset += size;
    },
  });
}

const STREAM =
  ': comment\n\nevent: greeting\ndata: {"text":"héllo ✓"}\n\ndata: line one\ndata: line two\n\nid: 7\ndata: last\n\n';

describe('readSse', () => {
  it('parses events whatever the piece size, multi-byte characters included', async () => {
    for (const size of [1, 2, 3, 5, 1000]) {
      const events = await collect(readSse(body(STREAM, size), { provider: 'p' }));
      expect(events, `piece size ${size}`).toEqual([
        { event: 'greeting', data: '{"text":"héllo ✓"}', id: undefined },
        { event: undefined, data: 'line one\nline two', id: undefined },
        { event: undefined, data: 'last', id: '7' },
      ]);
    }
  });

  it('drops an event cut off by the end of the body', async () => {
    const events = await collect(readSse(body('data: a\n\ndata: b', 4), { provider: 'p' }));
    expect(events.map((event) => event.data)).toEqual(['a']);
  });

  it('maps a broken body to a retryable ProviderError after the events before it', async () => {
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of readSse(
        body('data: a\n\n', 100, { error: new TypeError('terminated') }),
        {
          provider: 'p',
        },
      )) {
        seen.push(event.data);
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['a']);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(true);
  });

  it('stops with AbortError once the signal fires, even with events still queued', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of readSse(body('data: a\n\ndata: b\n\ndata: c\n\n', 1000), {
        provider: 'p',
        signal: controller.signal,
      })) {
        seen.push(event.data);
        controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['a']);
    expect(AbortError.isInstance(error)).toBe(true);
  });

  it('cancels the body when the consumer stops early', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: x\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const _event of readSse(stream, { provider: 'p' })) break;
    expect(cancelled).toBe(true);
  });

  it('rejects an event larger than maxBufferSize', async () => {
    const error = await collect(
      readSse(body(`data: ${'x'.repeat(500)}\n\n`, 50), { provider: 'p', maxBufferSize: 100 }),
    ).catch((e: unknown) => e);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).retryable).toBe(false);
  });
});
