/**
 * Input checks shared by the stores (in-memory, SQLite, Postgres, LanceDB):
 * one set of rules, so a rejected call is the same `ValidationError` naming the field
 * everywhere and nothing is written.
 */
import { ValidationError } from '../../errors/index.js';
import type { MessageRecord, SessionRecord, SessionStatsDelta } from '../../ports/chat-records.js';
import type { Metadata, MetadataValue } from '../../ports/common.js';
import type { TraverseOptions } from '../../ports/graph-store.js';
import type { ListMessagesOptions, SessionPatch } from '../../ports/session-store.js';
import { isFloat32Array } from '../../util/realm.js';
import { isMetadataValue } from '../../query/metadata.js';

const ROLES = new Set(['user', 'assistant', 'system', 'system-summary']);
const STATUSES = new Set(['complete', 'incomplete', 'degraded']);
const SESSION_STATUSES = new Set(['active', 'ended', 'archived']);
const SOURCE_TYPES = new Set(['vector', 'keyword', 'graph', 'hybrid']);
const DIRECTIONS = new Set(['out', 'in', 'both']);

/** A `ValidationError` for one field. */
export function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`${path} ${message}`, [{ path, message }]);
}

/** A non-empty string (or, with `allowEmpty`, any string). */
export function requireString(value: unknown, path: string, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && value.length === 0)) {
    throw invalid(path, allowEmpty ? 'must be a string' : 'must be a non-empty string');
  }
  return value;
}

/** A positive integer, such as the `k` of a search. */
export function requirePositiveInteger(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw invalid(path, `must be a positive integer (got ${String(value)})`);
  }
  return value;
}

/** An integer ≥ `minimum`. */
export function requireCount(value: unknown, path: string, minimum: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < minimum) {
    throw invalid(path, `must be an integer ≥ ${minimum}`);
  }
  return value;
}

/** A finite number ≥ 0. */
export function requireDuration(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalid(path, 'must be a finite number ≥ 0');
  }
  return value;
}

/** A number in [min, max]. */
export function requireInRange(value: unknown, path: string, min: number, max: number): number {
  if (typeof value !== 'number' || !(value >= min && value <= max)) {
    throw invalid(path, `must be a number in [${min}, ${max}]`);
  }
  return value;
}

/** A plain object (metadata, properties, settings). */
export function requireObject(value: unknown, path: string): Metadata {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(path, 'must be an object');
  }
  return value as Metadata;
}

/** Checks a session record before it is stored. */
export function validateSession(session: SessionRecord): void {
  if (typeof session !== 'object' || session === null) {
    throw invalid('session', 'must be an object');
  }
  requireString(session.id, 'session.id');
  requireString(session.userId, 'session.userId');
  requireString(session.createdAt, 'session.createdAt');
  requireString(session.updatedAt, 'session.updatedAt');
  if (!SESSION_STATUSES.has(session.status)) {
    throw invalid('session.status', "must be 'active', 'ended' or 'archived'");
  }
  if (typeof session.stats !== 'object' || session.stats === null) {
    throw invalid('session.stats', 'must be an object');
  }
  requireCount(session.stats.messageCount, 'session.stats.messageCount', 0);
  requireDuration(session.stats.totalSearchMs, 'session.stats.totalSearchMs');
  requireDuration(session.stats.totalGenerationMs, 'session.stats.totalGenerationMs');
  requireObject(session.settings ?? {}, 'session.settings');
  requireObject(session.metadata ?? {}, 'session.metadata');
}

/** Checks a session patch. */
export function validatePatch(patch: SessionPatch): void {
  if (typeof patch !== 'object' || patch === null) throw invalid('patch', 'must be an object');
  requireString(patch.updatedAt, 'patch.updatedAt');
  if (patch.status !== undefined && !SESSION_STATUSES.has(patch.status)) {
    throw invalid('patch.status', "must be 'active', 'ended' or 'archived'");
  }
  if (patch.settings !== undefined) requireObject(patch.settings, 'patch.settings');
}

