/**
 * Conformance cases of `SessionStore.findMessage`: the user message with a request id, the
 * newest answer to a message, within the given session only.
 */
import { beforeEach, describe, expect, it } from '../runner.js';
import type { SessionStore } from '../../ports/session-store.js';
import { ulid } from '../../util/ids.js';
import { makeAnswer, makeMessage, type SessionStoreCaseContext } from './fixtures.js';

/** Registers the `findMessage` cases. */
export function findMessageCases(context: SessionStoreCaseContext): void {
  const { created } = context;
  describe('findMessage', () => {
    let store: SessionStore;

    // The store and user the suite made for the running test.
    beforeEach(() => {
      ({ store } = context);
    });

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
}
