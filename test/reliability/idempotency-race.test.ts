/**
 * Two engines on one session store (two app instances, here in one process so the order of
 * events is fixed) get the same `messageId`. The store lets one user message per key and one
 * answer per message in; the request that loses a race returns the stored answer, or a typed
 * error, never a second answer.
 */
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { createChatEngine } from '../../src/index.js';
import type { SessionStore } from '../../src/ports/session-store.js';
import { createMockLLM } from '../../src/testing/index.js';
import { handbook } from '../fixtures/handbook.js';

const QUESTION = 'How long do refunds take?';

/** A promise to open by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/**
 * Instance B's view of the shared store: `appendMessages` announces itself (`arrived`), waits
 * for `proceed`, and reports a rejection (`rejected`).
 */
function gatedStore(store: SessionStore, proceed: Promise<void>) {
  const arrived = gate();
  const rejected = gate();
  const view: SessionStore = {
    ...store,
    async appendMessages(...args) {
      arrived.open();
      await proceed;
      try {
        await store.appendMessages(...args);
      } catch (error) {
        rejected.open();
        throw error;
      }
    },
  };
  return { view, arrived: arrived.opened, rejected: rejected.opened };
}

/** Instance A: its model announces the call and answers when `release` opens. */
function instanceA(store: SessionStore) {
  const called = gate();
  const release = gate();
  const llm = createMockLLM({
    responses: async () => {
      called.open();
      await release.opened;
      return 'Answer of A.';
    },
  });
  const engine = createChatEngine({ llm, sessionStore: store, rewrite: { llm: 'never' } });
  return { engine, llm, called: called.opened, release: release.open };
}

async function setUp(settingsB: { timeoutMs?: number } = {}) {
  // Without the turn lease (a store lacking `acquireTurn`): the races below are those the
  // store's own arbitration settles; with the lease the two turns never overlap at all
  // (`turn-lease.test.ts`).
  const { acquireTurn: _lease, ...store } = createMemorySessionStore();
  const a = instanceA(store);
  const aCalled = a.called;
  const gated = gatedStore(store, aCalled);
  const llmB = createMockLLM({ responses: 'Answer of B.' });
  const engineB = createChatEngine({
    llm: llmB,
    sessionStore: gated.view,
    rewrite: { llm: 'never' },
    ...(settingsB.timeoutMs === undefined
      ? {}
      : { resilience: { timeoutMs: settingsB.timeoutMs, retries: 0 } }),
  });
  await Promise.all([a.engine.ingest(handbook), engineB.ingest(handbook)]);
  const session = await a.engine.createSession({ userId: 'u1' });
  const request = { sessionId: session.id, userId: 'u1', messageId: 'key-1', message: QUESTION };
  return { store, a, engineB, llmB, gated, session, request };
}

async function stored(store: SessionStore, sessionId: string) {
  const messages = await store.listMessages(sessionId);
  return {
    questions: messages.filter((message) => message.role === 'user'),
    answers: messages.filter((message) => message.role === 'assistant'),
  };
}

describe('the same messageId on two engines sharing a store', () => {
  it('the loser of the race for the user message waits and returns the winner’s answer', async () => {
    const { store, a, engineB, llmB, gated, session, request } = await setUp();
    // B looked the key up (none yet) and is about to store the message when A stores it first.
    const b = engineB.chat(request);
    await gated.arrived;
    const first = a.engine.chat(request);
    await gated.rejected; // the store refused B's copy of the message
    a.release();
    const [fromA, fromB] = await Promise.all([first, b]);

    expect(fromA.text).toContain('Answer of A.');
    expect(fromB.text).toBe(fromA.text);
    expect(fromB.messageId).toBe(fromA.messageId);
    expect(llmB.calls).toHaveLength(0);
    const { questions, answers } = await stored(store, session.id);
    expect(questions).toHaveLength(1);
    expect(answers.map((answer) => answer.replyTo)).toEqual([questions[0]!.id]);
  });

  it('gives a ConflictError when the winner does not answer within the bound', async () => {
    const { store, a, engineB, llmB, gated, session, request } = await setUp({ timeoutMs: 50 });
    const b = engineB.chat(request);
    await gated.arrived;
    const first = a.engine.chat(request);
    await expect(b).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/in progress/),
    });
    a.release();
    expect((await first).text).toContain('Answer of A.');
    expect(llmB.calls).toHaveLength(0);
    const { questions, answers } = await stored(store, session.id);
    expect(questions).toHaveLength(1);
    expect(answers).toHaveLength(1);
  });

  it('stops waiting when the request is aborted', async () => {
    const { a, engineB, gated, request } = await setUp();
    const controller = new AbortController();
    const b = engineB.chat({ ...request, signal: controller.signal });
    await gated.arrived;
    const first = a.engine.chat(request);
    await gated.rejected;
    controller.abort();
    await expect(b).rejects.toMatchObject({ code: 'aborted' });
    a.release();
    expect((await first).text).toContain('Answer of A.');
  });

  it('the loser of the race for the answer returns the stored answer instead of a second one', async () => {
    const { store, a, engineB, llmB, session, request } = await setUp();
    // A stored the message and is generating; B finds it unanswered, re-runs and answers first.
    const first = a.engine.chat(request);
    await a.called;
    const fromB = await engineB.chat(request);
    expect(fromB.text).toContain('Answer of B.');
    a.release();
    const fromA = await first;

    expect(fromA.text).toBe(fromB.text);
    expect(fromA.messageId).toBe(fromB.messageId);
    expect(llmB.calls).toHaveLength(1);
    expect(a.llm.calls).toHaveLength(1);
    const { questions, answers } = await stored(store, session.id);
    expect(questions).toHaveLength(1);
    expect(answers).toHaveLength(1);
    expect(answers[0]!.content).toBe(fromB.text);
  });
});
