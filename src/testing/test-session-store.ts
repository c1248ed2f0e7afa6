import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageRecord, SessionRecord, Source } from '../ports/chat-records.js';
import type { SessionStore } from '../ports/session-store.js';
import { ulid } from '../util/ids.js';
import {
  abortedSignal,
  expectErrorCode,
  titled,
  uniqueName,
  type SkipReasons,
  type SuiteOptions,
} from './shared.js';

/** Parts of the `SessionStore` contract an adapter may lack (see {@link SkipReasons}). */
export type SessionStoreCapability = 'abort';

/** Options of {@link testSessionStore}. */
export interface SessionStoreSuiteOptions extends SuiteOptions<SessionStore> {
  /** Capabilities the adapter lacks, with the reason printed in the skipped tests' titles. */
  readonly skip?: SkipReasons<SessionStoreCapability> | undefined;
}

const BASE_TIME = Date.parse('2024-03-01T12:00:00.000Z');

/** ISO time `minutes` after a fixed base. */
const at = (minutes: number): string => new Date(BASE_TIME + minutes * 60_000).toISOString();

function makeSession(userId: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: ulid(),
    userId,
    title: 'Refunds',
    status: 'active',
    createdAt: at(0),
    updatedAt: at(0),
    endedAt: null,
    trajectoryId: null,
    settings: { systemPrompt: 'Be brief.', topK: 5 },
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: { channel: 'web', priority: 2, pinned: true, note: null },
    ...overrides,
  };
}

const SOURCE: Source = {
  id: 'S1',
  chunkId: 'handbook#3',
  documentId: 'handbook',
  title: 'Handbook',
  uri: 'docs/handbook.md',
  snippet: 'Refunds are issued within 14 days.',
  score: 0.75,
  vectorScore: 0.5,
  keywordScore: 1,
  fusedScore: 0.03125,
  type: 'hybrid',
  graphBoost: 1,
  learnedBoost: 1.25,
  graphContext: { nodeId: 'chunk:handbook#3', relatedNodeCount: 2, pathDepth: 0 },
  metadata: { section: 'Refunds', position: 3 },
};

function makeMessage(
  session: SessionRecord,
  minutes: number,
  overrides: Partial<MessageRecord> = {},
): MessageRecord {
  return {
    id: ulid(),
    sessionId: session.id,
    userId: session.userId,
    role: 'user',
    content: `message at minute ${minutes}`,
    status: 'complete',
    createdAt: at(minutes),
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
    ...overrides,
  };
}

function makeAnswer(session: SessionRecord, minutes: number): MessageRecord {
  return makeMessage(session, minutes, {
    role: 'assistant',
    content: 'Refunds are issued within 14 days [source: S1].',
    sources: [SOURCE],
    confidence: {
      overall: 0.75,
      level: 'high',
      sourceQuality: 0.75,
      sourceDiversity: 0.5,
      semanticCohesion: 1,
      graphContext: null,
      llmCertainty: 0.5,
      weights: {
        sourceQuality: 0.5,
        sourceDiversity: 0.25,
        semanticCohesion: 0.125,
        graphContext: 0,
        llmCertainty: 0.125,
      },
    },
    timings: { retrievalMs: 4, generationMs: 12, totalMs: 20 },
    metadata: { model: 'extractive' },
  });
}

/** Changes `value` however it can; frozen objects may throw, which is fine. */
function tryToMutate(mutate: () => void): void {
  try {
    mutate();
  } catch {
    // A frozen record refuses the change: also a way to protect stored state.
  }
}

/**
 * Registers a `describe` block checking a `SessionStore` against the port contract:
 * sessions (create, duplicate, get, update, delete with cascade), `listSessions` (owner
 * only, newest first by createdAt then id, cursor pages that stay correct when sessions
 * are added between pages), atomic `appendMessages` (stats, unknown session, duplicate ids
 * leave nothing applied), `listMessages` order/limit/offset, `countMessages` (also of one role), `getMessage`,
 * atomic `appendSummary` (covered messages marked, `uncoveredOnly` listing, unknown or
 * foreign covered ids leave nothing applied), `findMessage` (newest match, within the
 * session), one user message per
 * request id and one whole answer per user message (`conflict`, also under concurrent appends),
 * isolation of stored state from caller objects, and rejection of aborted calls.
 */
