/**
 * Conformance cases of `SessionStore.listSessions`: owner only, newest first by createdAt then
 * id, cursor pages that stay correct when sessions are added between pages.
 */
import { beforeEach, describe, expect, it } from '../runner.js';
import type { SessionRecord } from '../../ports/chat-records.js';
import type { SessionStore } from '../../ports/session-store.js';
import { uniqueName } from '../shared.js';
import { at, makeSession, type SessionStoreCaseContext } from './fixtures.js';

/** Registers the `listSessions` cases. */
export function listSessionsCases(context: SessionStoreCaseContext): void {
  const { created } = context;
  describe('listSessions', () => {
    let store: SessionStore;
    let userId: string;

    // The store and user the suite made for the running test.
    beforeEach(() => {
      ({ store, userId } = context);
    });

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
}
