import type { CallOptions } from './common.js';
import type {
  MessageRecord,
  MessageRole,
  SessionRecord,
  SessionSettings,
  SessionStatsDelta,
} from './chat-records.js';

/** Fields of a session that can change after creation. */
export interface SessionPatch {
  /** New title. */
  readonly title?: string | null;
  /** New status. */
  readonly status?: SessionRecord['status'];
  /** When it ended. */
  readonly endedAt?: string | null;
  /** Trajectory begun for it. */
  readonly trajectoryId?: string | null;
  /** Replacement settings. */
  readonly settings?: SessionSettings;
  /** ISO-8601 UTC of the change. */
  readonly updatedAt: string;
}

/** Options of `listSessions`. */
export interface ListSessionsOptions extends CallOptions {
  /** Only this user's sessions. */
  readonly userId: string;
  /** Page size. */
  readonly limit: number;
  /** Opaque cursor from the previous page. */
  readonly cursor?: string | undefined;
}

/** A page of sessions, newest first. */
export interface SessionPage {
  /** The sessions. */
  readonly sessions: SessionRecord[];
  /** Cursor of the next page, or null on the last one. */
  readonly nextCursor: string | null;
}

/** Options of `listMessages`. */
export interface ListMessagesOptions extends CallOptions {
  /** Most messages. */
  readonly limit?: number | undefined;
  /** Messages to skip, in the chosen order. */
  readonly offset?: number | undefined;
  /** `asc` (oldest first, default) or `desc`. */
  readonly order?: 'asc' | 'desc' | undefined;
  /** Leave out messages a summary covers (what the model's context is built from). */
  readonly uncoveredOnly?: boolean | undefined;
}

/** What `countMessages` counts. */
export interface CountMessagesOptions extends CallOptions {
  /** Only messages of this role (e.g. `user`: the session's turns so far). Default: all. */
  readonly role?: MessageRole | undefined;
}

/** How `findMessage` looks a message up within a session. */
export type MessageQuery =
  | {
      /** The user message with this idempotency key. */
      readonly requestId: string;
    }
  | {
      /** The assistant message answering this user message. */
      readonly replyTo: string;
    };

/** Stores sessions and their messages (with sources). */
export interface SessionStore {
  /** Adapter name, for events and errors. */
  readonly name: string;
  /** Port contract version this adapter implements. */
  readonly specificationVersion: 'v1';
  /** Stores a new session; rejects a duplicate id. */
  createSession(session: SessionRecord, options?: CallOptions): Promise<void>;
  /** A session by id, or null. */
  getSession(id: string, options?: CallOptions): Promise<SessionRecord | null>;
  /** Applies a patch; returns the updated session, or null if there is none. */
  updateSession(
    id: string,
    patch: SessionPatch,
    options?: CallOptions,
  ): Promise<SessionRecord | null>;
  /** Deletes a session and all its messages; returns whether it existed. */
  deleteSession(id: string, options?: CallOptions): Promise<boolean>;
  /** A user's sessions, newest first, paginated. */
  listSessions(options: ListSessionsOptions): Promise<SessionPage>;
  /**
   * Appends messages to a session in one atomic write: adds them to `messageCount`, `stats`
   * to the timing totals, and moves `updatedAt` to the newest message. Message ids are unique
   * across the store. A session holds one user message per `requestId` (idempotency key) and
   * one whole (`complete` or `degraded`) answer per user message: after it, no further answer
   * with that `replyTo`. The store is the arbiter between engines sharing it: of concurrent
   * appends claiming one key or one answer, exactly one succeeds. Rejects (applying nothing)
   * when the session does not exist (`NotFoundError`), or an id, a key or an answered message
   * is taken (`ConflictError`).
   */
  appendMessages(
    sessionId: string,
    messages: readonly MessageRecord[],
    stats?: SessionStatsDelta,
    options?: CallOptions,
  ): Promise<void>;
  /**
   * Appends a `system-summary` message and marks every message in its `covers` (all of this
   * session) as covered by it, in one atomic write. Rejects (applying nothing) an unknown
   * session or covered id (`NotFoundError`), or a message that is not a summary
   * (`ValidationError`).
   */
  appendSummary(sessionId: string, summary: MessageRecord, options?: CallOptions): Promise<void>;
  /** The message of a session matching the query (the newest answer for `replyTo`), or null. */
  findMessage(
    sessionId: string,
    query: MessageQuery,
    options?: CallOptions,
  ): Promise<MessageRecord | null>;
  /** A session's messages in insertion order (or reversed); `[]` for an unknown session. */
  listMessages(sessionId: string, options?: ListMessagesOptions): Promise<MessageRecord[]>;
  /** Number of messages of a session (of one role, when asked); 0 for an unknown session. */
  countMessages(sessionId: string, options?: CountMessagesOptions): Promise<number>;
  /** A message by id, or null. */
  getMessage(id: string, options?: CallOptions): Promise<MessageRecord | null>;
  /**
   * Optional, for stores that evict sessions on their own (a size bound, an idle expiry):
   * calls `listener` with the ids of the sessions just evicted, after they are gone, so that
   * the engine can delete what other stores hold for them (recall vectors, learning records).
   * Explicit `deleteSession` calls are not reported. Returns a function that removes the
   * listener. A listener that throws does not affect the store.
   */
  onEvict?(listener: SessionEvictionListener): () => void;
  /**
   * Optional: deletes every session of a user with all their messages (summaries and sources
   * included) and returns what was removed; an unknown user removes nothing. The engine's
   * `deleteUser` calls it after deleting the sessions it listed, so that a session created
   * meanwhile goes too. Not reported to `onEvict` listeners.
   */
  deleteUser?(userId: string, options?: CallOptions): Promise<UserSessionsDeletion>;
  /**
   * Optional: the session's turn lease, so that every engine sharing the store runs the turns
   * of one session one at a time (each answer is stored right after its question). Resolves
   * when this caller holds the lease, waiting while another holder has it; a lease not renewed
   * within `ttlMs` (a crashed holder) is taken over. The holder keeps it renewed until
   * `release`. Rejects with `AbortError` when `signal` fires while waiting. The session need
   * not exist yet.
   */
  acquireTurn?(sessionId: string, options?: AcquireTurnOptions): Promise<TurnLease>;
}

/** Options of `SessionStore.acquireTurn`. */
export interface AcquireTurnOptions extends CallOptions {
  /**
   * How long the lease lasts without renewal, ms (default 10,000): how long a crashed holder
   * can keep a session waiting. The holder renews it every third of that.
   */
  readonly ttlMs?: number | undefined;
}

/** A session's turn lease, held (see `SessionStore.acquireTurn`). */
export interface TurnLease {
  /** Gives the session back to the next turn; calling it again does nothing. */
  release(): Promise<void>;
}

/** What `SessionStore.deleteUser` removed. */
export interface UserSessionsDeletion {
  /** Sessions removed. */
  readonly sessions: number;
  /** Messages removed (summaries included). */
  readonly messages: number;
}

/** Receives the ids of sessions a store evicted on its own (see `SessionStore.onEvict`). */
export type SessionEvictionListener = (sessionIds: readonly string[]) => void;
