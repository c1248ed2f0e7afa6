/**
 * One chat turn, in the order of DESIGN §2: validate → session → persist the user message →
 * route → retrieve (guard) → remember → pack → generate → cite → score → persist → learn.
 * Every stage lives in its own file next to this one, and each phase's bookkeeping (spans,
 * events, stream parts) in `turn/`; this file only orchestrates them, top to bottom.
 */
import type { ChatResponse } from '../types.js';
import type { TraceSpan } from '../ports/tracer.js';
import type { EngineRuntime } from '../runtime.js';
import { ulid } from '../util/ids.js';
import { inSpan, traceScope } from '../util/tracing.js';
import { toTurnError } from './generate.js';
import { emitRecall, packTurn, recallTurn, rememberTurn } from './turn/context.js';
import { historyStatements } from './turn/memory-evidence.js';
import {
  finalResponse,
  finishTurn,
  PERSIST_ASSISTANT,
  replayTurn,
  storeAssistantMessage,
} from './turn/finish.js';
import { generateTurnAnswer } from './turn/generation.js';
import { judgeGeneratedTurn } from './turn/grounding.js';
import { answerWithGuard, decideTurnGuard } from './turn/guard-answer.js';
import { NO_POSITION, turnPosition } from './turn/position.js';
import { enforceRateLimit, parseTurnRequest } from './turn/request.js';
import { emitRetrieval, retrieveForTurn, routeTurn } from './turn/retrieval.js';
import { isQuitMessage, openSession, QUIT_ANSWER, withSessionModel } from './turn/session.js';
import { isSmallTalk, smallTalkReply } from './turn/small-talk.js';
import { toSources } from './turn/sources.js';
import {
  answerWithoutModel,
  type PartSink,
  type TurnContext,
  type TurnState,
} from './turn/state.js';
import { storeUserMessage } from './turn/user-message.js';

/**
 * Runs one turn. With `streaming`, the model is streamed and parts reach `sink` as they are
 * produced; otherwise one `generate` call. Resolves with the response; rejects with a
 * `CortexisError` (the user message stays stored, a partial answer is kept as `incomplete`).
 */
