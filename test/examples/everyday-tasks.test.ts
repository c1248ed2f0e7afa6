import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatEngine, type ChatEngine } from '../../src/index.js';
import {
  addFolder,
  askCancellable,
  eraseUser,
  rateAnswer,
  streamAnswer,
} from '../../examples/everyday-tasks.js';

// The functions docs/getting-started.md's "Everyday tasks" quote, run as a user would.
describe('examples/everyday-tasks', () => {
  let folder: string;
  let engine: ChatEngine;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'cortexis-everyday-'));
    await writeFile(
      join(folder, 'returns.md'),
      '# Returns\n\nItems can be returned within 30 days of delivery for a full refund.\n',
    );
    await writeFile(join(folder, 'shipping.md'), '# Shipping\n\nOrders ship within 2 days.\n');
    await writeFile(join(folder, 'blob.bin'), Buffer.from([0, 1, 2, 255]));
    engine = createChatEngine();
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('adds a folder (skipping what it cannot read), streams, rates and erases', async () => {
    expect(await addFolder(engine, folder)).toBe(2);
    const session = await engine.createSession({ userId: 'u1' });
    const text = await streamAnswer(engine, session.id, 'How long do I have to return an item?');
    expect(text).toMatch(/30 days/);
    expect(text).toMatch(/\[source: S1\]/);

    const { messages } = await engine.history({ sessionId: session.id, userId: 'u1' });
    const answer = messages.find((message) => message.role === 'assistant');
    expect(answer).toBeDefined();
    const record = await rateAnswer(engine, answer!.id, 'u1');
    expect(record.rating).toBe('good');

    const report = await eraseUser(engine, 'u1');
    expect(report).toMatchObject({ sessions: 1, messages: 2, feedback: 1 });
    await expect(engine.getSession({ sessionId: session.id, userId: 'u1' })).rejects.toThrow();
  });

  it('reports a cancelled turn as no answer, and the session goes on', async () => {
    const session = await engine.createSession({ userId: 'u2' });
    const controller = new AbortController();
    controller.abort();
    const cancelled = askCancellable(engine, session.id, 'When do orders ship?', controller.signal);
    expect(await cancelled).toBeUndefined();
    expect(await askCancellable(engine, session.id, 'When do orders ship?')).toMatch(/2 days/);
  });
});
