/**
 * Conformance cases of `SessionStore` summaries (compaction): atomic `appendSummary` (covered
 * messages marked, `uncoveredOnly` listing, unknown or foreign covered ids leave nothing
 * applied) and `countMessages` of one role.
 */
import { beforeEach, describe, expect, it } from '../runner.js';
import type { MessageRecord, SessionRecord } from '../../ports/chat-records.js';
import type { SessionStore } from '../../ports/session-store.js';
import { ulid } from '../../util/ids.js';
import { expectErrorCode } from '../shared.js';
import { makeAnswer, makeMessage, makeSession, type SessionStoreCaseContext } from './fixtures.js';

/** Registers the `summaries (compaction)` cases. */
export function summaryCases(context: SessionStoreCaseContext): void {
  const { created, contents } = context;
  describe('summaries (compaction)', () => {
    let store: SessionStore;
    let userId: string;

    // The store and user the suite made for the running test.
    beforeEach(() => {
      ({ store, userId } = context);
    });

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
}