/** Checks a message for `session` (it must name the session and its owner). */
export function validateMessage(
  message: MessageRecord,
  path: string,
  session: { readonly id: string; readonly userId: string },
): void {
  if (typeof message !== 'object' || message === null) throw invalid(path, 'must be an object');
  requireString(message.id, `${path}.id`);
  if (message.sessionId !== session.id) {
    throw invalid(`${path}.sessionId`, `must be the session id '${session.id}'`);
  }
  if (message.userId !== session.userId) {
    throw invalid(`${path}.userId`, `must be the session owner '${session.userId}'`);
  }
  if (!ROLES.has(message.role)) {
    throw invalid(`${path}.role`, "must be 'user', 'assistant', 'system' or 'system-summary'");
  }
  if (typeof message.content !== 'string') throw invalid(`${path}.content`, 'must be a string');
  if (!STATUSES.has(message.status)) {
    throw invalid(`${path}.status`, "must be 'complete', 'incomplete' or 'degraded'");
  }
  requireString(message.createdAt, `${path}.createdAt`);
  if (!Array.isArray(message.sources)) throw invalid(`${path}.sources`, 'must be an array');
  message.sources.forEach((source, index) => {
    const at = `${path}.sources.${index}`;
    if (typeof source !== 'object' || source === null) throw invalid(at, 'must be an object');
    requireString(source.id, `${at}.id`);
    requireString(source.chunkId, `${at}.chunkId`);
    requireString(source.documentId, `${at}.documentId`);
    requireString(source.snippet, `${at}.snippet`, true);
    if (typeof source.score !== 'number' || !Number.isFinite(source.score)) {
      throw invalid(`${at}.score`, 'must be a finite number');
    }
    if (typeof source.fusedScore !== 'number' || !Number.isFinite(source.fusedScore)) {
      throw invalid(`${at}.fusedScore`, 'must be a finite number');
    }
    if (!SOURCE_TYPES.has(source.type)) {
      throw invalid(`${at}.type`, "must be 'vector', 'keyword', 'graph' or 'hybrid'");
    }
  });
  requireObject(message.metadata ?? {}, `${path}.metadata`);
  for (const key of ['requestId', 'replyTo', 'coveredBy'] as const) {
    const value = message[key];
    if (value !== undefined && value !== null) requireString(value, `${path}.${key}`);
  }
  if (message.covers !== undefined) {
    if (!Array.isArray(message.covers)) throw invalid(`${path}.covers`, 'must be an array');
    message.covers.forEach((id, index) => requireString(id, `${path}.covers.${index}`));
  }
}

/** Checks a batch for `appendMessages`: each message, and no id twice in it. */
export function validateBatch(
  batch: readonly MessageRecord[],
  session: { readonly id: string; readonly userId: string },
): void {
  if (!Array.isArray(batch)) throw invalid('messages', 'must be an array');
  batch.forEach((message, index) => validateMessage(message, `messages.${index}`, session));
}

/** Checks a summary for `appendSummary` and returns the ids it covers. */
export function validateSummary(
  summary: MessageRecord,
  session: { readonly id: string; readonly userId: string },
): readonly string[] {
  validateMessage(summary, 'summary', session);
  if (summary.role !== 'system-summary') {
    throw invalid('summary.role', "must be 'system-summary'");
  }
  const covers = summary.covers ?? [];
  if (covers.length === 0) {
    throw invalid('summary.covers', 'must list the messages the summary replaces');
  }
  return covers;
}

/** Checks the timing delta of `appendMessages`. */
export function validateStats(stats: SessionStatsDelta | undefined): {
  searchMs: number;
  generationMs: number;
} {
  if (stats === undefined) return { searchMs: 0, generationMs: 0 };
  return {
    searchMs: requireDuration(stats.searchMs, 'stats.searchMs'),
    generationMs: requireDuration(stats.generationMs, 'stats.generationMs'),
  };
}

