/**
 * The end of a turn: score → persist → learn (and compaction scheduled after the turn), then
 * the response with its closing events and stream parts. Also the replay of an answer stored
 * earlier (an idempotent retry) and the write of the assistant's message.
 */
import { ConflictError } from '../../errors/index.js';
import type { EngineEmitter } from '../../events.js';
import type { Confidence, MessageRecord, SessionRecord } from '../../ports/chat-records.js';
import type { EngineRuntime } from '../../runtime.js';
import type { ChatResponse } from '../../types.js';
import { isoNow } from '../../util/ids.js';
import { inSpan, inSpanSync, type StageOptions, type TraceScope } from '../../util/tracing.js';
import { compactSession } from '../compact.js';
import { recordLearningStep } from '../learn.js';
import {
  findPreviousTurn,
  refusalMetadata,
  replayResponse,
  type AnsweredTurn,
} from './idempotency.js';
import { turnNumberOf } from './position.js';
import { confidenceOf, refusalOf, type PartSink, type TurnState } from './state.js';

/** Span options of the write of a turn's answer. */
export const PERSIST_ASSISTANT: StageOptions = {
  attributes: { 'cortexis.stage': 'persist', 'cortexis.message.role': 'assistant' },
};

/** Runs a side step that must never fail the turn; failures become `error` events. */
async function sideStep(
  events: EngineEmitter,
  where: string,
  step: () => Promise<void>,
): Promise<void> {
  try {
    await step();
  } catch (error) {
    events.emit('error', { where, error });
  }
}

/**
 * Stores the assistant's message of a turn (one write, with the session totals) and indexes it
 * for recall.
 */
export async function storeAssistantMessage(
  runtime: EngineRuntime,
  session: SessionRecord,
  turn: TurnState,
  status: MessageRecord['status'],
  confidence: Confidence = confidenceOf(runtime, turn),
): Promise<MessageRecord> {
  const message: MessageRecord = {
    id: turn.turnId,
    sessionId: session.id,
    userId: session.userId,
    role: 'assistant',
    content: turn.text,
    status,
    createdAt: isoNow(),
    sources: turn.sources,
    confidence,
    timings: {
      retrievalMs: turn.retrievalMs,
      generationMs: turn.generationMs,
      totalMs: performance.now() - turn.started,
    },
    guard: turn.guard,
    metadata: refusalMetadata(refusalOf(turn)),
    replyTo: turn.userMessageId,
  };
  // One write: the message, its sources and the session totals.
  await runtime.sessionStore.appendMessages(session.id, [message], {
    searchMs: turn.retrievalMs,
    generationMs: turn.generationMs,
  });
  runtime.recall.index([message]);
  return message;
}

/**
 * Answers with a turn stored earlier (an idempotent retry, or the winner of a race between
 * engines). `withText` sends its sources and text first; without it only `done` (the loser of
 * the race for the answer has streamed its own draft already).
 */
export async function replayTurn(
  runtime: EngineRuntime,
  sink: PartSink,
  previous: AnsweredTurn,
  withText: boolean,
): Promise<ChatResponse> {
  const response = replayResponse(previous, {
    model: runtime.llm.metadata.model,
    confidenceWeights: runtime.config.confidence.weights,
    turnNumber: await turnNumberOf(runtime.sessionStore, previous.userMessage),
  });
  if (withText) {
    sink({ type: 'sources', sources: response.sources });
    sink({ type: 'text-delta', text: response.text });
  }
  sink({ type: 'done', response });
  return response;
}

