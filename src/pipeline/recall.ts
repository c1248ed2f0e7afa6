/**
 * Semantic recall (seed 004): earlier messages of the *same user* that are similar to the
 * current one come back into the context, even after compaction hid them.
 *
 * After a message is stored, {@link Recall.index} embeds it in the background (the reply never
 * waits) and upserts it into the vector store under the recall namespace
 * (`${namespace}::recall`), with metadata `{ userId, sessionId, role, createdAt, messageId,
 * text }`. Until that finishes the message is simply not recallable (seed 004's `embedding:
 * null`). Each turn, {@link Recall.recall} searches that namespace with a mandatory filter on
 * the user id (scope `user`) or on the user id and session id (scope `session`), leaves out
 * the recent window and the current message, and keeps the best matches above a minimum
 * similarity within a message count and a token budget. Any failure returns `[]`: recall never
 * fails a turn.
 *
 * @example
 * ```ts
 * const recall = createRecall({ vectorStore, embedder, tokenizer, namespace: 'default' });
 * recall.index([userMessage]);                        // background; returns at once
 * const earlier = await recall.recall({ userId, sessionId, query, excludeIds });
 * await recall.pending();                             // tests and engine.close()
 * ```
 * @module
 */
import * as z from 'zod/mini';
import { AbortError } from '../errors/index.js';
import type { MessageRecord } from '../ports/chat-records.js';
import type { MetadataFilter } from '../ports/common.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import type { VectorStore } from '../ports/vector-store.js';
import { intRange, lazySchema, range } from '../util/schema.js';
import type { EmbeddingCache } from './embedding-cache.js';

/** Which earlier messages recall may return: this session's, or all of this user's sessions. */
export type RecallScope = 'session' | 'user';

/** Recall settings (seed 004's options). */
export interface RecallSettings {
  /** Recall at all. Default true. */
  readonly enabled: boolean;
  /** `session` (default) or `user` (all of the user's sessions). Never another user's. */
  readonly scope: RecallScope;
  /** Most messages recalled per turn. Default 5 (seed 004: 1..10). */
  readonly maxMessages: number;
  /**
   * Most tokens of recalled text per turn, 100–4000 (seed 004's range). Default 1000, not the
   * seed's 2000: recalled messages are sent beside the recent history (`history.maxTokens`,
   * 2000) and the sources, and half the history budget keeps all three within a small
   * (4k–8k token) context window.
   */
  readonly maxTokens: number;
  /**
   * Least similarity of a recalled message, as cosine mapped through the embedder's
   * `similarityRange` to [0, 1] (the same calibration retrieval uses). Default 0.5.
   */
  readonly minSimilarity: number;
}

/** Default recall settings. */
export const DEFAULT_RECALL_SETTINGS: RecallSettings = Object.freeze({
  enabled: true,
  scope: 'session',
  maxMessages: 5,
  maxTokens: 1000,
  minSimilarity: 0.5,
});

/** Schema of the `recall` config section (built on the first call). */
export const recallConfigSchema = lazySchema(() =>
  z.prefault(
    z.strictObject({
      /** Recall at all. */
      enabled: z._default(z.boolean(), DEFAULT_RECALL_SETTINGS.enabled),
      /** `session` or `user`. */
      scope: z._default(z.enum(['session', 'user']), DEFAULT_RECALL_SETTINGS.scope),
      /** Most messages recalled per turn. */
      maxMessages: z._default(intRange(1, 10), DEFAULT_RECALL_SETTINGS.maxMessages),
      /** Most tokens of recalled text per turn (seed 004's range, 100–4000). */
      maxTokens: z._default(intRange(100, 4000), DEFAULT_RECALL_SETTINGS.maxTokens),
      /** Least calibrated similarity in [0, 1]. */
      minSimilarity: z._default(range(0, 1), DEFAULT_RECALL_SETTINGS.minSimilarity),
    }),
    {},
  ),
);

/** The vector-store namespace of recall records for an engine namespace. */
export function recallNamespace(namespace: string): string {
  return `${namespace}::recall`;
}

/** A recalled earlier message. */
export interface RecalledMessage {
  /** The stored message id. */
  readonly messageId: string;
  /** Its session. */
  readonly sessionId: string;
  /** Who said it. */
  readonly role: 'user' | 'assistant';
  /** The text. */
  readonly text: string;
  /** When it was said (ISO-8601 UTC). */
  readonly createdAt: string;
  /** Calibrated similarity to the query in [0, 1]. */
  readonly score: number;
  /** Tokens of `text` (0 when no tokenizer was given). */
  readonly tokens: number;
}

