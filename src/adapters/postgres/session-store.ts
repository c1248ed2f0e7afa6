/**
 * `SessionStore` on Postgres: each write is one transaction that locks the session row
 * (`SELECT … FOR UPDATE`), so instances sharing the database append in a single order.
 */
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
import { isUniqueViolation, transaction, type PgPool, type PgQueryable } from './database.js';

/** `INSERT INTO table (columns) VALUES (…), (…)` for rows of parameters. */
function insertMany(table: string, columns: readonly string[], rows: readonly unknown[][]) {
  const values: unknown[] = [];
  const tuples = rows.map((row) => {
    const tuple = `(${placeholders('postgres', row.length, values.length + 1)})`;
    values.push(...row);
    return tuple;
  });
  return {
    text: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`,
    values,
  };
}

/** Builds the `SessionStore` on a pool whose schema is migrated; `t` qualifies table names. */
export function createPostgresSessionStore(
  pool: PgPool,
  t: (name: string) => string,
  name = 'postgres',
): SessionStore {
  const leaseOperations: LeaseOperations = {
    async tryAcquire(sessionId, holder, now, expiresAt) {
      const { rowCount } = await pool.query(
        `INSERT INTO ${t('turn_leases')} AS lease (session_id, holder, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE lease.expires_at < $4`,
        [sessionId, holder, expiresAt, now],
      );
      return (rowCount ?? 0) > 0;
    },
    async renew(sessionId, holder, expiresAt) {
      await pool.query(
        `UPDATE ${t('turn_leases')} SET expires_at = $1 WHERE session_id = $2 AND holder = $3`,
        [expiresAt, sessionId, holder],
      );
    },
    async release(sessionId, holder) {
      await pool.query(`DELETE FROM ${t('turn_leases')} WHERE session_id = $1 AND holder = $2`, [
        sessionId,
        holder,
      ]);
    },
  };

  async function lockSession(
    client: PgQueryable,
    id: string,
  ): Promise<{ id: string; userId: string }> {
    const { rows } = await client.query(
      `SELECT user_id FROM ${t('sessions')} WHERE id = $1 FOR UPDATE`,
      [id],
    );
    if (rows.length === 0) throw new NotFoundError('session', id);
    return { id, userId: String(rows[0]!['user_id']) };
  }

  async function lastSeq(client: PgQueryable, sessionId: string): Promise<number> {
    const { rows } = await client.query(
      `SELECT COALESCE(MAX(seq), 0)::int AS seq FROM ${t('messages')} WHERE session_id = $1`,
      [sessionId],
    );
    return Number(rows[0]!['seq']);
  }

  async function insertMessages(
    client: PgQueryable,
    batch: readonly MessageRecord[],
    firstSeq: number,
  ): Promise<void> {
    const messages = insertMany(
      t('messages'),
      MESSAGE_COLUMNS,
      batch.map((message, index) => messageValues(message, firstSeq + index)),
    );
    await client.query(messages.text, messages.values);
    const sources = batch.flatMap((message) =>
      message.sources.map((source, position) => sourceValues(message.id, position, source)),
    );
    if (sources.length > 0) {
      const insert = insertMany(t('sources'), SOURCE_COLUMNS, sources);
      await client.query(insert.text, insert.values);
    }
  }

  async function addStats(
    client: PgQueryable,
    sessionId: string,
    count: number,
    delta: { searchMs: number; generationMs: number },
    newest: string,
  ): Promise<void> {
    await client.query(
      `UPDATE ${t('sessions')} SET message_count = message_count + $1,
         total_search_time_ms = total_search_time_ms + $2,
         total_generation_time_ms = total_generation_time_ms + $3,
         updated_at = GREATEST(updated_at, $4)
       WHERE id = $5`,
      [count, delta.searchMs, delta.generationMs, newest, sessionId],
    );
  }

  async function withSources(rows: readonly Row[]): Promise<MessageRecord[]> {
    if (rows.length === 0) return [];
    const { rows: sourceRows } = await pool.query(
      `SELECT * FROM ${t('sources')} WHERE message_id = ANY($1::text[]) ORDER BY message_id, position`,
      [rows.map((row) => String(row['id']))],
    );
    const sources = groupSources(sourceRows);
    return rows.map((row) => rowToMessage(row, sources.get(String(row['id'])) ?? []));
  }

  async function existingIds(client: PgQueryable, ids: readonly string[]): Promise<string[]> {
    const { rows } = await client.query(
      `SELECT id FROM ${t('messages')} WHERE id = ANY($1::text[])`,
      [ids],
    );
    return rows.map((row) => String(row['id']));
  }

  return {
    name,
    specificationVersion: 'v1',

    async createSession(session: SessionRecord, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validateSession(session);
      try {
        await pool.query(
          `INSERT INTO ${t('sessions')} (${SESSION_COLUMNS.join(', ')}) VALUES (${placeholders('postgres', SESSION_COLUMNS.length)})`,
          sessionValues(session),
        );
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new ConflictError(`session '${session.id}' already exists`, { cause: error });
        }
        throw error;
      }
    },

    async getSession(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const { rows } = await pool.query(`SELECT * FROM ${t('sessions')} WHERE id = $1`, [id]);
      return rows[0] ? rowToSession(rows[0]) : null;
    },

    async updateSession(id: string, patch: SessionPatch, options?: CallOptions) {
      throwIfAborted(options?.signal);
      validatePatch(patch);
      const sets: string[] = [];
      const values: unknown[] = [];
      const set = (column: string, value: unknown): void => {
        values.push(value);
        sets.push(`${column} = $${values.length}`);
      };
      if (patch.title !== undefined) set('title', patch.title);
      if (patch.status !== undefined) set('status', patch.status);
      if (patch.endedAt !== undefined) set('ended_at', patch.endedAt);
      if (patch.trajectoryId !== undefined) set('trajectory_id', patch.trajectoryId);
      if (patch.settings !== undefined) set('settings', toJson(patch.settings));
      set('updated_at', patch.updatedAt);
      values.push(id);
      const { rows } = await pool.query(
        `UPDATE ${t('sessions')} SET ${sets.join(', ')} WHERE id = $${values.length} RETURNING *`,
        values,
      );
      return rows[0] ? rowToSession(rows[0]) : null;
    },

    async deleteSession(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      // A deleted session takes its feedback (comments, corrections) along.
      return transaction(pool, async (client) => {
        await client.query(`DELETE FROM ${t('feedback')} WHERE session_id = $1`, [id]);
        const { rowCount } = await client.query(`DELETE FROM ${t('sessions')} WHERE id = $1`, [id]);
        return (rowCount ?? 0) > 0;
      });
    },

    acquireTurn(sessionId: string, options?: AcquireTurnOptions) {
      return acquireLease(leaseOperations, sessionId, options);
    },

    async deleteUser(userId: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      requireString(userId, 'userId');
      const owned = `SELECT id FROM ${t('sessions')} WHERE user_id = $1`;
      return transaction(pool, async (client) => {
        await client.query(`DELETE FROM ${t('feedback')} WHERE session_id IN (${owned})`, [userId]);
        const messages = await client.query(
          `DELETE FROM ${t('messages')} WHERE session_id IN (${owned})`,
          [userId],
        );
        const sessions = await client.query(`DELETE FROM ${t('sessions')} WHERE user_id = $1`, [
          userId,
        ]);
        return { sessions: sessions.rowCount ?? 0, messages: messages.rowCount ?? 0 };
      });
    },

    async listSessions(options: ListSessionsOptions): Promise<SessionPage> {
      throwIfAborted(options?.signal);
      requireString(options?.userId, 'userId');
      const limit = requireCount(options.limit, 'limit', 1);
      const after = options.cursor === undefined ? null : decodeCursor(options.cursor);
      const { rows } =
        after === null
          ? await pool.query(
              `SELECT * FROM ${t('sessions')} WHERE user_id = $1
               ORDER BY created_at DESC, id DESC LIMIT $2`,
              [options.userId, limit + 1],
            )
          : await pool.query(
              `SELECT * FROM ${t('sessions')} WHERE user_id = $1 AND (created_at, id) < ($2, $3)
               ORDER BY created_at DESC, id DESC LIMIT $4`,
              [options.userId, after.createdAt, after.id, limit + 1],
            );
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
      await transaction(pool, async (client) => {
        const owner = await lockSession(client, sessionId);
        validateBatch(batch, owner);
        const delta = validateStats(stats);
        const ids = batch.map((message) => message.id);
        const twice = ids.find((id, index) => ids.indexOf(id) !== index);
        const taken = twice ?? (await existingIds(client, ids))[0];
        if (taken !== undefined) throw new ConflictError(`message '${taken}' already exists`);
        if (batch.length === 0) return;
        // One user message per idempotency key, one whole answer per user message (the
        // session row lock orders concurrent appends; the unique index backs the first).
        const claims = idempotencyClaims(sessionId, batch);
        const claiming = claims.requestIds.length > 0 || claims.replies.length > 0;
        const { rows: claimed } = !claiming
          ? { rows: [] }
          : await client.query(
              `SELECT request_id, reply_to FROM ${t('messages')} WHERE session_id = $1 AND (
             (role = 'user' AND request_id = ANY($2::text[]))
             OR (role = 'assistant' AND status <> 'incomplete' AND reply_to = ANY($3::text[])))
           LIMIT 1`,
              [sessionId, claims.requestIds, claims.replies],
            );
        const clash = claimed[0];
        if (clash) {
          throw clash['request_id'] != null &&
            claims.requestIds.includes(String(clash['request_id']))
            ? requestIdTaken(sessionId, String(clash['request_id']))
            : alreadyAnswered(sessionId, String(clash['reply_to']));
        }
        await insertMessages(client, batch, (await lastSeq(client, sessionId)) + 1);
        const newest = batch.reduce(
          (latest, message) => (message.createdAt > latest ? message.createdAt : latest),
          '',
        );
        await addStats(client, sessionId, batch.length, delta, newest);
      });
    },

    async appendSummary(sessionId: string, summary: MessageRecord, options?: CallOptions) {
      throwIfAborted(options?.signal);
      await transaction(pool, async (client) => {
        const owner = await lockSession(client, sessionId);
        const covers = validateSummary(summary, owner);
        if ((await existingIds(client, [summary.id])).length > 0) {
          throw new ConflictError(`message '${summary.id}' already exists`);
        }
        const { rows } = await client.query(
          `SELECT id FROM ${t('messages')} WHERE session_id = $1 AND id = ANY($2::text[])`,
          [sessionId, covers],
        );
        const found = new Set(rows.map((row) => String(row['id'])));
        const missing = covers.find((id) => !found.has(id));
        if (missing !== undefined) throw new NotFoundError('message', missing);
        await insertMessages(client, [summary], (await lastSeq(client, sessionId)) + 1);
        await client.query(
          `UPDATE ${t('messages')} SET covered_by = $1 WHERE session_id = $2 AND id = ANY($3::text[])`,
          [summary.id, sessionId, covers],
        );
        await addStats(client, sessionId, 1, { searchMs: 0, generationMs: 0 }, summary.createdAt);
      });
    },

    async findMessage(sessionId: string, query: MessageQuery, options?: CallOptions) {
      throwIfAborted(options?.signal);
      if (typeof query !== 'object' || query === null) throw invalid('query', 'must be an object');
      const [column, value] =
        'requestId' in query
          ? ['request_id', requireString(query.requestId, 'requestId')]
          : ['reply_to', requireString(query.replyTo, 'replyTo')];
      const { rows } = await pool.query(
        `SELECT * FROM ${t('messages')} WHERE session_id = $1 AND ${column} = $2
         ORDER BY seq DESC LIMIT 1`,
        [sessionId, value],
      );
      return (await withSources(rows))[0] ?? null;
    },

    async listMessages(sessionId: string, options: ListMessagesOptions = {}) {
      throwIfAborted(options.signal);
      const { offset, limit, order, uncoveredOnly } = validateListMessages(options);
      const { rows } = await pool.query(
        `SELECT * FROM ${t('messages')} WHERE session_id = $1
         ${uncoveredOnly ? 'AND covered_by IS NULL' : ''}
         ORDER BY seq ${order === 'desc' ? 'DESC' : 'ASC'} LIMIT $2 OFFSET $3`,
        [sessionId, limit, offset],
      );
      return withSources(rows);
    },

    async countMessages(sessionId: string, options?: CountMessagesOptions) {
      throwIfAborted(options?.signal);
      const role = options?.role;
      const { rows } =
        role === undefined
          ? await pool.query(
              `SELECT COUNT(*)::int AS count FROM ${t('messages')} WHERE session_id = $1`,
              [sessionId],
            )
          : await pool.query(
              `SELECT COUNT(*)::int AS count FROM ${t('messages')} WHERE session_id = $1 AND role = $2`,
              [sessionId, role],
            );
      return Number(rows[0]!['count']);
    },

    async getMessage(id: string, options?: CallOptions) {
      throwIfAborted(options?.signal);
      const { rows } = await pool.query(`SELECT * FROM ${t('messages')} WHERE id = $1`, [id]);
      return (await withSources(rows))[0] ?? null;
    },
  };
}