export function testSessionStore(options: SessionStoreSuiteOptions): void {
  const skip = options.skip ?? {};

  describe(options.title ?? 'SessionStore conformance', () => {
    let store: SessionStore;
    let userId: string;

    beforeEach(async () => {
      store = await options.create();
      userId = uniqueName('user');
    });

    afterEach(async () => {
      await options.destroy?.(store);
    });

    async function created(overrides: Partial<SessionRecord> = {}): Promise<SessionRecord> {
      const session = makeSession(userId, overrides);
      await store.createSession(session);
      return session;
    }

    async function contents(sessionId: string, order?: 'asc' | 'desc'): Promise<string[]> {
      const messages = await store.listMessages(sessionId, order ? { order } : {});
      return messages.map((message) => message.content);
    }

    it('declares its name and specification version', () => {
      expect(typeof store.name).toBe('string');
      expect(store.name.length).toBeGreaterThan(0);
      expect(store.specificationVersion).toBe('v1');
    });

    describe('sessions', () => {
      it('stores a session and returns it unchanged; an unknown id gives null', async () => {
        const session = await created();
        expect(await store.getSession(session.id)).toEqual(session);
        expect(await store.getSession(ulid())).toBeNull();
      });

      it("rejects a duplicate session id with code 'conflict' and keeps the first", async () => {
        const session = await created();
        await expectErrorCode(
          () => store.createSession({ ...session, title: 'Second' }),
          'conflict',
          'createSession with an existing id',
        );
        expect((await store.getSession(session.id))?.title).toBe('Refunds');
      });

      it('applies a patch to the given fields only and returns the updated session', async () => {
        const session = await created();
        const renamed = await store.updateSession(session.id, {
          title: 'Returns',
          updatedAt: at(5),
        });
        expect(renamed).toEqual({ ...session, title: 'Returns', updatedAt: at(5) });
        expect(await store.getSession(session.id)).toEqual(renamed);

        const ended = await store.updateSession(session.id, {
          status: 'ended',
          endedAt: at(9),
          trajectoryId: 'trajectory-1',
          settings: { temperature: 0.5 },
          title: null,
          updatedAt: at(9),
        });
        expect(ended).toEqual({
          ...session,
          title: null,
          status: 'ended',
          endedAt: at(9),
          trajectoryId: 'trajectory-1',
          settings: { temperature: 0.5 },
          updatedAt: at(9),
        });
        expect(await store.getSession(session.id)).toEqual(ended);
      });

      it('returns null when updating an unknown session', async () => {
        expect(await store.updateSession(ulid(), { title: 'x', updatedAt: at(1) })).toBeNull();
      });

      it('deletes a session with all its messages and says whether it existed', async () => {
        const session = await created();
        const keep = await created();
        const message = makeMessage(session, 1);
        const kept = makeMessage(keep, 1);
        await store.appendMessages(session.id, [message, makeAnswer(session, 2)]);
        await store.appendMessages(keep.id, [kept]);

        expect(await store.deleteSession(session.id)).toBe(true);
        expect(await store.getSession(session.id)).toBeNull();
        expect(await store.getMessage(message.id)).toBeNull();
        expect(await store.listMessages(session.id)).toEqual([]);
        expect(await store.countMessages(session.id)).toBe(0);
        expect(await store.deleteSession(session.id)).toBe(false);

        expect(await store.getMessage(kept.id)).toEqual(kept);
        expect(await store.countMessages(keep.id)).toBe(1);
      });

      it('is not changed by mutating the objects passed in or handed out', async () => {
        const session = makeSession(userId);
        const original = structuredClone(session);
        await store.createSession(session);
        tryToMutate(() => {
          (session as { title: string | null }).title = 'changed';
          (session.stats as { messageCount: number }).messageCount = 99;
        });
        const loaded = await store.getSession(session.id);
        expect(loaded).toEqual(original);
        tryToMutate(() => {
          (loaded as { title: string | null }).title = 'changed';
          (loaded!.settings as { topK?: number }).topK = 99;
        });
        expect(await store.getSession(session.id)).toEqual(original);

        const message = makeAnswer(original, 1);
        const messageCopy = structuredClone(message);
        await store.appendMessages(original.id, [message]);
        tryToMutate(() => {
          (message as { content: string }).content = 'changed';
          (message.sources as Source[]).pop();
        });
        const [listed] = await store.listMessages(original.id);
        expect(listed).toEqual(messageCopy);
        tryToMutate(() => {
          (listed as { content: string }).content = 'changed';
          (listed!.sources[0]!.metadata as Record<string, unknown>)['section'] = 'changed';
        });
        expect(await store.getMessage(message.id)).toEqual(messageCopy);
      });
    });

    describe('listSessions', () => {
      it("lists only the user's sessions, newest first by createdAt, then by id", async () => {
        const older = await created({ createdAt: at(1), updatedAt: at(1) });
        const tieA = await created({ createdAt: at(2), updatedAt: at(2) });
        const tieB = await created({ createdAt: at(2), updatedAt: at(2) });
        const newest = await created({ createdAt: at(3), updatedAt: at(3) });
        await store.createSession(makeSession(uniqueName('someone_else'), { createdAt: at(4) }));

        const page = await store.listSessions({ userId, limit: 10 });
        const [firstTie, secondTie] = [tieA, tieB].sort((a, b) => (a.id < b.id ? 1 : -1));
        expect(page.sessions.map((session) => session.id)).toEqual([
          newest.id,
          firstTie!.id,
          secondTie!.id,
          older.id,
        ]);
        expect(page.sessions[0]).toEqual(newest);
        expect(page.nextCursor).toBeNull();
      });

      it('gives nothing for a user without sessions', async () => {
        expect(await store.listSessions({ userId, limit: 5 })).toEqual({
          sessions: [],
          nextCursor: null,
        });
      });

      it('pages with an opaque cursor through every session exactly once', async () => {
        const sessions: SessionRecord[] = [];
        for (let minute = 0; minute < 5; minute++) {
          sessions.push(await created({ createdAt: at(minute), updatedAt: at(minute) }));
        }
        const first = await store.listSessions({ userId, limit: 2 });
        expect(first.sessions.map((session) => session.id)).toEqual([
          sessions[4]!.id,
          sessions[3]!.id,
        ]);
        expect(typeof first.nextCursor).toBe('string');
        const second = await store.listSessions({ userId, limit: 2, cursor: first.nextCursor! });
        expect(second.sessions.map((session) => session.id)).toEqual([
          sessions[2]!.id,
          sessions[1]!.id,
        ]);
        expect(typeof second.nextCursor).toBe('string');
        const third = await store.listSessions({ userId, limit: 2, cursor: second.nextCursor! });
        expect(third.sessions.map((session) => session.id)).toEqual([sessions[0]!.id]);
        expect(third.nextCursor).toBeNull();
      });

      it('keeps pages correct when sessions are added between them', async () => {
        const sessions: SessionRecord[] = [];
        for (let minute = 10; minute < 15; minute++) {
          sessions.push(await created({ createdAt: at(minute), updatedAt: at(minute) }));
        }
        const seen: string[] = [];
        let page = await store.listSessions({ userId, limit: 2 });
        seen.push(...page.sessions.map((session) => session.id));
        // A newer session arrives while the user is paging: it must not shift later pages.
        await created({ createdAt: at(20), updatedAt: at(20) });
        for (let guard = 0; page.nextCursor !== null && guard < 10; guard++) {
          page = await store.listSessions({ userId, limit: 2, cursor: page.nextCursor });
          seen.push(...page.sessions.map((session) => session.id));
        }
        expect(page.nextCursor).toBeNull();
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toEqual([...sessions].reverse().map((session) => session.id));
      });
    });

    describe('messages', () => {
      it('appends messages in order and stores them whole', async () => {
        const session = await created();
        const question = makeMessage(session, 1, { metadata: { client: 'cli' } });
        const answer = makeAnswer(session, 2);
        await store.appendMessages(session.id, [question, answer]);
        expect(await store.listMessages(session.id)).toEqual([question, answer]);
        expect(await store.getMessage(answer.id)).toEqual(answer);
        expect(await store.getMessage(ulid())).toBeNull();
        expect(await store.countMessages(session.id)).toBe(2);
      });

      it('adds the messages to messageCount and the delta to the timing totals', async () => {
        const session = await created();
        await store.appendMessages(session.id, [makeMessage(session, 1)]);
        let stats = (await store.getSession(session.id))?.stats;
        expect(stats).toEqual({ messageCount: 1, totalSearchMs: 0, totalGenerationMs: 0 });
        await store.appendMessages(session.id, [makeMessage(session, 2), makeAnswer(session, 3)], {
          searchMs: 4,
          generationMs: 12,
        });
        await store.appendMessages(session.id, [makeAnswer(session, 4)], {
          searchMs: 1.5,
          generationMs: 2,
        });
        stats = (await store.getSession(session.id))?.stats;
        expect(stats).toEqual({ messageCount: 4, totalSearchMs: 5.5, totalGenerationMs: 14 });
      });

      it("rejects messages for an unknown session with code 'not_found'", async () => {
        const ghost = makeSession(userId);
        await expectErrorCode(
          () => store.appendMessages(ghost.id, [makeMessage(ghost, 1)]),
          'not_found',
          'appendMessages to an unknown session',
        );
      });

      it('applies nothing when one message of the batch has a duplicate id', async () => {
        const session = await created();
        const existing = makeMessage(session, 1);
        await store.appendMessages(session.id, [existing], { searchMs: 1, generationMs: 1 });
        const before = await store.getSession(session.id);

        const fresh = makeMessage(session, 2);
        await expectErrorCode(
          () =>
            store.appendMessages(session.id, [fresh, { ...existing, content: 'again' }], {
              searchMs: 5,
              generationMs: 5,
            }),
          'conflict',
          'appendMessages with an id already stored',
        );
        const twin = makeMessage(session, 3);
        await expectErrorCode(
          () => store.appendMessages(session.id, [twin, { ...twin, content: 'twin' }]),
          'conflict',
          'appendMessages with the same id twice',
        );

        expect(await store.getMessage(fresh.id)).toBeNull();
        expect(await store.getMessage(twin.id)).toBeNull();
        expect(await store.getMessage(existing.id)).toEqual(existing);
        expect(await store.countMessages(session.id)).toBe(1);
        expect((await store.getSession(session.id))?.stats).toEqual(before?.stats);
      });

      it('lists messages oldest first by default, or newest first, with limit and offset', async () => {
        const session = await created();
        const batch = [1, 2, 3, 4, 5].map((minute) => makeMessage(session, minute));
        await store.appendMessages(session.id, batch.slice(0, 2));
        await store.appendMessages(session.id, batch.slice(2));
        const text = batch.map((message) => message.content);

        expect(await contents(session.id)).toEqual(text);
        expect(await contents(session.id, 'asc')).toEqual(text);
        expect(await contents(session.id, 'desc')).toEqual([...text].reverse());
        const page = async (options: Parameters<SessionStore['listMessages']>[1]) =>
          (await store.listMessages(session.id, options)).map((message) => message.content);
        expect(await page({ limit: 2 })).toEqual(text.slice(0, 2));
        expect(await page({ limit: 2, offset: 2 })).toEqual(text.slice(2, 4));
        expect(await page({ offset: 4 })).toEqual(text.slice(4));
        expect(await page({ order: 'desc', limit: 2 })).toEqual([text[4], text[3]]);
        expect(await page({ order: 'desc', limit: 2, offset: 3 })).toEqual([text[1], text[0]]);
        expect(await page({ offset: 10 })).toEqual([]);
      });

      it('gives no messages and a count of 0 for an unknown session', async () => {
        expect(await store.listMessages(ulid())).toEqual([]);
        expect(await store.countMessages(ulid())).toBe(0);
      });
    });

    describe('summaries (compaction)', () => {
      /** A session with q1, a1, q2, a2 stored; returns them in order. */
      async function conversation(session: SessionRecord): Promise<MessageRecord[]> {
        const messages = [
          makeMessage(session, 1, { content: 'q1' }),
          { ...makeAnswer(session, 2), content: 'a1' },
          makeMessage(session, 3, { content: 'q2' }),
          { ...makeAnswer(session, 4), content: 'a2' },
        ];
        await store.appendMessages(session.id, messages.slice(0, 2));
        await store.appendMessages(session.id, messages.slice(2));
        return messages;
      }

      function makeSummary(
        session: SessionRecord,
        covers: readonly string[],
        minutes = 5,
      ): MessageRecord {
        return makeMessage(session, minutes, {
          role: 'system-summary',
          content: 'The user asked about refunds; answered from the handbook.',
          covers,
          metadata: { replaced: covers.length },
        });
      }

      it("counts the messages of one role (a session's turns)", async () => {
        const session = await created();
        const [q1, a1] = await conversation(session);
        await store.appendSummary(session.id, makeSummary(session, [q1!.id, a1!.id]));
        expect(await store.countMessages(session.id)).toBe(5);
        expect(await store.countMessages(session.id, { role: 'user' })).toBe(2);
        expect(await store.countMessages(session.id, { role: 'assistant' })).toBe(2);
        expect(await store.countMessages(session.id, { role: 'system-summary' })).toBe(1);
        expect(await store.countMessages(session.id, { role: 'system' })).toBe(0);
        expect(await store.countMessages(ulid(), { role: 'user' })).toBe(0);
      });

      it('stores the summary after the messages and marks the covered ones', async () => {
        const session = await created();
        const [q1, a1, q2, a2] = await conversation(session);
        const summary = makeSummary(session, [q1!.id, a1!.id]);
        await store.appendSummary(session.id, summary);

        expect(await store.getMessage(summary.id)).toEqual(summary);
        expect(await contents(session.id)).toEqual(['q1', 'a1', 'q2', 'a2', summary.content]);
        expect(await store.getMessage(q1!.id)).toEqual({ ...q1, coveredBy: summary.id });
        expect(await store.getMessage(a1!.id)).toEqual({ ...a1, coveredBy: summary.id });
        expect((await store.getMessage(q2!.id))?.coveredBy ?? null).toBeNull();
        expect(await store.countMessages(session.id)).toBe(5);
        const stored = await store.getSession(session.id);
        expect(stored?.stats.messageCount).toBe(5);
        expect(stored?.updatedAt).toBe(summary.createdAt);
        expect(a2).toBeDefined();
      });

      it('lists only uncovered messages with uncoveredOnly, with order, limit and offset', async () => {
        const session = await created();
        const [q1, a1] = await conversation(session);
        const summary = makeSummary(session, [q1!.id, a1!.id]);
        await store.appendSummary(session.id, summary);
        const page = async (options: Parameters<SessionStore['listMessages']>[1]) =>
          (await store.listMessages(session.id, { uncoveredOnly: true, ...options })).map(
            (message) => message.content,
          );
        expect(await page({})).toEqual(['q2', 'a2', summary.content]);
        expect(await page({ order: 'desc', limit: 2 })).toEqual([summary.content, 'a2']);
        expect(await page({ offset: 1, limit: 1 })).toEqual(['a2']);
        expect(await page({ uncoveredOnly: false })).toHaveLength(5);

        // A later summary may cover the earlier one and more.
        const [, , q2, a2] = await store.listMessages(session.id);
        const second = makeSummary(session, [summary.id, q2!.id, a2!.id], 6);
        await store.appendSummary(session.id, second);
        expect(await page({})).toEqual([second.content]);
        expect((await store.getMessage(summary.id))?.coveredBy).toBe(second.id);
      });

      it('applies nothing when a covered id is unknown or belongs to another session', async () => {
        const session = await created();
        const other = await created();
        const [q1, a1] = await conversation(session);
        const [foreign] = await conversation(other);
        const before = await store.getSession(session.id);

        for (const covers of [
          [q1!.id, ulid()],
          [q1!.id, foreign!.id],
        ]) {
          const summary = makeSummary(session, covers);
          await expectErrorCode(
            () => store.appendSummary(session.id, summary),
            'not_found',
            'appendSummary covering a message not in the session',
          );
          expect(await store.getMessage(summary.id)).toBeNull();
        }
        expect(await store.getMessage(q1!.id)).toEqual(q1);
        expect(await store.getMessage(a1!.id)).toEqual(a1);
        expect(await store.getMessage(foreign!.id)).toEqual(foreign);
        expect(await store.countMessages(session.id)).toBe(4);
        expect(await store.getSession(session.id)).toEqual(before);
      });

      it('rejects an unknown session, a non-summary and a taken id, applying nothing', async () => {
        const session = await created();
        const [q1, a1] = await conversation(session);
        const ghost = makeSession(userId);
        await expectErrorCode(
          () => store.appendSummary(ghost.id, makeSummary(ghost, [q1!.id])),
          'not_found',
          'appendSummary to an unknown session',
        );
        const notSummary = { ...makeSummary(session, [q1!.id]), role: 'assistant' as const };
        await expectErrorCode(
          () => store.appendSummary(session.id, notSummary),
          'validation_error',
          'appendSummary of an assistant message',
        );
        await expectErrorCode(
          () => store.appendSummary(session.id, { ...makeSummary(session, [q1!.id]), id: a1!.id }),
          'conflict',
          'appendSummary with an id already stored',
        );
        expect(await store.getMessage(q1!.id)).toEqual(q1);
        expect(await store.getMessage(notSummary.id)).toBeNull();
        expect(await store.countMessages(session.id)).toBe(4);
      });
    });

    describe('idempotency keys', () => {
      it("rejects a second user message with a session's request id with code 'conflict', applying nothing", async () => {
        const session = await created();
        const first = makeMessage(session, 1, { requestId: 'req-1' });
        await store.appendMessages(session.id, [first]);
        const unrelated = makeMessage(session, 2);
        const retry = makeMessage(session, 2, { requestId: 'req-1', content: 'retried' });
        await expectErrorCode(
          () => store.appendMessages(session.id, [unrelated, retry]),
          'conflict',
          'appendMessages of a user message whose requestId the session holds',
        );
        await expectErrorCode(
          () =>
            store.appendMessages(session.id, [
              makeMessage(session, 3, { requestId: 'req-2' }),
              makeMessage(session, 3, { requestId: 'req-2' }),
            ]),
          'conflict',
          'appendMessages of one requestId twice in one batch',
        );
        expect(await store.listMessages(session.id)).toEqual([first]);
        expect(await store.findMessage(session.id, { requestId: 'req-1' })).toEqual(first);
        expect((await store.getSession(session.id))?.stats.messageCount).toBe(1);
      });

      it('accepts the same request id in another session, and messages without one', async () => {
        const session = await created();
        const other = await created();
        await store.appendMessages(session.id, [makeMessage(session, 1, { requestId: 'req-1' })]);
        await store.appendMessages(other.id, [makeMessage(other, 1, { requestId: 'req-1' })]);
        await store.appendMessages(session.id, [makeMessage(session, 2), makeMessage(session, 3)]);
        expect(await store.countMessages(session.id)).toBe(3);
        expect(await store.countMessages(other.id)).toBe(1);
      });

      it('lets exactly one of concurrent appends with the same request id in', async () => {
        const session = await created();
        const attempts = Array.from({ length: 4 }, (_, index) =>
          makeMessage(session, 1, { requestId: 'req-1', content: `attempt ${index}` }),
        );
        const results = await Promise.allSettled(
          attempts.map((message) => store.appendMessages(session.id, [message])),
        );
        const rejected = results.filter((result) => result.status === 'rejected');
        expect(results.length - rejected.length).toBe(1);
        for (const result of rejected) expect(result.reason).toMatchObject({ code: 'conflict' });
        const stored = await store.listMessages(session.id);
        expect(stored).toHaveLength(1);
        expect(await store.findMessage(session.id, { requestId: 'req-1' })).toEqual(stored[0]);
      });

      it("rejects any answer to a message that has a whole one with code 'conflict'", async () => {
        const session = await created();
        const question = makeMessage(session, 1, { requestId: 'req-1' });
        const partial = {
          ...makeAnswer(session, 2),
          replyTo: question.id,
          status: 'incomplete' as const,
        };
        const answer = { ...makeAnswer(session, 3), replyTo: question.id };
        await store.appendMessages(session.id, [question, partial]);
        await store.appendMessages(session.id, [answer]);
        for (const status of ['complete', 'degraded'] as const) {
          await expectErrorCode(
            () =>
              store.appendMessages(session.id, [
                { ...makeAnswer(session, 4), replyTo: question.id, status },
              ]),
            'conflict',
            `appendMessages of a second ${status} answer to one message`,
          );
        }
        await expectErrorCode(
          () =>
            store.appendMessages(session.id, [
              { ...makeAnswer(session, 5), replyTo: question.id, status: 'incomplete' },
            ]),
          'conflict',
          'appendMessages of a partial answer to an answered message',
        );
        const unanswered = makeMessage(session, 6);
        await expectErrorCode(
          () =>
            store.appendMessages(session.id, [
              unanswered,
              { ...makeAnswer(session, 7), replyTo: unanswered.id },
              { ...makeAnswer(session, 8), replyTo: unanswered.id, status: 'degraded' },
            ]),
          'conflict',
          'appendMessages of two whole answers to one message in one batch',
        );
        expect(await store.countMessages(session.id)).toBe(3);
        expect(await store.findMessage(session.id, { replyTo: question.id })).toEqual(answer);
      });
    });

    describe('findMessage', () => {
      it('finds the user message with a request id, and the newest answer to a message', async () => {
        const session = await created();
        const first = makeMessage(session, 1, { requestId: 'req-1' });
        const partial = {
          ...makeAnswer(session, 2),
          replyTo: first.id,
          status: 'incomplete' as const,
        };
        const other = makeMessage(session, 3, { requestId: 'req-2' });
        const answer = { ...makeAnswer(session, 4), replyTo: first.id };
        await store.appendMessages(session.id, [first, partial]);
        await store.appendMessages(session.id, [other, answer]);

        expect(await store.findMessage(session.id, { requestId: 'req-1' })).toEqual(first);
        expect(await store.findMessage(session.id, { requestId: 'req-2' })).toEqual(other);
        expect(await store.findMessage(session.id, { replyTo: first.id })).toEqual(answer);
        expect(await store.findMessage(session.id, { requestId: 'req-3' })).toBeNull();
        expect(await store.findMessage(session.id, { replyTo: other.id })).toBeNull();
        expect(await store.getMessage(first.id)).toEqual(first);
      });

      it('looks only within the given session', async () => {
        const session = await created();
        const other = await created();
        const message = makeMessage(other, 1, { requestId: 'shared-key' });
        await store.appendMessages(other.id, [message]);
        expect(await store.findMessage(session.id, { requestId: 'shared-key' })).toBeNull();
        expect(await store.findMessage(ulid(), { requestId: 'shared-key' })).toBeNull();
        expect(await store.findMessage(other.id, { requestId: 'shared-key' })).toEqual(message);
      });
    });

    it.skipIf(skip.abort)(
      titled("rejects calls with an aborted signal with code 'aborted'", skip.abort),
      async () => {
        const signal = abortedSignal();
        const session = makeSession(userId);
        await expectErrorCode(
          () => store.createSession(session, { signal }),
          'aborted',
          'createSession',
        );
        expect(await store.getSession(session.id)).toBeNull();
        await store.createSession(session);
        const calls: Array<[string, () => Promise<unknown>]> = [
          ['getSession', () => store.getSession(session.id, { signal })],
          [
            'updateSession',
            () => store.updateSession(session.id, { title: 'x', updatedAt: at(1) }, { signal }),
          ],
          ['deleteSession', () => store.deleteSession(session.id, { signal })],
          ['listSessions', () => store.listSessions({ userId, limit: 1, signal })],
          [
            'appendMessages',
            () =>
              store.appendMessages(session.id, [makeMessage(session, 1)], undefined, { signal }),
          ],
          ['listMessages', () => store.listMessages(session.id, { signal })],
          ['countMessages', () => store.countMessages(session.id, { signal })],
          ['getMessage', () => store.getMessage(session.id, { signal })],
          [
            'appendSummary',
            () =>
              store.appendSummary(
                session.id,
                makeMessage(session, 2, { role: 'system-summary', covers: [ulid()] }),
                { signal },
              ),
          ],
          ['findMessage', () => store.findMessage(session.id, { requestId: 'r' }, { signal })],
        ];
        for (const [name, call] of calls) await expectErrorCode(call, 'aborted', name);
        expect(await store.getSession(session.id)).toEqual(session);
        expect(await store.countMessages(session.id)).toBe(0);
      },
    );
  });
}
