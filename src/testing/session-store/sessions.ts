/**
 * Conformance cases of `SessionStore` sessions: create, duplicate ids, get, update, delete
 * with its messages, and isolation of stored state from the objects passed in or handed out.
 */
import { beforeEach, describe, expect, it } from '../runner.js';
import type { Source } from '../../ports/chat-records.js';
import type { SessionStore } from '../../ports/session-store.js';
import { ulid } from '../../util/ids.js';
import { expectErrorCode } from '../shared.js';
import {
  at,
  makeSession,
  makeMessage,
  makeAnswer,
  tryToMutate,
  type SessionStoreCaseContext,
} from './fixtures.js';

/** Registers the `sessions` cases. */
export function sessionCases(context: SessionStoreCaseContext): void {
  const { created } = context;
  describe('sessions', () => {
    let store: SessionStore;
    let userId: string;

    // The store and user the suite made for the running test.
    beforeEach(() => {
      ({ store, userId } = context);
    });

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
}
