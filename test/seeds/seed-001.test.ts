/**
 * Seed 001 (chat mode): a request picks its chat profile; responses carry the turn number and
 * whether history was compacted; a chat profile names its summariser and where the summary goes.
 */
import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../src/engine.js';
import { ConfigError, ValidationError } from '../../src/errors/index.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';
import { CHAT_PROFILES, listChatProfiles, resolveChatProfile } from '../../src/index.js';

describe('seed 001: chatProfile per request', () => {
  it('a conversation a request starts keeps the request’s profile', async () => {
    const engine = createChatEngine();
    const reply = await engine.chat({
      userId: 'u',
      mode: 'chat',
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

describe('seed 001: turn number, history compaction and the summary settings', () => {
  const SUMMARY = 'The user asked about refunds twice.';
  const questions = [
    'How long do refunds take?',
    'Are refunds paid to the card?',
    'Do refunds cover shipping?',
    'Can refunds be split?',
  ];

  async function converse(profile: Record<string, unknown>) {
    const main = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
    const cheap = createMockLLM({ responses: SUMMARY });
    const engine = createChatEngine({
      llm: main,
      models: { cheap },
      retrieval: { minSimilarity: 0 },
      compaction: {
        profile: 'short',
        profiles: {
          short: {
            thresholdTokens: 100_000,
            maxTurns: 2,
            summaryTokens: 50,
            reservedTokens: 400,
            ...profile,
          },
        },
      },
    });
    await engine.ingest([{ id: 'refunds', text: 'Refunds take 14 days to reach the card.' }]);
    const session = await engine.createSession({ userId: 'u' });
    const replies = [];
    for (const message of questions) {
      replies.push(await engine.chat({ sessionId: session.id, userId: 'u', message }));
      await engine.flush();
    }
    return { engine, session, replies, main, cheap };
  }

  const lastSystem = (model: ReturnType<typeof createMockLLM>): string =>
    model.calls.at(-1)!.request.system ?? '';

  it('numbers the turns and reports the turn after a compaction', async () => {
    const { engine, session, replies } = await converse({});
    expect(replies.map((reply) => reply.turnNumber)).toEqual([1, 2, 3, 4]);
    // Turn 3 crossed maxTurns: it was compacted after its answer, so turn 4 saw the summary.
    expect(replies.map((reply) => reply.historyCompacted)).toEqual([false, false, false, true]);
    const retried = await engine.chat({
      sessionId: session.id,
      userId: 'u',
      message: 'Is there a fee?',
      messageId: 'fee',
    });
    const replay = await engine.chat({
      sessionId: session.id,
      userId: 'u',
      message: 'Is there a fee?',
      messageId: 'fee',
    });
    expect(retried.turnNumber).toBe(5);
    expect(replay).toMatchObject({ messageId: retried.messageId, turnNumber: 5 });
    const stateless = await engine.chat({ userId: 'u', message: 'Refunds?', mode: 'query' });
    expect(stateless).toMatchObject({ turnNumber: null, historyCompacted: false });
  });

  it('summarises with the profile’s summarizationModel, placed where summaryPosition says', async () => {
    const { engine, session, main, cheap } = await converse({
      summarizationModel: 'cheap',
      summaryPosition: 'after_retrieval',
    });
    expect(cheap.calls.length).toBeGreaterThan(0);
    expect(main.calls.every((call) => !(call.request.system ?? '').includes('Summarize'))).toBe(
      true,
    );
    const history = await engine.history({ sessionId: session.id, userId: 'u', limit: 100 });
    expect(history.messages.find((m) => m.role === 'system-summary')?.content).toBe(SUMMARY);
    const system = lastSystem(main);
    expect(system.indexOf(SUMMARY)).toBeGreaterThan(system.indexOf('</sources>'));
  });

  it('puts the summary before the sources by default, or leaves it out of the context', async () => {
    const before = await converse({ summarizationModel: 'cheap' });
    const system = lastSystem(before.main);
    expect(system).toContain(SUMMARY);
    expect(system.indexOf(SUMMARY)).toBeLessThan(system.indexOf('<sources>'));

    const without = await converse({ summarizationModel: 'cheap', includeSummaryInContext: false });
    expect(without.replies.at(-1)!.historyCompacted).toBe(true);
    expect(lastSystem(without.main)).not.toContain(SUMMARY);
    const history = await without.engine.history({
      sessionId: without.session.id,
      userId: 'u',
      limit: 100,
    });
    expect(history.messages.some((m) => m.role === 'system-summary')).toBe(true);
  });

  it('refuses a summarizationModel the engine does not have, naming the field', () => {
    let error: unknown;
    try {
      createChatEngine({
        compaction: {
          profiles: {
            x: {
              thresholdTokens: 500,
              maxTurns: 3,
              summaryTokens: 50,
              reservedTokens: 100,
              summarizationModel: 'missing',
            },
          },
        },
      });
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as ConfigError).issues[0]?.path).toBe('compaction.profiles.x.summarizationModel');
  });
});

describe('seed 001: a call naming neither mode nor session is a stateless query', () => {
  it('stores nothing and returns no session', async () => {
    const llm = createMockLLM({ responses: 'Hello.' });
    const engine = createChatEngine({ llm });
    const reply = await engine.chat({ userId: 'u', message: 'What is the refund policy?' });
    expect(reply.sessionId).toBeNull();
    expect(reply.userMessageId).toBeNull();
    expect((await engine.listSessions({ userId: 'u' })).sessions).toEqual([]);
    // History is accepted there, as for an explicit query.
    await expect(
      engine.chat({ message: 'And then?', history: [{ role: 'user', content: 'Hi' }] }),
    ).resolves.toMatchObject({ sessionId: null });
  });

  it('naming a session continues it; mode chat without one starts one', async () => {
    const engine = createChatEngine({ llm: createMockLLM({ responses: 'Hello.' }) });
    const session = await engine.createSession({ userId: 'u' });
    const reply = await engine.chat({ sessionId: session.id, userId: 'u', message: 'Hi' });
    expect(reply.sessionId).toBe(session.id);
    const started = await engine.chat({ userId: 'u', mode: 'chat', message: 'Hi' });
    expect(started.sessionId).not.toBeNull();
    expect((await engine.listSessions({ userId: 'u' })).sessions).toHaveLength(2);
  });

  it('an explicit chat mode with history starts a session seeded with that history', async () => {
    const engine = createChatEngine();
    const reply = await engine.chat({
      mode: 'chat',
      userId: 'u',
      message: 'Hi',
      history: [{ role: 'user', content: 'x' }],
    });
    expect(reply.sessionId).not.toBeNull();
    const stored = await engine.history({ sessionId: reply.sessionId!, userId: 'u' });
    expect(stored.messages[0]).toMatchObject({ content: 'x', metadata: { clientHistory: true } });
  });
});

describe('seed 001: chat profiles are listable', () => {
  it('lists the built-in table and custom profiles, marking the default', () => {
    const engine = createChatEngine({
      compaction: {
        profile: 'tiny',
        profiles: {
          tiny: { thresholdTokens: 500, maxTurns: 3, summaryTokens: 50, reservedTokens: 100 },
          compact: { thresholdTokens: 900, maxTurns: 4, summaryTokens: 60, reservedTokens: 100 },
        },
      },
    });
    const listed = listChatProfiles(engine.config.compaction);
    expect(listed.map((entry) => [entry.name, entry.origin, entry.isDefault])).toEqual([
      ['default', 'built-in', false],
      ['long_context', 'built-in', false],
      ['compact', 'custom', false],
      ['tiny', 'custom', true],
    ]);
    expect(listed[2]!.profile.thresholdTokens).toBe(900);
    expect(resolveChatProfile(engine.config.compaction, 'tiny').maxTurns).toBe(3);
    // The seed's table, exported.
    expect(CHAT_PROFILES.long_context).toMatchObject({ thresholdTokens: 4000, maxTurns: 20 });
    expect(listChatProfiles().map((entry) => entry.name)).toEqual([
      'default',
      'long_context',
      'compact',
    ]);
  });

  it('getting an unknown or hostile name is a ConfigError naming it', () => {
    for (const name of ['nope', '__proto__', 'a\u0000b', '\uD800', 'x'.repeat(10_000)]) {
      expect(() => resolveChatProfile(undefined, name)).toThrow(ConfigError);
    }
  });
});

describe('seed 001: chat-mode instructions', () => {
  it('the second turn’s system prompt carries the seed’s five instructions', async () => {
    const llm = createMockLLM({ responses: 'Answer.' });
    const engine = createChatEngine({ llm, rewrite: { llm: 'never' } });
    await engine.ingest([
      { id: 'refunds', text: 'Refunds are issued within 14 days of a return.' },
    ]);
    const session = await engine.createSession({ userId: 'u' });
    await engine.chat({ sessionId: session.id, userId: 'u', message: 'How long do refunds take?' });
    await engine.chat({
      sessionId: session.id,
      userId: 'u',
      message: 'Are refunds issued after a return?',
    });
    const first = llm.calls[0]!.request.system ?? '';
    const second = llm.calls[1]!.request.system ?? '';
    for (const instruction of [
      'You are in a multi-turn conversation with the user',
      'Previous conversation history is provided for context',
      'Reference previous exchanges when relevant',
      'Maintain consistency with previous answers',
      'If the user refers to "earlier" topics, use the conversation history',
    ]) {
      expect(second).toContain(instruction);
      expect(first).not.toContain(instruction);
    }
  });
});
