import { afterEach, beforeEach, describe, expect, it } from './runner.js';
import type { SessionRecord } from '../ports/chat-records.js';
import type { SessionStore } from '../ports/session-store.js';
import { ulid } from '../util/ids.js';
import {
  at,
  makeMessage,
  makeSession,
  type SessionStoreCaseContext,
} from './session-store/fixtures.js';
import { deleteUserCases } from './session-store/delete-user.js';
import { findMessageCases } from './session-store/find-message.js';
import { idempotencyCases } from './session-store/idempotency.js';
import { listSessionsCases } from './session-store/list-sessions.js';
import { messageCases } from './session-store/messages.js';
import { sessionCases } from './session-store/sessions.js';
import { summaryCases } from './session-store/summaries.js';
import { turnLeaseCases } from './session-store/turn-lease.js';
import {
  abortedSignal,
  expectErrorCode,
  titled,
  uniqueName,
  type SkipReasons,
  type SuiteOptions,
} from './shared.js';

/** Parts of the `SessionStore` contract an adapter may lack (see {@link SkipReasons}). */
export type SessionStoreCapability = 'abort' | 'deleteUser' | 'turnLease';

/** Options of {@link testSessionStore}. */
export interface SessionStoreSuiteOptions extends SuiteOptions<SessionStore> {
  /** Capabilities the adapter lacks, with the reason printed in the skipped tests' titles. */
  readonly skip?: SkipReasons<SessionStoreCapability> | undefined;
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

    const context: SessionStoreCaseContext = {
      get store() {
        return store;
      },
      get userId() {
        return userId;
      },
      created,
      contents,
    };

    it('declares its name and specification version', () => {
      expect(typeof store.name).toBe('string');
      expect(store.name.length).toBeGreaterThan(0);
      expect(store.specificationVersion).toBe('v1');
    });

    sessionCases(context);
    listSessionsCases(context);
    messageCases(context);
    summaryCases(context);
    idempotencyCases(context);
    findMessageCases(context);
    deleteUserCases(context, skip.deleteUser);
    turnLeaseCases(context, skip.turnLease);

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