export async function runTurn(
  runtime: EngineRuntime,
  rawRequest: unknown,
  streaming: boolean,
  sink: PartSink,
  turnSpan?: TraceSpan,
): Promise<ChatResponse> {
  const { config, events, sessionStore } = runtime;
  const started = performance.now();
  const turnId = ulid();
  // Stage spans are children of the turn span; undefined (and free) when tracing is off.
  const scope = traceScope(runtime.tracer, turnSpan);
  turnSpan?.setAttributes({
    'cortexis.turn.id': turnId,
    'cortexis.streaming': streaming,
    'gen_ai.provider.name': runtime.llm.metadata.provider,
    'gen_ai.request.model': runtime.llm.metadata.model,
  });
  let sessionId: string | null = null;
  let partialMessageId: string | null = null;
  let signal: AbortSignal | undefined;
  try {
    const request = parseTurnRequest(config, rawRequest);
    signal = request.signal;

    // rate-limit, before anything is loaded or stored: one budget per user across all of
    // their conversations (new ones included), so rotating conversation ids gains nothing
    await enforceRateLimit(runtime, request, turnId, scope);

    // session (a stateless query naming none has nothing to load)
    const session = await openSession(runtime, request, scope);
    sessionId = session?.id ?? null;
    turnSpan?.setAttributes({
      'cortexis.mode': request.mode,
      'gen_ai.conversation.id': sessionId ?? undefined,
    });
    const settings = session?.settings ?? {};
    // A session that chose a model is answered (and summarised) by it.
    if (settings.model !== undefined) runtime = withSessionModel(runtime, settings.model);
    const turnContext: TurnContext = {
      runtime,
      request,
      session,
      settings,
      turnId,
      sessionId,
      signal,
      streaming,
      sink,
      scope,
      turnSpan,
      started,
    };

    if (session && isQuitMessage(request.message, config.quitWords)) {
      await runtime.endSession(session, 'quit');
      sink({ type: 'sources', sources: [] });
      sink({ type: 'text-delta', text: QUIT_ANSWER });
      turnSpan?.setAttributes({ 'cortexis.ended': true });
      return finalResponse(
        runtime,
        sink,
        answerWithoutModel({ turnId, sessionId, userMessageId: null, started }, QUIT_ANSWER, {
          ended: true,
        }),
        'complete',
        undefined,
        scope,
      );
    }

    // idempotency: a retried message returns the first answer instead of a second turn;
    // otherwise persist the user message first: no later failure can lose it
    const stored = await storeUserMessage(turnContext);
    if (stored.replay) return replayTurn(runtime, sink, stored.replay, true);
    const { userMessage } = stored;
    // seed 001: the question's number in the session, and whether its history was compacted
    const position = session
      ? await turnPosition(sessionStore, session.id, userMessage?.id ?? null, signal)
      : NO_POSITION;
    events.emit('turn.started', { turnId, sessionId, userMessageId: userMessage?.id ?? null });

    // small talk: greetings and thanks need no retrieval and never hit guard mode
    if (config.smallTalk && isSmallTalk(request.message)) {
      events.emit('route', {
        turnId,
        sessionId,
        route: 'small-talk',
        confidence: 1,
        k: 0,
        strategy: null,
      });
      sink({ type: 'route', route: 'small-talk', k: 0 });
      turnSpan?.setAttributes({ 'cortexis.route': 'small-talk', 'cortexis.retrieval.k': 0 });
      const text = smallTalkReply(request.message);
      sink({ type: 'sources', sources: [] });
      sink({ type: 'text-delta', text });
      return await finishTurn(
        runtime,
        sink,
        session,
        userMessage,
        answerWithoutModel(
          { turnId, sessionId, userMessageId: userMessage?.id ?? null, started },
          text,
          { smallTalk: true, ...position },
        ),
        scope,
      );
    }

    // remember: the summary and the uncovered recent turns, as the model will see them
    const remembered = await rememberTurn(turnContext, userMessage);

    // route: the intent's retrieval strategy
    const plan = await routeTurn(turnContext);

    // rewrite a follow-up into a standalone query, then retrieve; a failure degrades to a
    // turn without context
    const found = await retrieveForTurn(turnContext, plan, remembered.history);
    const { retrieval } = found;

    // recall the same user's earlier messages before the guard: they are evidence too
    const recall = await recallTurn(turnContext, userMessage, remembered, found.rewrite);

    // guard: too little evidence (documents, then the user's own statements) is answered
    // with the guard text, not by the model
    const { decision, minSimilarity, memory, memoryOnly } = await decideTurnGuard(
      turnContext,
      found,
      recall.recalled,
      session
        ? historyStatements(
            found.rewrite.query,
            remembered.context.messages,
            userMessage?.id ?? null,
          )
        : [],
    );
    if (decision?.guard && retrieval) {
      emitRecall(turnContext, found.rewrite, recall, []);
      return await answerWithGuard(turnContext, {
        userMessage,
        position,
        found,
        retrieval,
        decision,
        minSimilarity,
        route: plan?.route ?? 'chat',
      });
    }

    // pack everything under one budget; the user's statements that answer the question are
    // its sources: alone when the documents are not evidence enough, else before them
    const evidence =
      memory && retrieval
        ? memoryOnly
          ? { ...retrieval, chunks: memory, topScore: memory[0]!.score }
          : { ...retrieval, chunks: [...memory, ...retrieval.chunks] }
        : retrieval;
    const asSources = new Set(memory?.map((chunk) => chunk.chunkId));
    const packing = packTurn(turnContext, remembered, found.rewrite, evidence, recall, asSources);
    const { packed } = packing;
    const sources = toSources(packed.chunks);
    emitRetrieval(turnContext, found, packed.droppedChunks);
    sink({ type: 'sources', sources });

    // generate + cite
    const { outcome, generationMs, breakerOpen, promptSources } = await generateTurnAnswer(
      turnContext,
      packing,
      remembered.profile,
      found.rewrite,
      sources,
    );
    const generated: TurnState = {
      route: plan?.route ?? 'chat',
      recalled: packing.recalled,
      turnId,
      sessionId,
      userMessageId: userMessage?.id ?? null,
      text: outcome.text,
      sources,
      chunks: packed.chunks,
      guard: false,
      ended: false,
      started,
      retrievalMs: found.retrievalMs,
      generationMs,
      outcome,
      degraded: found.retrievalError !== undefined || breakerOpen,
      graphSupport: retrieval?.graphSupport,
      ...position,
    };
    if (outcome.error) {
      if (session && userMessage && outcome.text.length > 0) {
        const partial = generated;
        await inSpan(
          scope,
          'cortexis.persist',
          () => storeAssistantMessage(runtime, session, partial, 'incomplete'),
          PERSIST_ASSISTANT,
        );
        partialMessageId = generated.turnId;
      }
      throw outcome.error;
    }

    // judge: check each cited sentence against its sources
    const turn = await judgeGeneratedTurn(turnContext, generated, sources, promptSources, {
      topScore: evidence?.topScore ?? 0,
      minSimilarity,
      adaptive: decision?.adaptive === true && !memoryOnly,
    });

    // score → persist → learn (compaction after the turn), then the response
    return await finishTurn(runtime, sink, session, userMessage, turn, scope);
  } catch (error) {
    const failure = toTurnError(error, signal);
    events.emit('turn.failed', { turnId, sessionId, error: failure });
    sink({
      type: 'error',
      error: { code: failure.code, message: failure.message, retryable: failure.retryable },
      partialMessageId,
    });
    throw failure;
  }
}
