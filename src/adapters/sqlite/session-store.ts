/** `SessionStore` on SQLite: one transaction per write, messages ordered by a per-session seq. */
import { ConflictError, NotFoundError, throwIfAborted } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { MessageRecord, SessionRecord, SessionStatsDelta } from '../../ports/chat-records.js';
import type {
  AcquireTurnOptions,
  ListMessagesOptions,
  CountMessagesOptions,
  ListSessionsOptions,
  MessageQuery,
  SessionPage,
  SessionPatch,
  SessionStore,
} from '../../ports/session-store.js';
import {
  MESSAGE_COLUMNS,
  SESSION_COLUMNS,
  SOURCE_COLUMNS,
  groupSources,
  messageValues,
  placeholders,
  rowToMessage,
  rowToSession,
  sessionValues,
  sourceValues,
  toJson,
  type Row,
} from '../sql/records.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { alreadyAnswered, idempotencyClaims, requestIdTaken } from '../shared/idempotency.js';
import {
  invalid,
  requireCount,
  requireString,
  validateBatch,
  validateListMessages,
  validatePatch,
  validateSession,
  validateStats,
  validateSummary,
} from '../shared/validate.js';
import { acquireLease, type LeaseOperations } from '../shared/turn-lease.js';
import { checkpointAfterDelete, type SqliteDatabase } from './database.js';