/** What one turn recalls for. */
export interface RecallQuery {
  /** The owner whose messages may be recalled: mandatory, never anyone else's. */
  readonly userId: string;
  /** The current session (filters with scope `session`). */
  readonly sessionId: string;
  /** The text to match (the current message, or its standalone rewrite). */
  readonly query: string;
  /** The query's embedding when the turn already has it (saves an embed call). */
  readonly vector?: Float32Array | undefined;
  /** Messages never to return: the current message and the recent window already in context. */
  readonly excludeIds?: readonly string[] | undefined;
  /** Overrides the settings' scope for this turn. */
  readonly scope?: RecallScope | undefined;
  /** Cancels the recall (then it rejects with `AbortError`; every other failure gives `[]`). */
  readonly signal?: AbortSignal | undefined;
  /** Told when this recall failed (and gave `[]`), besides the settings' `onError`. */
  readonly onFailure?: ((error: unknown) => void) | undefined;
}

/** Semantic recall of a user's earlier messages, with its background indexing queue. */
export interface Recall {
  /** The settings in force. */
  readonly settings: RecallSettings;
  /**
   * Embeds and upserts stored messages in the background and returns at once. User and
   * assistant messages with text are indexed; summaries, system messages and guard answers
   * are not. Never throws; failures go to `onError`.
   */
  index(messages: readonly MessageRecord[]): void;
  /** The most similar earlier messages of the same user, best first; `[]` on any failure. */
  recall(query: RecallQuery): Promise<RecalledMessage[]>;
  /**
   * Removes every recall record of a session (when it is deleted or evicted) and returns how
   * many. Indexing of the session still in flight settles first, and messages of the session
   * handed to `index` while it runs are dropped, so no record lands after it. Waits only for
   * that session's indexing, never for other sessions'. Rejects when the store fails (nothing
   * is hidden: the caller may retry).
   */
  forget(sessionId: string): Promise<number>;
  /** Resolves when every background task scheduled so far has settled (never rejects). */
  pending(): Promise<void>;
}

/** What recall talks to. */
export interface RecallDeps {
  /** Holds the recall records (in the recall namespace). */
  readonly vectorStore: VectorStore;
  /** Embeds messages and queries. */
  readonly embedder: EmbeddingProvider;
  /** Counts recalled tokens for the budget; without one, `maxTokens` is not enforced. */
  readonly tokenizer?: Tokenizer | undefined;
  /** The engine namespace; records go to `recallNamespace(namespace)`. */
  readonly namespace: string;
  /** Query-embedding cache shared with retrieval (the same query is embedded once). */
  readonly embeddingCache?: EmbeddingCache | undefined;
  /** Receives background and recall failures (e.g. to emit an `error` event). */
  readonly onError?: ((error: unknown, where: 'recall.index' | 'recall.query') => void) | undefined;
}

const INDEXED_ROLES = new Set(['user', 'assistant']);

/** Whether a stored message is worth recalling later. */
export function isRecallable(message: MessageRecord): boolean {
  return INDEXED_ROLES.has(message.role) && !message.guard && message.content.trim().length > 0;
}

