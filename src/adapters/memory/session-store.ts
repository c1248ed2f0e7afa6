import {
  AbortError,
  ConfigError,
  ConflictError,
  NotFoundError,
  throwIfAborted,
} from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { MessageRecord, SessionRecord, SessionStatsDelta } from '../../ports/chat-records.js';
import type {
  AcquireTurnOptions,
  TurnLease,
  ListMessagesOptions,
  CountMessagesOptions,
  ListSessionsOptions,
  MessageQuery,
  SessionPage,
  SessionEvictionListener,
  SessionPatch,
  SessionStore,
} from '../../ports/session-store.js';
import {
  invalid,
  requireCount,
  requireDuration,
  requireString,
  validateMessage,
  validatePatch,
  validateSession,
} from '../shared/validate.js';
import { alreadyAnswered, idempotencyClaims, requestIdTaken } from '../shared/idempotency.js';
import { checkAcquireTurn } from '../shared/turn-lease.js';
import { compareNewestFirst, deepFreeze, frozenCopy } from './session-records.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';

/** Settings of {@link createMemorySessionStore}. */
export interface MemorySessionStoreSettings {
  /** Adapter name reported in events and errors (default `memory`). */
  readonly name?: string;
  /**
   * Most sessions kept (default unlimited). Creating one more evicts the least recently used
   * session with all its messages. A session is "used" when it is created, read
   * (`getSession`, `listMessages`, `countMessages`, `findMessage`) or written. Set it well
   * above the number of conversations active at once: an evicted session is gone
   * (`getSession` gives null, `appendMessages` a `NotFoundError`). Evictions are reported to
   * `onEvict` listeners, so that an engine deletes the session's recall and learning records.
   */
  readonly maxSessions?: number | undefined;
  /**
   * Sessions not used for longer than this, in ms, are evicted with their messages (default
   * unlimited). Checked lazily on every call, oldest first, so eviction costs only the
   * sessions it removes. Reported to `onEvict` listeners like `maxSessions` evictions.
   */
  readonly idleTtlMs?: number | undefined;
  /** Clock in ms for `idleTtlMs` (default `Date.now`); for tests. */
  readonly now?: (() => number) | undefined;
}

interface StoredSession {
  record: SessionRecord;
  /** When the session was last used, per the store's clock. */
  usedAt: number;
  /** Message ids in insertion order. */
  readonly messageIds: string[];
  /**
   * What a turn reads of a long session, kept as it grows so no call walks the whole history:
   * the ids not covered by a summary (insertion order), the count of messages per role, the
   * idempotency keys of the user messages and the questions with a whole (not `incomplete`)
   * answer.
   */
  readonly uncoveredIds: string[];
  readonly roleCounts: Map<string, number>;
  readonly requestIds: Set<string>;
  readonly answered: Set<string>;
}

/** An empty session's stored state. */
function storedSession(record: SessionRecord, usedAt: number): StoredSession {
  return {
    record,
    usedAt,
    messageIds: [],
    uncoveredIds: [],
    roleCounts: new Map(),
    requestIds: new Set(),
    answered: new Set(),
  };
}

/** Records a stored message in its session's running state (see `StoredSession`). */
function track(stored: StoredSession, message: MessageRecord): void {
  stored.messageIds.push(message.id);
  if (!message.coveredBy) stored.uncoveredIds.push(message.id);
  stored.roleCounts.set(message.role, (stored.roleCounts.get(message.role) ?? 0) + 1);
  if (message.role === 'user' && message.requestId != null)
    stored.requestIds.add(message.requestId);
  if (message.role === 'assistant' && message.replyTo != null && message.status !== 'incomplete') {
    stored.answered.add(message.replyTo);
  }
}

function settingError(path: string, message: string): ConfigError {
  return new ConfigError(`memory session store: ${path} ${message}`, [{ path, message }]);
}

/** Checks an optional positive limit of the settings; undefined means unlimited. */
function optionalLimit(value: unknown, path: string, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'number' ||
    !(value > 0) ||
    (integer ? !Number.isSafeInteger(value) : !Number.isFinite(value))
  ) {
    throw settingError(path, integer ? 'must be an integer ≥ 1' : 'must be a finite number > 0');
  }
  return value;
}

