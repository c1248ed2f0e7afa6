/**
 * Conformance cases of `SessionStore` messages: atomic `appendMessages` (stats, unknown
 * session, duplicate ids leave nothing applied), `listMessages` order, limit and offset,
 * `countMessages` and `getMessage`.
 */
import { beforeEach, describe, expect, it } from '../runner.js';
import type { SessionStore } from '../../ports/session-store.js';
import { ulid } from '../../util/ids.js';
import { expectErrorCode } from '../shared.js';
import { makeSession, makeMessage, makeAnswer, type SessionStoreCaseContext } from './fixtures.js';

/** Registers the `messages` cases. */
export function messageCases(context: SessionStoreCaseContext): void {
  const { created, contents } = context;
  describe('messages', () => {
    let store: SessionStore;
    let userId: string;

    // The store and user the suite made for the running test.
    beforeEach(() => {
      ({ store, userId } = context);
    });

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
}
