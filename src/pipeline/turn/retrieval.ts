/**
 * A turn's retrieval: route (the intent's retrieval strategy), rewrite a follow-up into a
 * standalone query, retrieve, and the `retrieval` event. A failed retrieval degrades the turn
 * to one without context.
 */
import { AbortError } from '../../errors/index.js';
import type { LLMMessage } from '../../ports/llm-provider.js';
import type { EngineRuntime } from '../../runtime.js';
import {
  inSpan,
  retrievalAttributes,
  retrievalSpanName,
  retrievalSpanOptions,
} from '../../util/tracing.js';
import { retrieve, type RetrievalResult } from '../retrieve.js';
import { rewriteQuery, type RewriteResult } from '../rewrite.js';
import { planRetrieval, retrievalOptions, type RetrievalPlan } from '../route.js';
import type { TurnContext } from './state.js';

/** What a turn's retrieval found (no result without a plan, or when it failed). */
export interface TurnRetrieval {
  readonly rewrite: RewriteResult;
  readonly retrieval: RetrievalResult | null;
  /** Why retrieval failed; undefined when it did not. */
  readonly retrievalError: unknown;
  readonly retrievalMs: number;
}

/** The turn's retrieval plan (none when the session turned retrieval off); the `route` event. */
export async function routeTurn(turnContext: TurnContext): Promise<RetrievalPlan | undefined> {
  const { runtime, request, settings, signal, scope, turnId, sessionId, sink, turnSpan } =
    turnContext;
  const { events } = runtime;
  const useRetrieval = settings.rag ?? true;
  const plan = useRetrieval
    ? await inSpan(scope, 'cortexis.route', async (span) => {
        const planned = await planRetrieval(runtime, request.message, {
          topK: request.topK,
          sessionTopK: settings.topK,
          searchDepth: request.searchDepth ?? settings.searchDepth,
          enableGNN: request.enableGNN ?? settings.enableGNN,
          enableGraphTraversal: request.enableGraphTraversal ?? settings.enableGraphTraversal,
          signal,
        });
        span?.setAttributes({
          'cortexis.route': planned.route,
          'cortexis.route.confidence': planned.confidence,
          'cortexis.retrieval.k': planned.k,
        });
        return planned;
      })
    : undefined;
  const k = plan?.k ?? 0;
  events.emit('route', {
    turnId,
    sessionId,
    route: plan?.route ?? 'chat',
    confidence: plan?.confidence ?? 1,
    k,
    strategy: plan?.strategy ?? null,
  });
  sink({ type: 'route', route: plan?.route ?? 'chat', k });
  turnSpan?.setAttributes({ 'cortexis.route': plan?.route ?? 'chat', 'cortexis.retrieval.k': k });
  return plan;
}

/** rewrite a follow-up into a standalone query, then retrieve (when there is a plan). */
export async function retrieveForTurn(
  turnContext: TurnContext,
  plan: RetrievalPlan | undefined,
  history: readonly LLMMessage[],
): Promise<TurnRetrieval> {
  const { runtime, request, settings, signal, scope, turnSpan } = turnContext;
  const { config } = runtime;
  const k = plan?.k ?? 0;
  const retrievalStarted = performance.now();
  const rewrite: RewriteResult =
    plan && config.rewrite.enabled
      ? await inSpan(scope, 'cortexis.rewrite', async (span) => {
          const rewritten = await rewriteQuery({
            message: request.message,
            history: history.slice(-config.rewrite.historyMessages),
            llm: usesLLMRewrite(runtime) ? runtime.llm : undefined,
            maxQueryLength: config.rewrite.maxQueryLength,
            signal,
          });
          span?.setAttributes({
            'cortexis.rewrite.rewritten': rewritten.rewritten,
            'cortexis.rewrite.method': rewritten.method,
          });
          return rewritten;
        })
      : { query: request.message, rewritten: false, method: 'none' };
  let retrieval: RetrievalResult | null = null;
  let retrievalError: unknown;
  if (plan) {
    try {
      retrieval = await inSpan(
        scope,
        scope ? retrievalSpanName(config.namespace) : '',
        async (span) => {
          const result = await retrieve(rewrite.query, runtime, {
            // The turn's user sees their own corrections, never another user's private ones.
            viewer: turnContext.session?.userId ?? request.userId,
            ...retrievalOptions(runtime, {
              k,
              maxK: plan.maxK,
              strategy: plan.strategy,
              filter: request.filter,
              threshold: settings.threshold,
              signal,
            }),
          });
          span?.setAttributes(
            retrievalAttributes(result, runtime.tracer?.recordContent ? rewrite.query : undefined),
          );
          return result;
        },
        () => retrievalSpanOptions(config.namespace, k),
      );
    } catch (error) {
      if (signal?.aborted) throw new AbortError('The turn was aborted', { cause: error });
      retrievalError = error;
    }
  }
  const retrievalMs = performance.now() - retrievalStarted;
  if (retrieval) {
    turnSpan?.setAttributes({
      'cortexis.retrieval.top_score': retrieval.topScore,
      'cortexis.retrieval.cache_hit': retrieval.cacheHit,
    });
  } else if (retrievalError !== undefined) {
    turnSpan?.setAttributes({ 'cortexis.retrieval.failed': true });
  }
  return { rewrite, retrieval, retrievalError, retrievalMs };
}

/** The `retrieval` event of what a turn retrieved, or of its failed retrieval. */
export function emitRetrieval(
  turnContext: TurnContext,
  found: TurnRetrieval,
  droppedForBudget: number,
): void {
  const { events } = turnContext.runtime;
  const { turnId, sessionId } = turnContext;
  const { rewrite, retrieval, retrievalError, retrievalMs } = found;
  if (retrieval) {
    events.emit(
      'retrieval',
      retrievalEvent(turnId, sessionId, rewrite, retrieval, droppedForBudget, retrievalMs),
    );
  } else if (retrievalError !== undefined) {
    events.emit('retrieval', {
      turnId,
      sessionId,
      query: rewrite.query,
      rewritten: rewrite.rewritten,
      rewriteMethod: rewrite.method,
      ids: [],
      scores: [],
      topScore: 0,
      cacheHit: false,
      searchCacheHit: false,
      widened: false,
      droppedForBudget: 0,
      durationMs: retrievalMs,
      error: retrievalError instanceof Error ? retrievalError.message : String(retrievalError),
    });
  }
}

function retrievalEvent(
  turnId: string | null,
  sessionId: string | null,
  rewrite: RewriteResult,
  retrieval: RetrievalResult,
  droppedForBudget: number,
  durationMs: number,
) {
  return {
    turnId,
    sessionId,
    query: rewrite.query,
    rewritten: rewrite.rewritten,
    rewriteMethod: rewrite.method,
    ids: retrieval.chunks.map((chunk) => chunk.chunkId),
    scores: retrieval.chunks.map((chunk) => chunk.score),
    topScore: retrieval.topScore,
    cacheHit: retrieval.cacheHit,
    searchCacheHit: retrieval.searchCacheHit,
    widened: retrieval.widened,
    droppedForBudget,
    durationMs,
  };
}

/** Whether follow-ups are condensed by the model (a real one; the extractive model can't). */
function usesLLMRewrite(runtime: EngineRuntime): boolean {
  const mode = runtime.config.rewrite.llm;
  return (
    mode === 'always' || (mode === 'auto' && runtime.llm.metadata.followsInstructions !== false)
  );
}
