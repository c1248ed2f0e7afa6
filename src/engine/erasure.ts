/**
 * Erasure: what deleting a session removes from the stores besides its messages (its
 * corrections, recall records and learning records), and `engine.deleteUser`, which removes
 * everything a user left in every store (sessions, messages, summaries, recall records,
 * feedback, trajectories, corrections, learned boost) and reports what it removed.
 */
import type { ResolvedConfig } from '../config.js';
import { deleteDocuments } from '../ingest/ingest.js';
import { recallNamespace } from '../pipeline/recall.js';
import { CORRECTION_AUTHOR_KEY } from '../pipeline/retrieve/visibility.js';
import type { EngineRuntime } from '../runtime.js';
import type { KeyedLock } from '../util/keyed-lock.js';
import { parseInput, userRefSchema } from '../validate.js';
import type { EngineParts } from './runtime.js';

/** What `engine.deleteUser` removed, store by store. */
export interface UserErasureReport {
  /** The user erased. */
  readonly userId: string;
  /** Sessions removed. */
  readonly sessions: number;
  /** Stored messages removed (user, assistant and system messages, summaries included). */
  readonly messages: number;
  /** Of those, conversation summaries (`system-summary`). */
  readonly summaries: number;
  /** Recall records (message embeddings) removed from the vector store. */
  readonly recallRecords: number;
  /** Feedback records removed (ratings, comments, corrections). */
  readonly feedback: number;
  /** Learning trajectories removed (their steps with them). */
  readonly trajectories: number;
  /** Chunks of ingested corrections removed from the vector store and keyword index. */
  readonly correctionChunks: number;
  /** Events of the learned rerank boost removed (this process's; see `docs/memory.md`). */
  readonly learnedBoostEvents: number;
}

/** What erasing one session's records removed. */
type SessionErasure = Omit<UserErasureReport, 'userId' | 'sessions' | 'learnedBoostEvents'>;

/** Document id of the correction ingested for an answer (`engine.feedback`). */
export function correctionDocumentId(messageId: string): string {
  return `correction:${messageId}`;
}

/** Correction documents are deleted this many at a time (bounded `$in` lists). */
const BATCH = 200;

/** What erasure uses of its engine. */
export interface ErasureOptions {
  readonly resolved: ResolvedConfig;
  readonly parts: EngineParts;
  readonly lock: KeyedLock;
  /** The turn runtime (its recall forgets a session's records). */
  readonly runtime: () => Promise<EngineRuntime>;
  /** Empties the caches keyed by raw text. */
  readonly clearTextCaches: () => void;
}

/** The erasure operations of an engine. */
export function createErasure(options: ErasureOptions) {
  const { resolved, parts, lock, runtime, clearTextCaches } = options;
  const { base, graphStore, graphIndexer, learnedBoost } = parts;
  const namespace = resolved.namespace;

  /** Removes the corrections ingested for these answers (every index, and the graph). */
  const eraseCorrections = async (messageIds: readonly string[]): Promise<number> => {
    let removed = 0;
    for (let start = 0; start < messageIds.length; start += BATCH) {
      const batch = messageIds.slice(start, start + BATCH);
      const documentIds = batch.map(correctionDocumentId);
      removed += await deleteDocuments(base, namespace, documentIds);
      if (graphIndexer && graphStore) {
        // The term nodes of a correction hold its words: those no other chunk shares go too.
        const snapshot = await graphIndexer.snapshot(namespace, documentIds);
        await graphIndexer.remove(namespace, documentIds);
        const terms = snapshot.nodes.filter((node) => node.type === 'term');
        const orphans: string[] = [];
        for (const term of terms) {
          const around = await graphStore.neighbors(namespace, term.id, { depth: 1, limit: 1 });
          if (around.length === 0) orphans.push(term.id);
        }
        orphans.push(...batch.map((id) => `message:${id}`));
        await graphStore.deleteNodes(namespace, orphans);
      }
    }
    return removed;
  };

  /**
   * Removes what other stores hold for a session (its corrections, recall records and learning
   * records), before the session store deletes the session itself. For an evicted session the
   * messages are already gone, so its corrections stay until `deleteUser`.
   */
  const eraseSessionRecords = async (sessionId: string): Promise<SessionErasure> => {
    const messages = await base.sessionStore.listMessages(sessionId);
    const answers = messages.filter((message) => message.role === 'assistant');
    const feedback = (await base.learningSink.listFeedback({ sessionId })).length;
    const correctionChunks = await eraseCorrections(answers.map((message) => message.id));
    const recallRecords = await (await runtime()).recall.forget(sessionId);
    const learning = await base.learningSink.deleteSession(sessionId);
    return {
      messages: messages.length,
      summaries: messages.filter((message) => message.role === 'system-summary').length,
      recallRecords,
      feedback,
      trajectories: Math.max(0, learning - feedback),
      correctionChunks,
    };
  };

  /** `engine.deleteUser`. */
  const deleteUser = async (params: { userId: string }): Promise<UserErasureReport> => {
    const { userId } = parseInput(userRefSchema(), params, 'user reference');
    const totals = {
      sessions: 0,
      messages: 0,
      summaries: 0,
      recallRecords: 0,
      feedback: 0,
      trajectories: 0,
      correctionChunks: 0,
      learnedBoostEvents: 0,
    };
    const add = (part: Partial<typeof totals>): void => {
      for (const [key, value] of Object.entries(part) as [keyof typeof totals, number][]) {
        totals[key] += value;
      }
    };
    // Each session under its lock (after a turn still running on it), the same way as
    // `deleteSession`. Deleted sessions leave the listing, so the first page is read again
    // until it is empty (or holds only sessions a failing store did not delete).
    const seen = new Set<string>();
    for (;;) {
      const page = await base.sessionStore.listSessions({ userId, limit: 100 });
      const fresh = page.sessions.filter((session) => !seen.has(session.id));
      if (fresh.length === 0) break;
      for (const session of fresh) {
        seen.add(session.id);
        await lock.run(session.id, async () => {
          add(await eraseSessionRecords(session.id));
          if (await base.sessionStore.deleteSession(session.id)) totals.sessions++;
        });
      }
    }
    // Then what no session leads to any more: sessions created meanwhile, learning records and
    // recall records left by an earlier failure or eviction, corrections of evicted sessions.
    const swept = await base.sessionStore.deleteUser?.(userId);
    if (swept) add(swept);
    const learning = await base.learningSink.deleteUser?.(userId);
    if (learning) add(learning);
    add({
      recallRecords: await base.vectorStore.delete(recallNamespace(namespace), {
        filter: { userId },
      }),
    });
    const corrections = { filter: { [CORRECTION_AUTHOR_KEY]: userId } };
    add({ correctionChunks: await base.vectorStore.delete(namespace, corrections) });
    await base.keywordIndex.delete(namespace, corrections);
    add({ learnedBoostEvents: learnedBoost?.forgetUser(userId) ?? 0 });
    clearTextCaches();
    return { userId, ...totals };
  };

  return { eraseSessionRecords, deleteUser };
}
