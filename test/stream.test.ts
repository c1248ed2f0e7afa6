import { describe, expect, it } from 'vitest';
import { createChatEngine, NotFoundError, ConflictError } from '../src/index.js';
import { handbook } from './fixtures/handbook.js';

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
  }
}

/** Parses `event:` / `data:` frames the way an EventSource does. */
function parseSSE(text: string): { event: string; data: unknown }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim().length > 0)
    .map((frame) => {
      const event = /^event: (.+)$/m.exec(frame)?.[1] ?? 'message';
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) as unknown };
    });
}

describe('ChatStream', () => {
  it('serialises every part as a Server-Sent Event, in order', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const response = engine
      .stream({ message: 'How long does shipping take?', mode: 'query' })
      .toResponse();
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseSSE(await readAll(response.body!));
    const names = events.map((event) => event.event);
    expect(names[0]).toBe('route');
    expect(names.indexOf('sources')).toBeLessThan(names.indexOf('text-delta'));
    expect(names.slice(-3)).toEqual(['citations', 'confidence', 'done']);
    const text = events
      .filter((event) => event.event === 'text-delta')
      .map((event) => (event.data as { text: string }).text)
      .join('');
    const done = events.at(-1)!.data as { response: { text: string } };
    expect(text).toBe(done.response.text);
    expect(text).toMatch(/business days/);
  });

  it('repeats the part type in every frame’s data, for readers that ignore `event:`', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const events = parseSSE(
      await readAll(
        engine.stream({ message: 'What is the refund policy?', mode: 'query' }).toSSE(),
      ),
    );
    expect(events[0]).toEqual({
      event: 'route',
      data: { type: 'route', route: expect.any(String), k: expect.any(Number) },
    });
    for (const { event, data } of events) expect((data as { type: string }).type).toBe(event);
  });

  it('ends with an error event when the turn fails, and .response rejects', async () => {
    const engine = createChatEngine();
    const stream = engine.stream({ message: '' });
    const events = parseSSE(await readAll(stream.toSSE()));
    expect(events).toEqual([
      {
        event: 'error',
        data: {
          type: 'error',
          error: {
            code: 'validation_error',
            message: expect.stringMatching(/message/),
            issues: [{ path: 'message', message: expect.any(String) }],
            retryable: false,
          },
          partialMessageId: null,
        },
      },
    ]);
    await expect(stream.response).rejects.toMatchObject({ code: 'validation_error' });
  });

  it('lets a second reader replay every part', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const stream = engine.stream({ message: 'What is the refund policy?', mode: 'query' });
    const first: string[] = [];
    for await (const part of stream) first.push(part.type);
    const second: string[] = [];
    for await (const part of stream) second.push(part.type);
    expect(second).toEqual(first);
  });
});

describe('session lifecycle', () => {
  it('lists a user’s sessions newest first with a cursor, ends and deletes them', async () => {
    const engine = createChatEngine();
    const ids: string[] = [];
    for (let index = 0; index < 5; index++)
      ids.push((await engine.createSession({ userId: 'u1' })).id);
    await engine.createSession({ userId: 'someone-else' });
    const first = await engine.listSessions({ userId: 'u1', limit: 3 });
    const second = await engine.listSessions({ userId: 'u1', limit: 3, cursor: first.nextCursor! });
    expect([...first.sessions, ...second.sessions].map((session) => session.id)).toEqual(
      ids.reverse(),
    );
    expect(second.nextCursor).toBeNull();

    const ended = await engine.endSession({ sessionId: ids[0]!, userId: 'u1' });
    expect(ended.status).toBe('ended');
    await expect(engine.endSession({ sessionId: ids[0]!, userId: 'u1' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await engine.deleteSession({ sessionId: ids[1]!, userId: 'u1' });
    await expect(engine.history({ sessionId: ids[1]!, userId: 'u1' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});

describe('history pages and archiving', () => {
  it('pages with a cursor that stays correct while messages are appended', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const session = await engine.createSession({ userId: 'u1' });
    for (const message of ['What is the refund policy?', 'How long does shipping take?']) {
      await engine.chat({ sessionId: session.id, message });
    }
    const first = await engine.history({ sessionId: session.id, userId: 'u1', limit: 3 });
    expect(first.messages).toHaveLength(3);
    expect(first.nextCursor).not.toBeNull();
    await engine.chat({ sessionId: session.id, message: 'Where is the warehouse?' });
    const second = await engine.history({
      sessionId: session.id,
      userId: 'u1',
      limit: 3,
      cursor: first.nextCursor!,
    });
    const all = await engine.history({ sessionId: session.id, userId: 'u1', limit: 100 });
    expect([...first.messages, ...second.messages].map((message) => message.id)).toEqual(
      all.messages.slice(0, 6).map((message) => message.id),
    );
    await expect(
      engine.history({ sessionId: session.id, userId: 'u1', cursor: 'garbage' }),
    ).rejects.toMatchObject({ code: 'validation_error' });
  });

  it('archives a session: kept and listed, closed to new messages', async () => {
    const engine = createChatEngine();
    const session = await engine.createSession({ userId: 'u1' });
    const archived = await engine.archiveSession({ sessionId: session.id, userId: 'u1' });
    expect(archived.status).toBe('archived');
    const listed = await engine.listSessions({ userId: 'u1' });
    expect(listed.sessions[0]).toMatchObject({ id: session.id, status: 'archived' });
    await expect(engine.chat({ sessionId: session.id, message: 'hello?' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(
      engine.archiveSession({ sessionId: session.id, userId: 'other' }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});
