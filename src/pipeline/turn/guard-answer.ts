/**
 * A turn's guard: whether what was retrieved is evidence enough to answer from (a fixed
 * `minSimilarity` when the user set one, else the index-adaptive model), and the guard's
 * answer when it is not.
 */
import type { MessageRecord } from '../../ports/chat-records.js';
import type { ChatResponse } from '../../types.js';
import { inSpan } from '../../util/tracing.js';
import { asks, focusChunkTerms, focusRefuses, focusText } from '../guard-focus.js';
import { decideGuard, DEFAULT_GUARD_MODEL, type GuardDecision } from '../guard.js';
import type { RecalledMessage } from '../recall.js';
import { DEFAULT_COSINE_RANGE } from '../retrieve/relevance.js';
import type { RetrievalResult } from '../retrieve.js';
import { finishTurn } from './finish.js';
import { judgeMemory } from './memory-evidence.js';
import type { TurnPosition } from './position.js';
import { emitRetrieval, type TurnRetrieval } from './retrieval.js';
import { answerWithoutModel, type TurnContext } from './state.js';

/**
 * The guard's decision on a turn's retrieval (null without one) and the similarity it used.
 * The user's recalled statements are judged the same way (seed 004), together with the
 * documents: when they are evidence enough, `memory` holds them as sources, and `memoryOnly`
 * says whether they replace the documents (which were not evidence enough) or come before them
 * (they are stronger evidence than the documents).
 */
export async function decideTurnGuard(
  turnContext: TurnContext,
  found: TurnRetrieval,
  recalled: readonly RecalledMessage[] = [],
  inHistory: readonly RecalledMessage[] = [],
) {
  const { runtime, settings, signal, scope } = turnContext;
  const { config } = runtime;
  const { rewrite, retrieval } = found;
  // guard: a fixed minSimilarity when the user set one, else the index-adaptive model
  const fixedMinSimilarity = settings.minSimilarity ?? config.retrieval.minSimilarity;
  const candidates = retrieval;
  const decisions =
    candidates === null
      ? null
      : await inSpan(scope, 'cortexis.guard', async (span) => {
          const input = {
            query: rewrite.query,
            chunks: candidates.chunks,
            topScore: candidates.topScore,
            // Index size for the adaptive guard; a failing count must not fail the turn.
            indexSize:
              fixedMinSimilarity === undefined && candidates.chunks.length > 0
                ? await runtime.keywordIndex
                    .count(config.namespace, { signal })
                    .catch((error: unknown) => {
                      if (signal?.aborted) throw error;
                      return 0;
                    })
                : 0,
            cosineRange: config.retrieval.cosineRange ?? runtime.embedder.similarityRange,
            minSimilarity: fixedMinSimilarity,
          };
          // The best chunk's probability only where it is read (a recorded span, a refusal, the
          // recalled statements' comparison): else the first chunk reaching the cut decides.
          const first = decideGuard({ ...input, bestEvidence: span !== undefined });
          let exact: GuardDecision | undefined =
            span !== undefined || first.guard ? first : undefined;
          const best = () => (exact ??= decideGuard(input));
          const focused = focusDecision(turnContext.request.message, candidates, first, best);
          span?.setAttributes({
            'cortexis.guard': focused.guard,
            'cortexis.guard.reason': focused.reason ?? undefined,
            'cortexis.guard.evidence': focused.evidence,
            'cortexis.guard.threshold': focused.threshold,
            'cortexis.guard.adaptive': focused.adaptive,
          });
          return { decided: first, focused, best };
        });
  // The user's own statements are judged against the guard's decision on the documents; the
  // focus check refuses only when no statement answers instead.
  const decision = decisions?.focused ?? null;
  const minSimilarity = decision?.threshold ?? fixedMinSimilarity ?? DEFAULT_GUARD_MODEL.cut;
  if (decisions) {
    const { decided, best } = decisions;
    const cosineRange =
      config.retrieval.cosineRange ?? runtime.embedder.similarityRange ?? DEFAULT_COSINE_RANGE;
    const memory = judgeMemory(rewrite.query, recalled, cosineRange, fixedMinSimilarity, inHistory);
    if (memory && !memory.decision.guard) {
      if (decided.guard) {
        return {
          decision: memory.decision,
          minSimilarity,
          memory: memory.chunks,
          memoryOnly: true,
        };
      }
      if (memory.decision.evidence > best().evidence) {
        return { decision: best(), minSimilarity, memory: memory.chunks, memoryOnly: false };
      }
    }
  }
  return { decision, minSimilarity, memory: undefined, memoryOnly: false };
}

/**
 * The adaptive guard's decision, refusing also when the question's focus is missing from every
 * retrieved chunk (`src/pipeline/guard-focus.ts`); a refusal reports `best()`, the decision
 * with the best chunk's probability. A fixed `minSimilarity` is the user's own guard and is
 * left as it decided.
 */
function focusDecision(
  question: string,
  retrieval: RetrievalResult,
  decided: GuardDecision,
  best: () => GuardDecision,
): GuardDecision {
  // A text that does not ask (a claim to check) is never refused for its focus.
  if (decided.guard || !decided.adaptive || !asks(question)) return decided;
  const refuse = focusRefuses(
    question,
    retrieval.chunks.map((chunk) =>
      focusText(chunk.documentId, chunk.title, sectionOf(chunk.metadata), chunk.text),
    ),
    retrieval.topScore,
    focusChunkTerms,
  );
  return refuse ? { ...best(), guard: true, reason: 'missing-focus' } : decided;
}

/** A chunk's heading path (`metadata.section`), or ''. */
function sectionOf(metadata: Readonly<Record<string, unknown>>): string {
  const section = metadata['section'];
  return typeof section === 'string' ? section : '';
}

/** A turn the guard answers: what was retrieved, and why it is not evidence enough. */
export interface GuardedTurn {
  readonly userMessage: MessageRecord | null;
  readonly position: TurnPosition;
  readonly found: TurnRetrieval;
  readonly retrieval: RetrievalResult;
  readonly decision: GuardDecision;
  readonly minSimilarity: number;
  /** The route the turn took. */
  readonly route: string;
}

/** The guard's answer: no sources, the configured guard text, then the end of the turn. */
export async function answerWithGuard(
  turnContext: TurnContext,
  guarded: GuardedTurn,
): Promise<ChatResponse> {
  const { runtime, session, sink, scope, turnSpan, turnId, sessionId, started } = turnContext;
  const { config, events } = runtime;
  const { userMessage, position, found, retrieval, decision, minSimilarity, route } = guarded;
  const { retrievalMs } = found;
  emitRetrieval(turnContext, found, 0);
  events.emit('guard', {
    turnId,
    sessionId,
    reason: decision.reason ?? 'low-similarity',
    topScore: retrieval.topScore,
    minSimilarity,
    evidence: decision.evidence,
    adaptive: decision.adaptive,
  });
  sink({ type: 'sources', sources: [] });
  sink({ type: 'text-delta', text: config.prompt.guard });
  turnSpan?.setAttributes({ 'cortexis.guard.reason': decision.reason ?? 'low-similarity' });
  return await finishTurn(
    runtime,
    sink,
    session,
    userMessage,
    answerWithoutModel(
      { turnId, sessionId, userMessageId: userMessage?.id ?? null, started },
      config.prompt.guard,
      {
        guard: true,
        refused: { by: 'guard', reason: decision.reason ?? 'low-similarity' },
        retrievalMs,
        route,
        ...position,
      },
    ),
    scope,
  );
}