/** Checks `listMessages` options; `limit` is null for "no limit". */
export function validateListMessages(options: ListMessagesOptions): {
  offset: number;
  limit: number | null;
  order: 'asc' | 'desc';
  uncoveredOnly: boolean;
} {
  const offset = options.offset === undefined ? 0 : requireCount(options.offset, 'offset', 0);
  const limit = options.limit === undefined ? null : requireCount(options.limit, 'limit', 0);
  if (options.order !== undefined && options.order !== 'asc' && options.order !== 'desc') {
    throw invalid('order', "must be 'asc' or 'desc'");
  }
  return { offset, limit, order: options.order ?? 'asc', uncoveredOnly: !!options.uncoveredOnly };
}

/** Checks traversal options. */
export function validateTraverseOptions(options: TraverseOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw invalid('options', 'must be an object');
  }
  const { depth, edgeTypes, direction, limit } = options;
  if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 1) {
    throw invalid('depth', 'must be an integer ≥ 1');
  }
  if (edgeTypes !== undefined) {
    if (!Array.isArray(edgeTypes)) throw invalid('edgeTypes', 'must be an array of strings');
    edgeTypes.forEach((type, index) => requireString(type, `edgeTypes.${index}`));
  }
  if (direction !== undefined && !DIRECTIONS.has(direction)) {
    throw invalid('direction', "must be 'out', 'in' or 'both'");
  }
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) {
    throw invalid('limit', 'must be an integer ≥ 1');
  }
}

/**
 * A flat copy of record metadata (`undefined` fields dropped; `{}` when absent). Throws a
 * `ValidationError` naming the field on anything else than a metadata value, and with
 * `noNul` (PostgreSQL text and jsonb cannot hold U+0000) on a NUL in a field name or string.
 */
export function flatMetadata(metadata: unknown, path: string, noNul = false): Metadata {
  if (metadata === undefined) return {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw invalid(path, 'must be an object');
  }
  const copy: Record<string, MetadataValue> = {};
  for (const [field, value] of Object.entries(metadata)) {
    if (value === undefined) continue;
    const nul =
      noNul &&
      (field.includes('\u0000') || (typeof value === 'string' && value.includes('\u0000')));
    if (nul || !isMetadataValue(value)) {
      throw invalid(
        `${path}.${field}`,
        noNul
          ? 'must be a string without NUL, finite number, boolean or null'
          : 'must be a string, finite number, boolean or null',
      );
    }
    copy[field] = value;
  }
  return copy;
}

/**
 * The vector scaled to unit length as float32. Throws a `ValidationError` naming `path` on
 * anything but a number array or `Float32Array` of `dimensions` finite components, not all
 * zero. Scaling by the largest component first keeps huge or tiny vectors from overflowing
 * or underflowing.
 */
export function toUnitVector(vector: unknown, dimensions: number, path: string): Float32Array {
  if (!(isFloat32Array(vector) || Array.isArray(vector))) {
    throw invalid(path, 'must be a number array or Float32Array');
  }
  if (vector.length !== dimensions) {
    throw invalid(path, `has ${vector.length} dimensions; the store has ${dimensions}`);
  }
  let largest = 0;
  for (let index = 0; index < vector.length; index++) {
    const value: unknown = vector[index];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw invalid(`${path}.${index}`, `must be a finite number (got ${String(value)})`);
    }
    largest = Math.max(largest, Math.abs(value));
  }
  if (largest === 0) throw invalid(path, 'is a zero vector; cosine similarity is undefined');
  let sum = 0;
  for (let index = 0; index < vector.length; index++)
    sum += ((vector[index] as number) / largest) ** 2;
  const norm = Math.sqrt(sum) * largest;
  return Float32Array.from(vector as ArrayLike<number>, (value) => value / norm);
}
