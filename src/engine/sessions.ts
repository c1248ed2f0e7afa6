/**
 * An engine's session operations: create, read, list, end, archive and delete conversations
 * (only their owner may), a page of a session's history, and what ending or deleting one
 * does to the other stores (its learning trajectory, its recall records, its corrections).
 */
import type { ResolvedConfig } from '../config.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors/index.js';
import type { EngineEmitter } from '../events.js';
import { sessionQuality } from '../pipeline/learn.js';
import { loadOwnedSession } from '../pipeline/turn/session.js';
import type { SessionRecord } from '../ports/chat-records.js';
import type { SessionPage } from '../ports/session-store.js';
import type { CreateSessionParams, HistoryPage, HistoryParams } from '../types.js';
import { isoNow, ulid } from '../util/ids.js';
import type { KeyedLock } from '../util/keyed-lock.js';
import {
  createSessionSchema,
  historySchema,
  listSessionsSchema,
  parseInput,
  sessionRefSchema,
} from '../validate.js';
import type { EngineParts } from './runtime.js';

/** Ends a session: its learning trajectory is completed, a `session.ended` event emitted. */
export function createEndSession(base: EngineParts['base'], events: EngineEmitter) {
  return async (session: SessionRecord, reason: 'quit' | 'ended'): Promise<void> => {
    const now = isoNow();
    await base.sessionStore.updateSession(session.id, {
      status: 'ended',
      endedAt: now,
      updatedAt: now,
    });
    const current = await base.sessionStore.getSession(session.id);
    const trajectoryId = current?.trajectoryId ?? session.trajectoryId;
    if (trajectoryId !== null) {
      try {
        const quality = await sessionQuality(base, session.id);
        await base.learningSink.endTrajectory(trajectoryId, {
          status: 'completed',
          quality,
          endedAt: now,
        });
      } catch (error) {
        events.emit('error', { where: 'learn', error });
      }
    }
    events.emit('session.ended', { sessionId: session.id, reason });
  };
}

/** What the session operations use of their engine. */
export interface SessionOperationsOptions {
  readonly resolved: ResolvedConfig;
  readonly events: EngineEmitter;
  readonly base: EngineParts['base'];
  readonly lock: KeyedLock;
  /**
   * Removes what the other stores hold for a session (its corrections, recall records and
   * learning records; `createErasure`).
   */
  readonly eraseSessionRecords: (sessionId: string) => Promise<unknown>;
  /** Ends a session (`createEndSession`). */
  readonly endSession: (session: SessionRecord, reason: 'quit' | 'ended') => Promise<void>;
  /** Empties the caches keyed by raw text (query embeddings, search results, token counts). */
  readonly clearTextCaches: () => void;
}

/** The session operations of an engine, and the purge of a session's records elsewhere. */
export function createSessionOperations(options: SessionOperationsOptions) {
  const { resolved, events, base, lock, eraseSessionRecords, endSession, clearTextCaches } =
    options;
  // A session's records in the other stores (corrections, recall vectors, learning records) go
  // with it.
  const purgeSession = async (sessionId: string): Promise<void> => {
    await eraseSessionRecords(sessionId);
  };

  const ownedSession = async (params: unknown): Promise<SessionRecord> => {
    const ref = parseInput(sessionRefSchema(), params, 'session reference');
    return loadOwnedSession(base.sessionStore, ref.sessionId, ref.userId);
  };

  const operations = {
    async createSession(params: CreateSessionParams): Promise<SessionRecord> {
      const input = parseInput(createSessionSchema(), params, 'session parameters');
      const model = input.settings?.model;
      if (model !== undefined && !Object.hasOwn(resolved.models ?? {}, model)) {
        const known = Object.keys(resolved.models ?? {});
        const message = `names no model of the engine (known: ${known.join(', ') || 'none; pass config.models'})`;
        throw new ValidationError(`Invalid session parameters: settings.model: ${message}`, [
          { path: 'settings.model', message },
        ]);
      }
      const now = isoNow();
      const session: SessionRecord = {
        id: input.id ?? ulid(),
        userId: input.userId,
        title: input.title ?? null,
        status: 'active',
        createdAt: now,
        updatedAt: now,
        endedAt: null,
        trajectoryId: null,
        settings: input.settings ?? {},
        stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
        metadata: input.metadata ?? {},
      };
      await base.sessionStore.createSession(session);
      events.emit('session.created', { session });
      return session;
    },

    getSession: ownedSession,

    async listSessions(params: {
      userId: string;
      limit?: number;
      cursor?: string;
    }): Promise<SessionPage> {
      const input = parseInput(listSessionsSchema(), params, 'list parameters');
      return base.sessionStore.listSessions(input);
    },

    async endSession(params: { sessionId: string; userId: string }): Promise<SessionRecord> {
      const session = await ownedSession(params);
      return lock.run(session.id, async () => {
        const current = await ownedSession(params);
        if (current.status !== 'active') {
          throw new ConflictError(`session '${current.id}' has already ended`);
        }
        await endSession(current, 'ended');
        return ownedSession(params);
      });
    },

    async archiveSession(params: { sessionId: string; userId: string }): Promise<SessionRecord> {
      const session = await ownedSession(params);
      return lock.run(session.id, async () => {
        const current = await ownedSession(params);
        if (current.status === 'archived') {
          throw new ConflictError(`session '${current.id}' is already archived`);
        }
        if (current.status === 'active') await endSession(current, 'ended');
        const now = isoNow();
        await base.sessionStore.updateSession(current.id, { status: 'archived', updatedAt: now });
        return ownedSession(params);
      });
    },

    async deleteSession(params: { sessionId: string; userId: string }): Promise<void> {
      const session = await ownedSession(params);
      await lock.run(session.id, async () => {
        // The other stores first: if one fails, the session is still there to delete again.
        await purgeSession(session.id);
        if (!(await base.sessionStore.deleteSession(session.id))) {
          throw new NotFoundError('session', session.id);
        }
        // The query-embedding, search-results and token-count caches are keyed by raw text (questions and
        // messages): a deletion empties them (they refill from use). Evictions do not, or
        // churn would keep them empty.
        clearTextCaches();
      });
    },

    async history(params: HistoryParams): Promise<HistoryPage> {
      const input = parseInput(historySchema(), params, 'history parameters');
      const session = await loadOwnedSession(base.sessionStore, input.sessionId, input.userId);
      // Messages are only ever appended, so a position from the start is a stable cursor.
      const offset = input.cursor === undefined ? input.offset : Number(input.cursor.slice(1));
      const [messages, total] = await Promise.all([
        base.sessionStore.listMessages(session.id, { limit: input.limit, offset }),
        base.sessionStore.countMessages(session.id),
      ]);
      const next = offset + messages.length;
      const onPage = new Set(messages.map((message) => message.id));
      const feedback = input.includeFeedback
        ? (await base.learningSink.listFeedback({ sessionId: session.id })).filter((record) =>
            onPage.has(record.messageId),
          )
        : undefined;
      return {
        ...(feedback ? { feedback } : {}),
        nextCursor: next < total ? `h${next}` : null,
        session,
        messages: input.includeSources
          ? messages
          : messages.map((message) => ({ ...message, sources: [] })),
        total,
        limit: input.limit,
        offset,
      };
    },
  };
  return { purgeSession, operations };
}