/** cite → score → persist → learn, then the response. */
export async function finishTurn(
  runtime: EngineRuntime,
  sink: PartSink,
  session: SessionRecord | null,
  userMessage: MessageRecord | null,
  turn: TurnState,
  scope: TraceScope | undefined,
): Promise<ChatResponse> {
  const status = turn.degraded ? 'degraded' : 'complete';
  const confidence = inSpanSync(scope, 'cortexis.score', (span) => {
    const scored = confidenceOf(runtime, turn);
    span?.setAttributes({
      'cortexis.confidence.level': scored.level,
      'cortexis.confidence.value': scored.overall,
    });
    return scored;
  });
  if (session) {
    let message: MessageRecord;
    try {
      message = await inSpan(
        scope,
        'cortexis.persist',
        () => storeAssistantMessage(runtime, session, turn, status, confidence),
        PERSIST_ASSISTANT,
      );
    } catch (error) {
      // Another engine answered this idempotent message first: the stored answer is the answer.
      const requestId = userMessage?.requestId;
      if (!ConflictError.isInstance(error) || requestId == null) throw error;
      const previous = await findPreviousTurn(runtime.sessionStore, {
        sessionId: session.id,
        requestId,
      });
      if (previous.status !== 'answered') throw error;
      scope?.parent.setAttributes({ 'cortexis.replayed': true });
      return replayTurn(runtime, sink, previous, false);
    }
    // Small talk is no retrieval attempt to learn from.
    if (!turn.smallTalk) {
      await sideStep(runtime.events, 'learn', () =>
        inSpan(scope, 'cortexis.learn', () =>
          recordLearningStep(runtime, session, userMessage?.content ?? '', message, turn.route),
        ),
      );
    }
    // Off the reply path: runs after this turn, before the session's next one.
    runtime.afterTurn(session.id, () =>
      sideStep(runtime.events, 'compact', () => compactSession(runtime, session, turn.turnId)),
    );
  }
  return finalResponse(runtime, sink, turn, status, confidence, scope);
}

/** The response of a turn: its closing events and stream parts, then `done`. */
export function finalResponse(
  runtime: EngineRuntime,
  sink: PartSink,
  turn: TurnState,
  status: MessageRecord['status'] = 'complete',
  confidence: Confidence = confidenceOf(runtime, turn),
  scope?: TraceScope,
): ChatResponse {
  const { events } = runtime;
  const citations = turn.outcome?.citations ?? { generatedIds: [], validIds: [], removed: [] };
  if (!turn.ended) {
    events.emit('citations', { turnId: turn.turnId, sessionId: turn.sessionId, ...citations });
    events.emit('confidence', { turnId: turn.turnId, sessionId: turn.sessionId, confidence });
    sink({ type: 'citations', ...citations });
    sink({ type: 'confidence', confidence });
  }
  const totalMs = performance.now() - turn.started;
  const response: ChatResponse = {
    messageId: turn.turnId,
    userMessageId: turn.userMessageId,
    sessionId: turn.sessionId,
    text: turn.text,
    sources: turn.sources,
    confidence,
    citations,
    guard: turn.guard,
    refused: refusalOf(turn),
    grounding: turn.grounding ?? null,
    status,
    ended: turn.ended,
    timings: { retrievalMs: turn.retrievalMs, generationMs: turn.generationMs, totalMs },
    usage: turn.outcome?.usage ?? null,
    model: runtime.llm.metadata.model,
    turnNumber: turn.turnNumber ?? null,
    historyCompacted: turn.historyCompacted ?? false,
    recalled: (turn.recalled ?? []).map((message) => ({
      messageId: message.messageId,
      sessionId: message.sessionId,
      role: message.role,
      score: message.score,
      createdAt: message.createdAt,
    })),
    createdAt: isoNow(),
  };
  scope?.parent.setAttributes({
    'cortexis.status': status,
    'cortexis.source.count': turn.sources.length,
    'cortexis.guard': turn.guard,
    'cortexis.confidence.level': confidence.level,
    'cortexis.confidence.value': confidence.overall,
    'cortexis.grounding.supported_ratio': turn.grounding?.supportedRatio,
    'cortexis.citations.removed': citations.removed.length,
  });
  events.emit('metrics', {
    turnId: turn.turnId,
    sessionId: turn.sessionId,
    phase: 'turn',
    ms: totalMs,
  });
  events.emit('turn.completed', {
    turnId: turn.turnId,
    sessionId: turn.sessionId,
    sources: turn.sources,
    guard: turn.guard,
    durationMs: totalMs,
  });
  sink({ type: 'done', response });
  return response;
}
