/**
 * Seed 001 (chat mode): a request picks its chat profile.
 */
import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../src/engine.js';
import { ValidationError } from '../../src/errors/index.js';

describe('seed 001: chatProfile per request', () => {
  it('a conversation a request starts keeps the request’s profile', async () => {
    const engine = createChatEngine();
    const reply = await engine.chat({
      userId: 'u',
      message: 'Hello there',
      chatProfile: 'compact',
    });
    const session = await engine.getSession({ sessionId: reply.sessionId!, userId: 'u' });
    expect(session.settings.chatProfile).toBe('compact');
  });

  it('refuses an unknown profile before anything is stored, naming it', async () => {
    const engine = createChatEngine();
    const session = await engine.createSession({ userId: 'u' });
    const error = await engine
      .chat({ sessionId: session.id, userId: 'u', message: 'Hi', chatProfile: 'nope' })
      .catch((caught: unknown) => caught);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as ValidationError).issues[0]?.path).toBe('chatProfile');
    expect((await engine.history({ sessionId: session.id, userId: 'u' })).messages).toEqual([]);
  });

  it('takes a profile of the engine’s own', async () => {
    const engine = createChatEngine({
      compaction: {
        profiles: {
          tiny: {
            thresholdTokens: 500,
            maxTurns: 2,
            summaryTokens: 100,
            reservedTokens: 200,
          },
        },
      },
    });
    await expect(
      engine.chat({ userId: 'u', message: 'Hello', chatProfile: 'tiny' }),
    ).resolves.toMatchObject({
      status: 'complete',
    });
  });
});
