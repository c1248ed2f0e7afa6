/**
 * Conformance cases of the optional `SessionStore.deleteUser`: every session of the user goes
 * with its messages (summaries included) and the counts say so; other users keep everything;
 * an unknown user removes nothing. A store without it declares so (`skip.deleteUser`, the
 * reason printed in the title); the engine then deletes session by session.
 */
import { beforeEach, describe, expect, it } from '../runner.js';
import type { SessionStore } from '../../ports/session-store.js';
import { titled, uniqueName } from '../shared.js';
import { makeAnswer, makeMessage, makeSession, type SessionStoreCaseContext } from './fixtures.js';

/** Registers the `deleteUser (optional)` cases. */
export function deleteUserCases(
  context: SessionStoreCaseContext,
  skipReason: string | undefined,
): void {
  describe('deleteUser (optional)', () => {
    let store: SessionStore;
    let userId: string;

    // The store and user the suite made for the running test.
    beforeEach(() => {
      ({ store, userId } = context);
    });

    it.skipIf(skipReason)(
      titled("removes every session and message of the user, and only the user's", skipReason),
      async () => {
        expect(typeof store.deleteUser, 'deleteUser (declare skip.deleteUser if absent)').toBe(
          'function',
        );
        const deleteUser = (id: string) => store.deleteUser!(id);
        const first = await context.created();
        const second = await context.created();
        const other = makeSession(uniqueName('other-user'));
        await store.createSession(other);
        const question = makeMessage(first, 1, { content: 'erase me' });
        await store.appendMessages(first.id, [question, makeAnswer(first, 2)]);
        await store.appendSummary(
          first.id,
          makeMessage(first, 3, {
            role: 'system-summary',
            content: 'summary',
            covers: [question.id],
          }),
        );
        await store.appendMessages(second.id, [makeMessage(second, 4)]);
        const kept = makeMessage(other, 5, { content: 'keep me' });
        await store.appendMessages(other.id, [kept]);

        expect(await deleteUser(userId)).toEqual({ sessions: 2, messages: 4 });
        expect(await store.getSession(first.id)).toBeNull();
        expect(await store.getSession(second.id)).toBeNull();
        expect(await store.getMessage(question.id)).toBeNull();
        expect(await store.listMessages(first.id)).toEqual([]);
        expect((await store.listSessions({ userId, limit: 10 })).sessions).toEqual([]);
        expect(await store.getMessage(kept.id)).toEqual(kept);
        expect((await store.getSession(other.id))?.id).toBe(other.id);
        expect(await deleteUser(userId)).toEqual({ sessions: 0, messages: 0 });
        expect(await deleteUser(uniqueName('nobody'))).toEqual({ sessions: 0, messages: 0 });
      },
    );
  });
}
