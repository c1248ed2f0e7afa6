/**
 * A turn's grounding: the judge checks each cited sentence of the generated answer against
 * its sources (removing or blocking what they do not support, per policy) and reports it as
 * the `judge` and `guard` events and the `grounding` stream part.
 */
import type { Source } from '../../ports/chat-records.js';
import type { PromptSource } from '../../ports/llm-provider.js';
import type { EngineRuntime } from '../../runtime.js';
import { inSpan, type TraceScope } from '../../util/tracing.js';
import { checkAnswerShape } from '../answer-shape.js';
import { focusChunkTerms, focusText, weakFocus } from '../guard-focus.js';
import { judgeAnswer, type JudgePolicy, type JudgeResult } from '../judge.js';
import type { TurnContext, TurnState } from './state.js';

/**
 * The generated turn once judged (unchanged when the judge is off or there are no sources);
 * its text goes to the sink here when it was not streamed.
 */
export async function judgeGeneratedTurn(
  turnContext: TurnContext,
  generated: TurnState,
  sources: Source[],
  promptSources: readonly PromptSource[],
  guardEvidence: { readonly topScore: number; readonly minSimilarity: number },
): Promise<TurnState> {
  const { runtime, settings, signal, scope, turnSpan, turnId, sessionId, streaming, sink } =
    turnContext;
  const { config, events } = runtime;
  const { topScore, minSimilarity } = guardEvidence;
  // judge: check each cited sentence against its sources
  const policy = settings.judgePolicy ?? config.judge.policy;
  const judged =
    config.judge.mode === 'off' || sources.length === 0
      ? undefined
      : await judgeTurn(runtime, generated, policy, promptSources, signal, scope);
  const turn: TurnState = judged
    ? {
        ...generated,
        text: judged.blocked ? config.prompt.guard : judged.text,
        sources: judged.blocked ? [] : sources,
        guard: judged.blocked,
        ...(judged.blocked ? { refused: { by: 'judge', reason: 'unsupported' } as const } : {}),
        grounding: judged.grounding,
      }
    : generated;
  if (!streaming) sink({ type: 'text-delta', text: turn.text });
  const answerShape =
    turn.guard || sources.length === 0
      ? undefined
      : checkAnswerShape(turnContext.request.message, turn.outcome?.answer ?? turn.text);
  if (judged) {
    if (judged.blocked) {
      events.emit('guard', {
        turnId,
        sessionId,
        reason: 'judge',
        topScore,
        minSimilarity,
      });
      turnSpan?.setAttributes({ 'cortexis.guard.reason': 'judge' });
    }
    sink({
      type: 'grounding',
      grounding: judged.grounding,
      text: turn.text,
      removed: judged.removed,
      blocked: judged.blocked,
    });
  }
  if (!answerShape) return turn;
  // The sources as the guard read them: a chunk names its document and headings too.
  const focusMissing = weakFocus(
    turnContext.request.message,
    promptSources.map((source, index) =>
      focusText(sources[index]?.documentId ?? '', source.title, source.section, source.text),
    ),
    topScore,
    focusChunkTerms,
  );
  return { ...turn, answerShape: focusMissing ? { ...answerShape, focusMissing } : answerShape };
}

/** Runs the grounding judge on a generated answer and reports it. */
async function judgeTurn(
  runtime: EngineRuntime,
  turn: TurnState,
  policy: JudgePolicy,
  promptSources: readonly PromptSource[],
  signal: AbortSignal | undefined,
  scope: TraceScope | undefined,
): Promise<JudgeResult> {
  const { config, events } = runtime;
  const started = performance.now();
  const notes = turn.text.slice(turn.outcome?.answer.length ?? turn.text.length);
  const judged = await inSpan(scope, 'cortexis.judge', async (span) => {
    const result = await judgeAnswer({
      answer: turn.outcome?.answer ?? turn.text,
      sources: promptSources.map((source) => ({ id: source.label, text: source.text })),
      policy,
      threshold: config.judge.threshold,
      minSupportedRatio: config.judge.minSupportedRatio,
      llm: config.judge.mode === 'llm' ? runtime.llm : undefined,
      signal,
    });
    span?.setAttributes({
      'cortexis.judge.mode': config.judge.mode,
      'cortexis.judge.policy': policy,
      'cortexis.judge.claims': result.grounding.claims.length,
      'cortexis.judge.removed': result.removed.length,
      'cortexis.judge.blocked': result.blocked,
      'cortexis.grounding.supported_ratio': result.grounding.supportedRatio,
    });
    return result;
  });
  events.emit('judge', {
    turnId: turn.turnId,
    sessionId: turn.sessionId,
    grounding: judged.grounding,
    policy,
    removed: judged.removed.length,
    blocked: judged.blocked,
    durationMs: performance.now() - started,
  });
  return notes ? { ...judged, text: judged.text + notes } : judged;
}
