/**
 * The user's own earlier statements as evidence (seed 004, issue 30): when the documents are
 * not evidence enough, the guard judges the user's recalled messages the same way, and a
 * question the user's history answers is answered from it, those messages being its sources.
 */
import type { MessageRecord } from '../../ports/chat-records.js';
import { decideGuard, guardFeatures, indexTerms, type GuardDecision } from '../guard.js';
import type { RecalledMessage } from '../recall.js';
import type { RetrievedChunk } from '../retrieve.js';
import { isQuestion } from '../../text/question-intent.js';

/**
 * Records the guard's index-size feature assumes for a user's messages: a history of about a
 * hundred messages (the feature discounts chance term matches in large indexes).
 */
export const MEMORY_INDEX_SIZE = 100;

/**
 * A recalled message as a source: the chunk id is the message id, the document
 * `message:<id>`, titled by its date; `vectorScore` maps the calibrated score back through
 * `cosineRange`, so the guard reads the same similarity recall measured.
 */
export function memoryChunk(
  message: RecalledMessage,
  cosineRange: readonly [number, number],
  lexical = false,
): RetrievedChunk {
  const [floor, ceiling] = cosineRange;
  return {
    chunkId: message.messageId,
    documentId: `message:${message.messageId}`,
    text: message.text,
    title: `Your message of ${message.createdAt.slice(0, 10)}`,
    uri: null,
    metadata: {
      recalled: true,
      sessionId: message.sessionId,
      role: message.role,
      createdAt: message.createdAt,
    },
    score: message.score,
    vectorScore: lexical ? null : floor + message.score * (ceiling - floor),
    keywordScore: null,
    fusedScore: message.score,
    type: 'vector',
    graphBoost: 1,
    learnedBoost: 1,
    rerankScore: null,
    graphContext: null,
  };
}

/**
 * The user's statements in the conversation's recent window (which recall leaves out: the
 * model reads them as history) as recall candidates, scored by the share of the query's terms
 * they contain: they were never searched by vector, so the guard judges them on their words
 * alone (no vector feature), which only asks more of them.
 */
export function historyStatements(
  query: string,
  messages: readonly MessageRecord[],
  currentId: string | null,
): RecalledMessage[] {
  const terms = indexTerms(query);
  return messages
    .filter((message) => message.role === 'user' && message.id !== currentId)
    .map((message) => ({
      messageId: message.id,
      sessionId: message.sessionId,
      role: 'user' as const,
      text: message.content,
      createdAt: message.createdAt,
      score: guardFeatures({ text: message.content, vectorScore: null }, terms, 0).matchedShare,
      tokens: 0,
    }))
    .filter((message) => message.score > 0);
}

/** What the guard says about the user's own earlier messages. */
export interface MemoryEvidence {
  /** The guard's decision on them. */
  readonly decision: GuardDecision;
  /** The statements that are evidence on their own, as sources, best recalled first. */
  readonly chunks: RetrievedChunk[];
}

/**
 * The guard's decision on the user's recalled messages and their statements in the recent
 * window (`inHistory`; the user's own statements only: an earlier answer is not evidence of
 * itself, and a question states nothing), judged as documents are: the adaptive model, or
 * `minSimilarity` when set. Null when there is no statement to judge.
 */
export function judgeMemory(
  query: string,
  recalled: readonly RecalledMessage[],
  cosineRange: readonly [number, number],
  minSimilarity: number | undefined,
  inHistory: readonly RecalledMessage[] = [],
): MemoryEvidence | null {
  const isStatement = (message: RecalledMessage) =>
    message.role === 'user' && !isQuestion(message.text);
  const statements = [
    ...recalled.filter(isStatement).map((message) => ({ message, lexical: false })),
    ...inHistory.filter(isStatement).map((message) => ({ message, lexical: true })),
  ];
  if (statements.length === 0) return null;
  // Each statement is judged alone: only those that are evidence themselves become sources.
  const judged = statements.map(({ message, lexical }) => {
    const chunk = memoryChunk(message, cosineRange, lexical);
    const decision = decideGuard({
      query,
      chunks: [chunk],
      topScore: chunk.score,
      indexSize: MEMORY_INDEX_SIZE,
      cosineRange,
      minSimilarity,
    });
    return { chunk, decision };
  });
  const best = judged.reduce((a, b) => (b.decision.evidence > a.decision.evidence ? b : a));
  const chunks = judged.filter((item) => !item.decision.guard).map((item) => item.chunk);
  return { decision: best.decision, chunks };
}