/** Creates semantic recall over `deps.vectorStore` with `settings` (defaults applied). */
export function createRecall(deps: RecallDeps, settings: Partial<RecallSettings> = {}): Recall {
  const resolved: RecallSettings = { ...DEFAULT_RECALL_SETTINGS, ...settings };
  const namespace = recallNamespace(deps.namespace);
  const tasks = new Set<Promise<void>>();
  // Indexing in flight per session, and the sessions being forgotten (their messages are not
  // indexed any more). Both lose a session's entry as soon as it has none left.
  const sessionTasks = new Map<string, Set<Promise<void>>>();
  const forgetting = new Map<string, number>();
  const cosineRange = deps.embedder.similarityRange ?? [0.1, 0.5];

  const report = (error: unknown, where: 'recall.index' | 'recall.query'): void => {
    try {
      deps.onError?.(error, where);
    } catch {
      // A failing error handler must not break anything either.
    }
  };

  const track = (task: Promise<void>, sessionIds: ReadonlySet<string>): void => {
    const settled = task.then(
      () => undefined,
      (error: unknown) => report(error, 'recall.index'),
    );
    tasks.add(settled);
    for (const sessionId of sessionIds) {
      let running = sessionTasks.get(sessionId);
      if (!running) sessionTasks.set(sessionId, (running = new Set()));
      running.add(settled);
    }
    void settled.finally(() => {
      tasks.delete(settled);
      for (const sessionId of sessionIds) {
        const running = sessionTasks.get(sessionId);
        running?.delete(settled);
        if (running?.size === 0) sessionTasks.delete(sessionId);
      }
    });
  };

  /** Whether a message may still be indexed: its session is not being forgotten. */
  const keep = (message: MessageRecord): boolean => !forgetting.has(message.sessionId);

  const embedQuery = async (text: string, signal?: AbortSignal): Promise<Float32Array> => {
    const cached = deps.embeddingCache?.get(deps.embedder.id, text);
    if (cached) return cached;
    const [vector] = await deps.embedder.embed([text], { signal });
    if (!vector) throw new Error('the embedder returned no vector');
    deps.embeddingCache?.set(deps.embedder.id, text, vector);
    return vector;
  };

  return {
    settings: resolved,

    index(messages) {
      if (!resolved.enabled) return;
      const batch = messages.filter((message) => isRecallable(message) && keep(message));
      if (batch.length === 0) return;
      // Start on a later macrotask, so the caller's turn runs on first and is never delayed.
      track(
        new Promise<void>((resolve) => setTimeout(resolve, 0)).then(async () => {
          const vectors = await deps.embedder.embed(batch.map((message) => message.content));
          // A session forgotten while its messages were being embedded stays forgotten.
          const records = batch
            .map((message, index) => ({ message, vector: vectors[index]! }))
            .filter(({ message }) => keep(message));
          if (records.length === 0) return;
          await deps.vectorStore.upsert(
            namespace,
            records.map(({ message, vector }) => ({
              id: message.id,
              vector,
              metadata: {
                userId: message.userId,
                sessionId: message.sessionId,
                role: message.role,
                createdAt: message.createdAt,
                messageId: message.id,
                text: message.content,
              },
            })),
          );
        }),
        new Set(batch.map((message) => message.sessionId)),
      );
    },

    async recall(query) {
      if (!resolved.enabled) return [];
      const { signal } = query;
      try {
        if (typeof query.userId !== 'string' || query.userId.length === 0) return [];
        const scope = query.scope ?? resolved.scope;
        const exclude = new Set(query.excludeIds ?? []);
        const filter: MetadataFilter = {
          userId: query.userId,
          ...(scope === 'session' ? { sessionId: query.sessionId } : {}),
          ...(exclude.size > 0 ? { messageId: { $nin: [...exclude] } } : {}),
        };
        const vector = query.vector ?? (await embedQuery(query.query, signal));
        const matches = await deps.vectorStore.query(namespace, vector, {
          k: resolved.maxMessages + exclude.size,
          filter,
          signal,
        });
        const [floor, ceiling] = cosineRange;
        const recalled: RecalledMessage[] = [];
        let tokens = 0;
        for (const match of matches) {
          const { metadata } = match;
          // The filter is the boundary; this re-check makes isolation hold even for a store
          // that ignored it.
          if (metadata.userId !== query.userId) continue;
          if (scope === 'session' && metadata.sessionId !== query.sessionId) continue;
          if (exclude.has(match.id) || typeof metadata.text !== 'string') continue;
          const score = Math.min(1, Math.max(0, (match.score - floor) / (ceiling - floor)));
          if (score < resolved.minSimilarity) continue;
          const cost = deps.tokenizer ? deps.tokenizer.count(metadata.text) : 0;
          if (deps.tokenizer && tokens + cost > resolved.maxTokens) continue;
          tokens += cost;
          recalled.push({
            messageId: match.id,
            sessionId: String(metadata.sessionId),
            role: metadata.role === 'assistant' ? 'assistant' : 'user',
            text: metadata.text,
            createdAt: String(metadata.createdAt),
            score,
            tokens: cost,
          });
          if (recalled.length >= resolved.maxMessages) break;
        }
        return recalled;
      } catch (error) {
        if (signal?.aborted) throw new AbortError('Recall was aborted', { cause: error });
        report(error, 'recall.query');
        query.onFailure?.(error);
        return [];
      }
    },

    async forget(sessionId) {
      forgetting.set(sessionId, (forgetting.get(sessionId) ?? 0) + 1);
      try {
        // Indexing of this session already under way settles first (an upsert may be running);
        // no new indexing of it starts while `forgetting` holds it.
        for (let running = sessionTasks.get(sessionId); running;) {
          await Promise.all([...running]);
          running = sessionTasks.get(sessionId);
        }
        return await deps.vectorStore.delete(namespace, { filter: { sessionId } });
      } finally {
        const count = forgetting.get(sessionId)! - 1;
        if (count === 0) forgetting.delete(sessionId);
        else forgetting.set(sessionId, count);
      }
    },

    async pending() {
      // Tasks scheduled while waiting are awaited too.
      while (tasks.size > 0) await Promise.all([...tasks]);
    },
  };
}

/** Renders recalled messages for the context, oldest first, each with its role and date. */
export function formatRecalled(
  messages: readonly Pick<RecalledMessage, 'role' | 'text' | 'createdAt'>[],
): string {
  return [...messages]
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
    .map((message) => `[${message.role}, ${message.createdAt.slice(0, 10)}] ${message.text}`)
    .join('\n');
}
