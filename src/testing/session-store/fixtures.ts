/**
 * Records and helpers the `SessionStore` conformance cases share: sessions, messages and
 * answers at fixed times, and the context that gives each group of cases the store and user
 * of the running test.
 */
import type { MessageRecord, SessionRecord, Source } from '../../ports/chat-records.js';
import type { SessionStore } from '../../ports/session-store.js';
import { ulid } from '../../util/ids.js';

/**
 * What every group of cases shares: the store and user the suite made for the running test
 * (read them in a hook or a test, never while registering), and helpers bound to them.
 */
export interface SessionStoreCaseContext {
  /** The store under test. */
  readonly store: SessionStore;
  /** A user id no other test has used. */
  readonly userId: string;
  /** Makes and stores a session of `userId`. */
  readonly created: (overrides?: Partial<SessionRecord>) => Promise<SessionRecord>;
  /** The contents of a session's messages, in the given order. */
  readonly contents: (sessionId: string, order?: 'asc' | 'desc') => Promise<string[]>;
}

export const BASE_TIME = Date.parse('2024-03-01T12:00:00.000Z');

/** ISO time `minutes` after a fixed base. */
export const at = (minutes: number): string => new Date(BASE_TIME + minutes * 60_000).toISOString();

export function makeSession(userId: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: ulid(),
    userId,
    title: 'Refunds',
    status: 'active',
    createdAt: at(0),
    updatedAt: at(0),
    endedAt: null,
    trajectoryId: null,
    settings: { systemPrompt: 'Be brief.', topK: 5 },
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: { channel: 'web', priority: 2, pinned: true, note: null },
    ...overrides,
  };
}

export const SOURCE: Source = {
  id: 'S1',
  chunkId: 'handbook#3',
  documentId: 'handbook',
  title: 'Handbook',
  uri: 'docs/handbook.md',
  // as the engine builds it: the heading path of `metadata.section`
  section: 'Refunds',
  snippet: 'Refunds are issued within 14 days.',
  score: 0.75,
  vectorScore: 0.5,
  keywordScore: 1,
  fusedScore: 0.03125,
  type: 'hybrid',
  graphBoost: 1,
  learnedBoost: 1.25,
  graphContext: { nodeId: 'chunk:handbook#3', relatedNodeCount: 2, pathDepth: 0 },
  metadata: { section: 'Refunds', position: 3 },
};

export function makeMessage(
  session: SessionRecord,
  minutes: number,
  overrides: Partial<MessageRecord> = {},
): MessageRecord {
  return {
    id: ulid(),
    sessionId: session.id,
    userId: session.userId,
    role: 'user',
    content: `message at minute ${minutes}`,
    status: 'complete',
    createdAt: at(minutes),
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
    ...overrides,
  };
}

export function makeAnswer(session: SessionRecord, minutes: number): MessageRecord {
  return makeMessage(session, minutes, {
    role: 'assistant',
    content: 'Refunds are issued within 14 days [source: S1].',
    sources: [SOURCE],
    confidence: {
      overall: 0.75,
      level: 'high',
      sourceQuality: 0.75,
      sourceDiversity: 0.5,
      semanticCohesion: 1,
      graphContext: null,
      llmCertainty: 0.5,
      weights: {
        sourceQuality: 0.5,
        sourceDiversity: 0.25,
        semanticCohesion: 0.125,
        graphContext: 0,
        llmCertainty: 0.125,
      },
    },
    timings: { retrievalMs: 4, generationMs: 12, totalMs: 20 },
    metadata: { model: 'extractive' },
  });
}

/** Changes `value` however it can; frozen objects may throw, which is fine. */
export function tryToMutate(mutate: () => void): void {
  try {
    mutate();
  } catch {
    // A frozen record refuses the change: also a way to protect stored state.
  }
}