/**
 * An in-memory `SessionStore`. Every write validates its whole input before changing
 * anything, so a rejected call leaves the store as it was. Records are kept and returned
 * as deep-frozen copies: neither the objects passed in nor the ones handed out can change
 * stored state.
 *
 * Beyond the port: `appendMessages` checks that each message names the session and its
 * owner (`ValidationError`), rejects a message id already stored anywhere in the store
 * (`ConflictError`), and moves the session's `updatedAt` forward to the newest message's
 * `createdAt`. `listMessages` and `countMessages` of an unknown session give `[]` and `0`.
 * The `listSessions` cursor is the position (createdAt, id) of the page's last session, so
 * sessions added between pages neither repeat nor hide older ones.
 *
 * Unbounded by default; `maxSessions` (LRU) and `idleTtlMs` (idle expiry) bound it, evicting
 * whole sessions with their messages — see docs/reliability.md for the memory figures.
 * `onEvict(listener)` reports evicted session ids (not explicit deletes), so the engine can
 * delete what its other stores hold for them and stay bounded as a whole.
 *
 * @example
 * const sessionStore = createMemorySessionStore({ maxSessions: 5_000, idleTtlMs: 3_600_000 });
 */
export function createMemorySessionStore(settings: MemorySessionStoreSettings = {}): SessionStore {
  const maxSessions = optionalLimit(settings.maxSessions, 'maxSessions', true);
  const idleTtlMs = optionalLimit(settings.idleTtlMs, 'idleTtlMs', false);
  const now = settings.now ?? Date.now;
  // Insertion order is use order: `touch` moves a session to the end, so the least recently
  // used session is always first.
  const sessions = new Map<string, StoredSession>();
  const messages = new Map<string, MessageRecord>();
  const evictionListeners = new Set<SessionEvictionListener>();
  // Turn leases: per session, the promise the next turn waits for (engines sharing this store
  // in one process take turns; nothing to expire, a process cannot crash apart from its store).
  const turnTails = new Map<string, Promise<void>>();

  function evict(id: string, stored: StoredSession): void {
    for (const messageId of stored.messageIds) messages.delete(messageId);
    sessions.delete(id);
  }

  /** Tells the `onEvict` listeners which sessions are gone. */
  function reportEvicted(ids: readonly string[]): void {
    if (ids.length === 0) return;
    const evicted = Object.freeze([...ids]);
    for (const listener of [...evictionListeners]) {
      try {
        listener(evicted);
      } catch {
        // The eviction is done; a failing listener cannot undo it or break the caller.
      }
    }
  }

  /** Evicts idle sessions (oldest first); a no-op without `idleTtlMs`. */
  function sweep(): void {
    if (idleTtlMs === undefined) return;
    const cutoff = now() - idleTtlMs;
    const evicted: string[] = [];
    for (const [id, stored] of sessions) {
      if (stored.usedAt >= cutoff) break;
      evict(id, stored);
      evicted.push(id);
    }
    reportEvicted(evicted);
  }

  /** The session, marked as just used; undefined when unknown or evicted. */
  function use(id: string): StoredSession | undefined {
    sweep();
    const stored = sessions.get(id);
    if (!stored) return undefined;
    if (maxSessions !== undefined || idleTtlMs !== undefined) {
      sessions.delete(id);
      sessions.set(id, stored);
      stored.usedAt = now();
    }
    return stored;
  }

  return {
    name: settings.name ?? 'memory',
    specificationVersion: 'v1',

    async createSession(session: SessionRecord, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateSession(session);
      sweep();
      if (sessions.has(session.id)) {
        throw new ConflictError(`session '${session.id}' already exists`);
      }
      const record = frozenCopy(session);
      const evicted: string[] = [];
      if (maxSessions !== undefined) {
        for (const [id, stored] of sessions) {
          if (sessions.size < maxSessions) break;
          evict(id, stored);
          evicted.push(id);
        }
      }
      sessions.set(session.id, storedSession(record, now()));
      reportEvicted(evicted);
    },

    onEvict(listener: SessionEvictionListener) {
      if (typeof listener !== 'function') throw invalid('listener', 'must be a function');
      evictionListeners.add(listener);
      return () => {
        evictionListeners.delete(listener);
      };
    },

    async getSession(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      return use(id)?.record ?? null;
    },

    async updateSession(id: string, patch: SessionPatch, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validatePatch(patch);
      const stored = use(id);
      if (!stored) return null;
      const current = stored.record;
      stored.record = frozenCopy<SessionRecord>({
        ...current,
        title: patch.title !== undefined ? patch.title : current.title,
        status: patch.status ?? current.status,
        endedAt: patch.endedAt !== undefined ? patch.endedAt : current.endedAt,
        trajectoryId: patch.trajectoryId !== undefined ? patch.trajectoryId : current.trajectoryId,
        settings: patch.settings ?? current.settings,
        updatedAt: patch.updatedAt,
      });
      return stored.record;
    },

    async deleteSession(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      sweep();
      const stored = sessions.get(id);
      if (!stored) return false;
      evict(id, stored);
      return true;
    },

    async acquireTurn(sessionId: string, options?: AcquireTurnOptions): Promise<TurnLease> {
      checkAcquireTurn(sessionId, options);
      throwIfAborted(options?.signal);
      const previous = turnTails.get(sessionId) ?? Promise.resolve();
      let open!: () => void;
      const mine = new Promise<void>((resolve) => (open = resolve));
      const tail = previous.then(() => mine);
      turnTails.set(sessionId, tail);
      void tail.then(() => {
        if (turnTails.get(sessionId) === tail) turnTails.delete(sessionId);
      });
      const signal = options?.signal;
      await new Promise<void>((resolve, reject) => {
        // Given up while waiting: the turn after this one still follows the one before.
        const onAbort = (): void => {
          void previous.then(open);
          reject(new AbortError('Waiting for the session turn was aborted'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        void previous.then(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        });
      });
      return {
        async release() {
          open();
        },
      };
    },

    async deleteUser(userId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(userId, 'userId');
      let removedSessions = 0;
      let removedMessages = 0;
      for (const [id, stored] of [...sessions]) {
        if (stored.record.userId !== userId) continue;
        removedMessages += stored.messageIds.length;
        removedSessions++;
        evict(id, stored);
      }
      return { sessions: removedSessions, messages: removedMessages };
    },

    async listSessions(options: ListSessionsOptions): Promise<SessionPage> {
      throwIfAborted(options?.signal);
      requireString(options?.userId, 'userId');
      const limit = requireCount(options.limit, 'limit', 1);
      const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
      sweep();
      const candidates = [...sessions.values()]
        .map((stored) => stored.record)
        .filter((session) => session.userId === options.userId)
        .filter((session) => after === null || compareNewestFirst(session, after) > 0)
        .sort(compareNewestFirst);
      const page = candidates.slice(0, limit);
      const last = page[page.length - 1];
      return {
        sessions: page,
        nextCursor: candidates.length > limit && last ? encodeCursor(last) : null,
      };
    },

    async appendMessages(
      sessionId: string,
      batch: readonly MessageRecord[],
      stats?: SessionStatsDelta,
      options?: CallOptions,
    ) {
      throwIfAborted(options?.signal);
      const stored = use(sessionId);
      if (!stored) throw new NotFoundError('session', sessionId);
      if (!Array.isArray(batch)) throw invalid('messages', 'must be an array');
      const seen = new Set<string>();
      batch.forEach((message, index) => {
        validateMessage(message, `messages.${index}`, stored.record);
        if (messages.has(message.id) || seen.has(message.id)) {
          throw new ConflictError(`message '${message.id}' already exists`);
        }
        seen.add(message.id);
      });
      // One user message per idempotency key, one whole answer per user message.
      const claims = idempotencyClaims(sessionId, batch);
      // The running sets answer whether a claim is taken; only then is the history walked,
      // so the error names the first conflicting message, as it always has.
      if (
        claims.requestIds.some((requestId) => stored.requestIds.has(requestId)) ||
        claims.replies.some((replyTo) => stored.answered.has(replyTo))
      ) {
        for (const id of stored.messageIds) {
          const held = messages.get(id);
          if (held?.role === 'user' && held.requestId != null) {
            if (claims.requestIds.includes(held.requestId)) {
              throw requestIdTaken(sessionId, held.requestId);
            }
          } else if (held?.role === 'assistant' && held.replyTo != null) {
            if (held.status !== 'incomplete' && claims.replies.includes(held.replyTo)) {
              throw alreadyAnswered(sessionId, held.replyTo);
            }
          }
        }
      }
      const searchMs = stats === undefined ? 0 : requireDuration(stats.searchMs, 'stats.searchMs');
      const generationMs =
        stats === undefined ? 0 : requireDuration(stats.generationMs, 'stats.generationMs');
      const copies = batch.map((message) => frozenCopy(message));

      // Everything is valid: apply in one step.
      const current = stored.record;
      const newest = copies.reduce(
        (latest, message) => (message.createdAt > latest ? message.createdAt : latest),
        current.updatedAt,
      );
      for (const message of copies) {
        messages.set(message.id, message);
        track(stored, message);
      }
      stored.record = deepFreeze<SessionRecord>({
        ...current,
        updatedAt: newest,
        stats: {
          messageCount: current.stats.messageCount + copies.length,
          totalSearchMs: current.stats.totalSearchMs + searchMs,
          totalGenerationMs: current.stats.totalGenerationMs + generationMs,
        },
      });
    },

    async appendSummary(sessionId: string, summary: MessageRecord, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const stored = use(sessionId);
      if (!stored) throw new NotFoundError('session', sessionId);
      validateMessage(summary, 'summary', stored.record);
      if (summary.role !== 'system-summary') {
        throw invalid('summary.role', "must be 'system-summary'");
      }
      const covers = summary.covers ?? [];
      if (!Array.isArray(covers) || covers.length === 0) {
        throw invalid('summary.covers', 'must list the messages the summary replaces');
      }
      if (messages.has(summary.id))
        throw new ConflictError(`message '${summary.id}' already exists`);
      // Ids are unique store-wide and a message names its session: no walk over the history.
      for (const id of covers) {
        if (messages.get(id)?.sessionId !== sessionId) throw new NotFoundError('message', id);
      }
      const copy = frozenCopy(summary);
      const covered = new Set(covers);
      for (const id of covered) {
        messages.set(id, deepFreeze({ ...messages.get(id)!, coveredBy: copy.id }));
      }
      const uncovered = stored.uncoveredIds.filter((id) => !covered.has(id));
      stored.uncoveredIds.length = 0;
      stored.uncoveredIds.push(...uncovered);
      messages.set(copy.id, copy);
      track(stored, copy);
      const current = stored.record;
      stored.record = deepFreeze<SessionRecord>({
        ...current,
        updatedAt: copy.createdAt > current.updatedAt ? copy.createdAt : current.updatedAt,
        stats: { ...current.stats, messageCount: current.stats.messageCount + 1 },
      });
    },

    async findMessage(sessionId: string, query: MessageQuery, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const ids = use(sessionId)?.messageIds ?? [];
      for (let index = ids.length - 1; index >= 0; index--) {
        const message = messages.get(ids[index]!);
        if (!message) continue;
        if (
          'requestId' in query
            ? message.requestId === query.requestId
            : message.replyTo === query.replyTo
        ) {
          return message;
        }
      }
      return null;
    },

    async listMessages(sessionId: string, options: ListMessagesOptions = {}) {
      throwIfAborted(options.signal);
      const offset = options.offset === undefined ? 0 : requireCount(options.offset, 'offset', 0);
      const limit =
        options.limit === undefined
          ? Number.POSITIVE_INFINITY
          : requireCount(options.limit, 'limit', 0);
      if (options.order !== undefined && options.order !== 'asc' && options.order !== 'desc') {
        throw invalid('order', "must be 'asc' or 'desc'");
      }
      const stored = use(sessionId);
      // Covered messages are skipped: walk only the uncovered ones when that is all that is asked.
      const ids = (options.uncoveredOnly ? stored?.uncoveredIds : stored?.messageIds) ?? [];
      // One walk in the asked order that stops at the page's end: a turn asks for the newest
      // few messages of a long session.
      const page: MessageRecord[] = [];
      const descending = options.order === 'desc';
      let skipped = 0;
      for (let step = 0; step < ids.length && page.length < limit; step++) {
        const message = messages.get(ids[descending ? ids.length - 1 - step : step]!);
        if (message === undefined || (options.uncoveredOnly && message.coveredBy)) continue;
        if (skipped < offset) skipped++;
        else page.push(message);
      }
      return page;
    },

    async countMessages(sessionId: string, options?: CountMessagesOptions) {
      throwIfAborted(options?.signal);
      const stored = use(sessionId);
      if (stored === undefined) return 0;
      const role = options?.role;
      return role === undefined ? stored.messageIds.length : (stored.roleCounts.get(role) ?? 0);
    },

    async getMessage(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      sweep();
      return messages.get(id) ?? null;
    },
  };
}
