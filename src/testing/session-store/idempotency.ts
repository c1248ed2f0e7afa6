/**
 * Conformance cases of `SessionStore` idempotency keys: one user message per request id and
 * one whole answer per user message (`conflict`, also under concurrent appends).
 */
import { beforeEach, describe, expect, it } from '../runner.js';
import type { SessionStore } from '../../ports/session-store.js';
import { expectErrorCode } from '../shared.js';
import { makeAnswer, makeMessage, type SessionStoreCaseContext } from './fixtures.js';

/** Registers the `idempotency keys` cases. */
export function idempotencyCases(context: SessionStoreCaseContext): void {
  const { created } = context;
  describe('idempotency keys', () => {
    let store: SessionStore;

    // The store and user the suite made for the running test.
    beforeEach(() => {
      ({ store } = context);
    });

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
}