/** True for a primary-key or unique-constraint violation. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Builds the `SessionStore` of an open, migrated database. */
export function createSqliteSessionStore(database: SqliteDatabase, name = 'sqlite'): SessionStore {
  const statement = {
    insertSession: database.prepare(
      `INSERT INTO sessions (${SESSION_COLUMNS.join(', ')}) VALUES (${placeholders('sqlite', SESSION_COLUMNS.length)})`,
    ),
    getSession: database.prepare('SELECT * FROM sessions WHERE id = ?'),
    deleteSession: database.prepare('DELETE FROM sessions WHERE id = ?'),
    deleteFeedback: database.prepare('DELETE FROM feedback WHERE session_id = ?'),
    countUserMessages: database.prepare(
      'SELECT COUNT(*) AS count FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE user_id = ?)',
    ),
    deleteUserSources: database.prepare(
      `DELETE FROM sources WHERE message_id IN (SELECT id FROM messages
         WHERE session_id IN (SELECT id FROM sessions WHERE user_id = ?))`,
    ),
    deleteUserMessages: database.prepare(
      'DELETE FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE user_id = ?)',
    ),
    deleteUserFeedback: database.prepare(
      'DELETE FROM feedback WHERE session_id IN (SELECT id FROM sessions WHERE user_id = ?)',
    ),
    deleteUserSessions: database.prepare('DELETE FROM sessions WHERE user_id = ?'),
    listFirst: database.prepare(
      'SELECT * FROM sessions WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
    ),
    listAfter: database.prepare(
      `SELECT * FROM sessions WHERE user_id = ? AND (created_at < ? OR (created_at = ? AND id < ?))
       ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    lastSeq: database.prepare(
      'SELECT COALESCE(MAX(seq), 0) AS seq FROM messages WHERE session_id = ?',
    ),
    messageExists: database.prepare('SELECT 1 FROM messages WHERE id = ?'),
    requestIdTaken: database.prepare(
      `SELECT request_id FROM messages WHERE session_id = ? AND role = 'user'
         AND request_id IN (SELECT value FROM json_each(?)) LIMIT 1`,
    ),
    answered: database.prepare(
      `SELECT reply_to FROM messages WHERE session_id = ? AND role = 'assistant'
         AND status <> 'incomplete' AND reply_to IN (SELECT value FROM json_each(?)) LIMIT 1`,
    ),
    insertMessage: database.prepare(
      `INSERT INTO messages (${MESSAGE_COLUMNS.join(', ')}) VALUES (${placeholders('sqlite', MESSAGE_COLUMNS.length)})`,
    ),
    insertSource: database.prepare(
      `INSERT INTO sources (${SOURCE_COLUMNS.join(', ')}) VALUES (${placeholders('sqlite', SOURCE_COLUMNS.length)})`,
    ),
    addStats: database.prepare(
      `UPDATE sessions SET message_count = message_count + ?,
         total_search_time_ms = total_search_time_ms + ?,
         total_generation_time_ms = total_generation_time_ms + ?,
         updated_at = CASE WHEN ? > updated_at THEN ? ELSE updated_at END
       WHERE id = ?`,
    ),
    sessionMessageIds: database.prepare(
      'SELECT id FROM messages WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))',
    ),
    cover: database.prepare(
      'UPDATE messages SET covered_by = ? WHERE session_id = ? AND id IN (SELECT value FROM json_each(?))',
    ),
    findByRequest: database.prepare(
      'SELECT * FROM messages WHERE session_id = ? AND request_id = ? ORDER BY seq DESC LIMIT 1',
    ),
    findByReply: database.prepare(
      'SELECT * FROM messages WHERE session_id = ? AND reply_to = ? ORDER BY seq DESC LIMIT 1',
    ),
    list: {
      asc: database.prepare(
        'SELECT * FROM messages WHERE session_id = ? ORDER BY seq ASC LIMIT ? OFFSET ?',
      ),
      desc: database.prepare(
        'SELECT * FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?',
      ),
      uncoveredAsc: database.prepare(
        'SELECT * FROM messages WHERE session_id = ? AND covered_by IS NULL ORDER BY seq ASC LIMIT ? OFFSET ?',
      ),
      uncoveredDesc: database.prepare(
        'SELECT * FROM messages WHERE session_id = ? AND covered_by IS NULL ORDER BY seq DESC LIMIT ? OFFSET ?',
      ),
    },
    sourcesOf: database.prepare(
      `SELECT * FROM sources WHERE message_id IN (SELECT value FROM json_each(?))
       ORDER BY message_id, position`,
    ),
    count: database.prepare('SELECT COUNT(*) AS count FROM messages WHERE session_id = ?'),
    countRole: database.prepare(
      'SELECT COUNT(*) AS count FROM messages WHERE session_id = ? AND role = ?',
    ),
    getMessage: database.prepare('SELECT * FROM messages WHERE id = ?'),
  };

  function sessionRow(id: string): Row | undefined {
    return statement.getSession.get(id) as Row | undefined;
  }

  /** Messages of rows, with their sources (one query for all). */
  function withSources(rows: readonly Row[]): MessageRecord[] {
    if (rows.length === 0) return [];
    const sources = groupSources(
      statement.sourcesOf.all(toJson(rows.map((row) => row['id']))) as Row[],
    );
    return rows.map((row) => rowToMessage(row, sources.get(String(row['id'])) ?? []));
  }

  function insertMessage(message: MessageRecord, seq: number): void {
    statement.insertMessage.run(...messageValues(message, seq));
    message.sources.forEach((source, position) => {
      statement.insertSource.run(...sourceValues(message.id, position, source));
    });
  }

  const append = database.transaction(
    (sessionId: string, batch: readonly MessageRecord[], stats: SessionStatsDelta | undefined) => {
      const row = sessionRow(sessionId);
      if (!row) throw new NotFoundError('session', sessionId);
      const owner = { id: sessionId, userId: String(row['user_id']) };
      validateBatch(batch, owner);
      const delta = validateStats(stats);
      const seen = new Set<string>();
      for (const message of batch) {
        if (seen.has(message.id) || statement.messageExists.get(message.id)) {
          throw new ConflictError(`message '${message.id}' already exists`);
        }
        seen.add(message.id);
      }
      // One user message per idempotency key, one whole answer per user message.
      const claims = idempotencyClaims(sessionId, batch);
      const taken = (
        claims.requestIds.length === 0
          ? undefined
          : statement.requestIdTaken.get(sessionId, toJson(claims.requestIds))
      ) as Row | undefined;
      if (taken) throw requestIdTaken(sessionId, String(taken['request_id']));
      const answered = (
        claims.replies.length === 0
          ? undefined
          : statement.answered.get(sessionId, toJson(claims.replies))
      ) as Row | undefined;
      if (answered) throw alreadyAnswered(sessionId, String(answered['reply_to']));
      let seq = (statement.lastSeq.get(sessionId) as { seq: number }).seq;
      let newest = '';
      for (const message of batch) {
        insertMessage(message, ++seq);
        if (message.createdAt > newest) newest = message.createdAt;
      }
      statement.addStats.run(
        batch.length,
        delta.searchMs,
        delta.generationMs,
        newest,
        newest,
        sessionId,
      );
    },
  );

  const appendSummary = database.transaction((sessionId: string, summary: MessageRecord) => {
    const row = sessionRow(sessionId);
    if (!row) throw new NotFoundError('session', sessionId);
    const covers = validateSummary(summary, { id: sessionId, userId: String(row['user_id']) });
    if (statement.messageExists.get(summary.id)) {
      throw new ConflictError(`message '${summary.id}' already exists`);
    }
    const found = new Set(
      (statement.sessionMessageIds.all(sessionId, toJson(covers)) as Row[]).map((item) =>
        String(item['id']),
      ),
    );
    const missing = covers.find((id) => !found.has(id));
    if (missing !== undefined) throw new NotFoundError('message', missing);
    const seq = (statement.lastSeq.get(sessionId) as { seq: number }).seq + 1;
    insertMessage(summary, seq);
    statement.cover.run(summary.id, sessionId, toJson(covers));
    statement.addStats.run(1, 0, 0, summary.createdAt, summary.createdAt, sessionId);
  });

  // A deleted session takes its feedback (comments, corrections) along.
  const remove = database.transaction((id: string): boolean => {
    statement.deleteFeedback.run(id);
    return statement.deleteSession.run(id).changes > 0;
  });

  const lease = {
    take: database.prepare(
      `INSERT INTO turn_leases (session_id, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE turn_leases.expires_at < ?`,
    ),
    renew: database.prepare(
      'UPDATE turn_leases SET expires_at = ? WHERE session_id = ? AND holder = ?',
    ),
    release: database.prepare('DELETE FROM turn_leases WHERE session_id = ? AND holder = ?'),
  };
  const leaseOperations: LeaseOperations = {
    async tryAcquire(sessionId, holder, now, expiresAt) {
      return lease.take.run(sessionId, holder, expiresAt, now).changes > 0;
    },
    async renew(sessionId, holder, expiresAt) {
      lease.renew.run(expiresAt, sessionId, holder);
    },
    async release(sessionId, holder) {
      lease.release.run(sessionId, holder);
    },
  };

  // Explicit deletes, not the cascades: a database opened without `foreign_keys = ON` has none.
  const removeUser = database.transaction((userId: string) => {
    const messages = (statement.countUserMessages.get(userId) as { count: number }).count;
    statement.deleteUserFeedback.run(userId);
    statement.deleteUserSources.run(userId);
    statement.deleteUserMessages.run(userId);
    return { sessions: statement.deleteUserSessions.run(userId).changes, messages };
  });

  const update = database.transaction((id: string, patch: SessionPatch) => {
    const sets: string[] = [];
    const params: unknown[] = [];
    const set = (column: string, value: unknown): void => {
      sets.push(`${column} = ?`);
      params.push(value);
    };
    if (patch.title !== undefined) set('title', patch.title);
    if (patch.status !== undefined) set('status', patch.status);
    if (patch.endedAt !== undefined) set('ended_at', patch.endedAt);
    if (patch.trajectoryId !== undefined) set('trajectory_id', patch.trajectoryId);
    if (patch.settings !== undefined) set('settings', toJson(patch.settings));
    set('updated_at', patch.updatedAt);
    const row = database
      .prepare(`UPDATE sessions SET ${sets.join(', ')} WHERE id = ? RETURNING *`)
      .get(...params, id) as Row | undefined;
    return row ? rowToSession(row) : null;
  });

  return {
    name,
    specificationVersion: 'v1',

    async createSession(session: SessionRecord, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateSession(session);
      try {
        statement.insertSession.run(...sessionValues(session));
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new ConflictError(`session '${session.id}' already exists`, { cause: error });
        }
        throw error;
      }
    },

    async getSession(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const row = sessionRow(id);
      return row ? rowToSession(row) : null;
    },

    async updateSession(id: string, patch: SessionPatch, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validatePatch(patch);
      return update.immediate(id, patch);
    },

    async deleteSession(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const removed = remove(id);
      if (removed) checkpointAfterDelete(database);
      return removed;
    },

    acquireTurn(sessionId: string, options?: AcquireTurnOptions) {
      return acquireLease(leaseOperations, sessionId, options);
    },

    async deleteUser(userId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(userId, 'userId');
      const removed = removeUser.immediate(userId);
      checkpointAfterDelete(database);
      return removed;
    },

    async listSessions(options: ListSessionsOptions): Promise<SessionPage> {
      throwIfAborted(options?.signal);
      requireString(options?.userId, 'userId');
      const limit = requireCount(options.limit, 'limit', 1);
      const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
      const rows = (
        after === null
          ? statement.listFirst.all(options.userId, limit + 1)
          : statement.listAfter.all(
              options.userId,
              after.createdAt,
              after.createdAt,
              after.id,
              limit + 1,
            )
      ) as Row[];
      const sessions = rows.slice(0, limit).map(rowToSession);
      const last = sessions[sessions.length - 1];
      return { sessions, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
    },

    async appendMessages(
      sessionId: string,
      batch: readonly MessageRecord[],
      stats?: SessionStatsDelta,
      options?: CallOptions,
    ) {
      throwIfAborted(options?.signal);
      try {
        append.immediate(sessionId, batch, stats);
      } catch (error) {
        // The unique index on (session_id, request_id) backs the check in the transaction.
        if (isUniqueViolation(error)) {
          throw new ConflictError(
            `a message of this batch is already stored in session '${sessionId}'`,
            {
              cause: error,
            },
          );
        }
        throw error;
      }
    },

    async appendSummary(sessionId: string, summary: MessageRecord, options?: CallOptions) {
      throwIfAborted(options?.signal);
      appendSummary.immediate(sessionId, summary);
    },

    async findMessage(sessionId: string, query: MessageQuery, options?: CallOptions) {
      throwIfAborted(options?.signal);
      if (typeof query !== 'object' || query === null) throw invalid('query', 'must be an object');
      const row = (
        'requestId' in query
          ? statement.findByRequest.get(sessionId, requireString(query.requestId, 'requestId'))
          : statement.findByReply.get(sessionId, requireString(query.replyTo, 'replyTo'))
      ) as Row | undefined;
      return row ? (withSources([row])[0] ?? null) : null;
    },

    async listMessages(sessionId: string, options: ListMessagesOptions = {}) {
      throwIfAborted(options.signal);
      const { offset, limit, order, uncoveredOnly } = validateListMessages(options);
      const query = uncoveredOnly
        ? order === 'desc'
          ? statement.list.uncoveredDesc
          : statement.list.uncoveredAsc
        : order === 'desc'
          ? statement.list.desc
          : statement.list.asc;
      return withSources(query.all(sessionId, limit ?? -1, offset) as Row[]);
    },

    async countMessages(sessionId: string, options?: CountMessagesOptions) {
      throwIfAborted(options?.signal);
      const role = options?.role;
      const row =
        role === undefined
          ? statement.count.get(sessionId)
          : statement.countRole.get(sessionId, role);
      return (row as { count: number }).count;
    },

    async getMessage(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const row = statement.getMessage.get(id) as Row | undefined;
      return row ? (withSources([row])[0] ?? null) : null;
    },
  };
}
