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
import { focusChunkTerms, focusText, mayBeWeakFocus, weakFocus } from '../guard-focus.js';
import { judgeAnswer, type JudgePolicy, type JudgeResult } from '../judge.js';
import { citedLabels } from '../judge/claims.js';
import { focusMissingRefuses } from '../score.js';
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
  guardEvidence: {
    readonly topScore: number;
    readonly minSimilarity: number;
    /** Whether the adaptive guard decided (a fixed `minSimilarity` is left as the user set it). */
    readonly adaptive: boolean;
  },
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
  const answerShape =
    turn.guard || sources.length === 0
      ? undefined
      : checkAnswerShape(
          turnContext.request.message,
          turn.outcome?.answer ?? turn.text,
          citedHeadings(turn.text, sources, promptSources),
          promptSources[0]?.label,
        );
  // The sources as the guard read them: a chunk names its document and headings too (built
  // only when a word can be missing: a question with a weak best source).
  const missing =
    answerShape && mayBeWeakFocus(turnContext.request.message, topScore)
      ? weakFocus(
          turnContext.request.message,
          promptSources.map((source, index) =>
            focusText(sources[index]?.documentId ?? '', source.title, source.section, source.text),
          ),
          topScore,
          focusChunkTerms,
        )
      : [];
  // A word the question is about in no source, a weak best source (`weakFocus`) and either a
  // model unsure of its quote or a best source as weak as the guard's own bound for missing
  // words: the answer is about something else. It is kept, said plainly, and refused.
  const certainty = turn.outcome?.certainty ?? turn.grounding?.supportedRatio ?? 0;
  const refusesFocus =
    guardEvidence.adaptive &&
    missing.length > 0 &&
    turn.refused === undefined &&
    focusMissingRefuses(certainty, topScore);
  const note = refusesFocus ? missingFocusNote(missing) : '';
  if (!streaming) sink({ type: 'text-delta', text: turn.text + note });
  else if (note) sink({ type: 'text-delta', text: note });
  if (note) {
    events.emit('guard', { turnId, sessionId, reason: 'missing-focus', topScore, minSimilarity });
    turnSpan?.setAttributes({ 'cortexis.guard.reason': 'missing-focus' });
  }
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
      text: turn.text + note,
      removed: judged.removed,
      blocked: judged.blocked,
    });
  }
  if (!answerShape) return turn;
  if (missing.length === 0) return { ...turn, answerShape };
  return {
    ...turn,
    answerShape: { ...answerShape, focusMissing: true },
    ...(refusesFocus
      ? { text: turn.text + note, refused: { by: 'guard', reason: 'missing-focus' } as const }
      : {}),
  };
}

/** The document ids, titles and heading paths of the sources an answer cites. */
function citedHeadings(
  text: string,
  sources: readonly Source[],
  promptSources: readonly PromptSource[],
): string {
  const cited = new Set(citedLabels(text));
  return promptSources
    .flatMap((source, index) =>
      cited.has(source.label)
        ? [focusText(sources[index]?.documentId ?? '', source.title, source.section, '')]
        : [],
    )
    .join('\n');
}

/** What a refused answer adds: the question's words that no source mentions. */
function missingFocusNote(words: readonly string[]): string {
  const quoted = words.map((word) => `“${word}”`).join(', ');
  return `\n\nThe sources do not mention ${quoted}: they do not answer this question.`;
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
