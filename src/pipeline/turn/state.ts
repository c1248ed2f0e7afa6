/**
 * A turn's state as the orchestrator carries it from phase to phase: what every phase reads
 * (`TurnContext`, fixed once the session is known), the state between generation and the
 * response (`TurnState`), the one way to build the state of an answer the model never wrote
 * (quit word, small talk, guard), the confidence of a turn, and which stage refused it.
 */
import type * as z from 'zod/mini';
import type { SessionRecord, Source } from '../../ports/chat-records.js';
import type { TraceSpan } from '../../ports/tracer.js';
import type { EngineRuntime } from '../../runtime.js';
import { isRefusalText } from '../../text/refusal.js';
import type { ChatStreamPart, Refusal } from '../../types.js';
import type { TraceScope } from '../../util/tracing.js';
import type { chatRequestSchema } from '../../validate.js';
import type { AnswerShape } from '../answer-shape.js';
import type { generateAnswer } from '../generate.js';
import type { Grounding } from '../judge.js';
import type { RecalledMessage } from '../recall.js';
import type { RetrievedChunk } from '../retrieve.js';
import { confidenceInMode } from '../score/seed-000.js';

/** Receives stream parts as the turn produces them. */
export type PartSink = (part: ChatStreamPart) => void;

/** A chat request once parsed and redacted, its mode resolved. */
export type TurnRequest = Omit<z.output<ReturnType<typeof chatRequestSchema>>, 'mode'> & {
  readonly mode: 'chat' | 'query';
};

/** What every phase of a turn reads, fixed once its session is known. */
export interface TurnContext {
  /** The runtime, with the session's model when it chose one. */
  readonly runtime: EngineRuntime;
  readonly request: TurnRequest;
  /** The conversation; null for a stateless query. */
  readonly session: SessionRecord | null;
  /** The session's settings (none without a session). */
  readonly settings: SessionRecord['settings'];
  readonly turnId: string;
  readonly sessionId: string | null;
  readonly signal: AbortSignal | undefined;
  /** Whether the model is streamed, its text reaching `sink` as it is produced. */
  readonly streaming: boolean;
  readonly sink: PartSink;
  /** The stage spans' parent; undefined when tracing is off. */
  readonly scope: TraceScope | undefined;
  readonly turnSpan: TraceSpan | undefined;
  /** `performance.now()` when the turn started. */
  readonly started: number;
}

/** A turn's state between generation and the response. */
export interface TurnState {
  readonly turnId: string;
  readonly sessionId: string | null;
  readonly userMessageId: string | null;
  readonly text: string;
  readonly sources: Source[];
  readonly chunks: readonly RetrievedChunk[];
  readonly guard: boolean;
  readonly ended: boolean;
  readonly started: number;
  readonly retrievalMs: number;
  readonly generationMs: number;
  readonly outcome: Awaited<ReturnType<typeof generateAnswer>> | undefined;
  readonly degraded?: boolean;
  readonly grounding?: Grounding | null;
  /** Whether the answer holds what the question asks for (generated answers with sources). */
  readonly answerShape?: AnswerShape | undefined;
  /** Graph support of the sources in [0, 1], when graph rerank ran. */
  readonly graphSupport?: number | undefined;
  /** A small-talk reply (no learning step). */
  readonly smallTalk?: boolean | undefined;
  /** The route the turn took (`retrieval`, `relational`, …; `chat` without retrieval). */
  readonly route?: string | undefined;
  /** Earlier messages recalled into the prompt. */
  readonly recalled?: readonly RecalledMessage[] | undefined;
  /** The question's number in its session (null without a session). */
  readonly turnNumber?: number | null | undefined;
  /** A summary was written since the session's previous answer. */
  readonly historyCompacted?: boolean | undefined;
  /** The guard's or the judge's refusal; absent, `refusalOf` reads the model's own. */
  readonly refused?: Refusal | null | undefined;
}

/** The state of an answer the model did not write (quit word, small talk, guard): no sources. */
export function answerWithoutModel(
  ids: Pick<TurnState, 'turnId' | 'sessionId' | 'userMessageId' | 'started'>,
  text: string,
  details: Partial<
    Pick<
      TurnState,
      | 'guard'
      | 'refused'
      | 'ended'
      | 'retrievalMs'
      | 'smallTalk'
      | 'route'
      | 'turnNumber'
      | 'historyCompacted'
    >
  > = {},
): TurnState {
  return {
    ...ids,
    text,
    sources: [],
    chunks: [],
    guard: false,
    ended: false,
    retrievalMs: 0,
    generationMs: 0,
    outcome: undefined,
    ...details,
  };
}

/** The confidence of a turn's answer, from its sources, graph support and grounding. */
export function confidenceOf(runtime: EngineRuntime, turn: TurnState) {
  return confidenceInMode(runtime.config.confidence, {
    sources: turn.guard ? [] : turn.sources,
    graphSupport: turn.graphSupport,
    // Without a certainty from the model, the share of claims the sources support.
    llmCertainty: turn.outcome?.certainty ?? turn.grounding?.supportedRatio,
    // Mostly unsupported claims cap the level below high.
    supportedRatio: turn.grounding?.supportedRatio,
    answerLacks: turn.answerShape?.restates
      ? 'restates'
      : turn.answerShape && !turn.answerShape.holds
        ? 'asked-for'
        : undefined,
    focusMissing: turn.answerShape?.focusMissing,
    answerLacksFocus: (turn.answerShape?.lacksFocus.length ?? 0) > 0,
    answerBelowTop: turn.answerShape?.belowTop,
    runnerUp: turn.outcome?.runnerUp,
  });
}

/**
 * Which stage refused a turn's answer: the guard's or the judge's refusal as they set it, else
 * the model's own (marked by its provider, or a refusal it wrote: `isRefusalText` of its
 * answer), else null. A failed generation is no refusal.
 */
export function refusalOf(turn: TurnState): Refusal | null {
  if (turn.refused !== undefined) return turn.refused;
  const { outcome } = turn;
  if (outcome === undefined || outcome.error !== undefined) return null;
  return outcome.refused === true || isRefusalText(outcome.answer)
    ? { by: 'model', reason: 'no-answer' }
    : null;
}
