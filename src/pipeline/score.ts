import type {
  Confidence,
  ConfidenceCap,
  ConfidenceFactors,
  ConfidenceLevel,
} from '../ports/chat-records.js';
import { MISSING_TERM_TOP_SCORE } from './guard-focus.js';

/** Weights of the five confidence factors. */
export type ConfidenceWeights = Readonly<Record<keyof ConfidenceFactors, number>>;

/**
 * Seed 000's weights. Passing them (or any weights, e.g. `confidence.weights` in the config)
 * selects seed 000's weighted mean instead of the fitted model.
 */
export const DEFAULT_CONFIDENCE_WEIGHTS: ConfidenceWeights = {
  sourceQuality: 0.3,
  sourceDiversity: 0.2,
  semanticCohesion: 0.15,
  graphContext: 0.2,
  llmCertainty: 0.15,
};

/** Where the levels start: `medium` from `medium`, `high` from `high`. */
export interface ConfidenceLevels {
  /** Lowest `overall` rated `medium`. */
  readonly medium: number;
  /** Lowest `overall` rated `high`. */
  readonly high: number;
}

/** The design's bands: low < 0.4 ≤ medium < 0.7 ≤ high. */
export const DEFAULT_CONFIDENCE_LEVELS: ConfidenceLevels = { medium: 0.4, high: 0.7 };

/**
 * A fitted mapping from the factors to `overall`: σ(bias + Σ weight·factor + topScore·score of
 * the best source) through an isotonic `calibration`, a probability that the best source is
 * relevant and the answer states what it says. Every weight is ≥ 0 and the calibration never
 * decreases, so the score is monotone in each factor.
 */
export interface ConfidenceModel {
  /** Intercept. */
  readonly bias: number;
  /** Weight of each factor (a factor without signal counts 0.5) and of the best source's score. */
  readonly weights: Readonly<Record<keyof ConfidenceFactors | 'topScore', number>>;
  /** Level bands of `overall`. */
  readonly levels: ConfidenceLevels;
  /**
   * Isotonic calibration of the logistic probability, a non-decreasing step function: pairs
   * `[upTo, value]` with ascending `upTo` and non-decreasing `value`; a probability maps to
   * the `value` of the first pair whose `upTo` it does not exceed (above the last: the last
   * `value`). Omitted: `overall` is the logistic probability itself.
   */
  readonly calibration?: readonly (readonly [upTo: number, value: number])[] | undefined;
}

/** A probability through an isotonic step calibration (see `ConfidenceModel.calibration`). */
export function calibrate(
  probability: number,
  calibration: readonly (readonly [number, number])[],
): number {
  for (const [upTo, value] of calibration) if (probability <= upTo) return value;
  return calibration[calibration.length - 1]?.[1] ?? probability;
}

/**
 * Fitted by `node --import tsx bench/fit-confidence.ts` (logistic regression with non-negative
 * weights) on the tuning parts of the trust benchmark: SciFact train claims, the even docs
 * questions, the 1/3/10-page docs corpora and the 8-page e-bike handbook, each corpus weighing
 * the same, on the questions the adaptive guard answers. Only the model's certainty and the
 * best source's score are fitted; the other weights stay 0 (source diversity, fitted freely,
 * learns how many pages a corpus has). The calibration (pool adjacent violators on the same
 * answers) took SciFact test answers from ECE 0.110 to 0.062. See docs/concepts.md,
 * "Confidence".
 */
export const DEFAULT_CONFIDENCE_MODEL: ConfidenceModel = {
  bias: -3.35,
  weights: {
    sourceQuality: 0,
    sourceDiversity: 0,
    semanticCohesion: 0,
    graphContext: 0,
    llmCertainty: 0.915,
    topScore: 5.282,
  },
  // The design's bands; on the tuning part the top sources of `high` are relevant 98.2 %
  // (weighted by corpus).
  levels: { medium: 0.4, high: 0.7 },
  calibration: [
    [0.096, 0.02],
    [0.144, 0.042],
    [0.355, 0.303],
    [0.556, 0.34],
    [0.595, 0.446],
    [0.611, 0.471],
    [0.802, 0.664],
    [0.828, 0.768],
    [0.852, 0.868],
    [0.917, 0.98],
    [0.945, 0.98],
  ],
};

/** What the score is computed from. */
export interface ConfidenceInput {
  /** Each source's relevance in [0, 1] and its document. */
  readonly sources: readonly { readonly score: number; readonly documentId: string }[];
  /** Graph support in [0, 1], or undefined when no graph signal exists. */
  readonly graphSupport?: number | undefined;
  /** The model's certainty in [0, 1], or undefined when the provider gives none. */
  readonly llmCertainty?: number | undefined;
  /**
   * Share of the answer's cited claims the judge found supported, when it ran. Below 0.5 the
   * level is at most `medium`, whatever the other factors say.
   */
  readonly supportedRatio?: number | undefined;
  /**
   * What the answer lacks, when a check of it against the question found something
   * (`src/pipeline/answer-shape.ts`): `asked-for` (no command for a how-to, no value for a
   * default, …) keeps it below `high`; `restates` (it only repeats the question) makes it `low`.
   */
  readonly answerLacks?: 'asked-for' | 'restates' | undefined;
  /**
   * Whether a word the question is about occurs in none of the sources while the best of them
   * is weak (`src/pipeline/guard-focus.ts`, `weakFocus`): with a certainty below
   * `FOCUS_MISSING_CERTAINTY` or a best source below `MISSING_TERM_TOP_SCORE`
   * (`focusMissingRefuses`), the answer is about something else, and `low`.
   */
  readonly focusMissing?: boolean | undefined;
  /**
   * Whether a word the question is about (`focusTerms`) is in neither the answer nor the
   * document and headings of the sources it cites (`src/pipeline/answer-shape.ts`): the quote
   * may be about something near it, and is never `high`. Questions only (a claim to check is
   * left alone).
   */
  readonly answerLacksFocus?: boolean | undefined;
  /**
   * Whether the answer's first citation names a source below the top one
   * (`src/pipeline/answer-shape.ts`): what it leads with lies outside the chunk retrieval ranked
   * first, and it is never `high`.
   */
  readonly answerBelowTop?: boolean | undefined;
  /**
   * How close the model's runner-up answer came to the one it gave (`LLMResult.runnerUp`): at
   * `CLOSE_RUNNER_UP` or above the model nearly quoted something else, and the answer is never
   * `high`.
   */
  readonly runnerUp?: number | undefined;
}

/**
 * From this ratio of the extractive model's runner-up unit score to its lead's, an answer is
 * never `high`: the largest threshold that left no wrong `high` answer on the tune half of
 * `bench:docs` (docs/benchmarks.md, "signals11").
 */
export const CLOSE_RUNNER_UP = 0.8;

/**
 * Below this certainty of the model, an answer whose sources miss a focus word of the question
 * (`focusMissing`) is `low`. On the tune parts of `bench:docs` and `bench:trust`, such answers
 * were wrong at certainties 0.29–0.58 and right at 0.60–0.72 (paraphrased questions).
 */
export const FOCUS_MISSING_CERTAINTY = 0.6;

/**
 * Whether an answer whose sources miss a focus word of the question (`focusMissing`) is about
 * something else: the model is unsure of its quote (`FOCUS_MISSING_CERTAINTY`), or the best
 * source scores below the guard's own bound for missing words (`MISSING_TERM_TOP_SCORE`: there,
 * two such words refuse before generation). On the tune half of `bench:docs` the second bound
 * refused an unanswerable question at certainty 0.60 and no answerable one; `bench:trust`
 * did not move.
 */
export function focusMissingRefuses(certainty: number | undefined, topScore: number): boolean {
  return (certainty ?? 0) < FOCUS_MISSING_CERTAINTY || topScore < MISSING_TERM_TOP_SCORE;
}

/** Below this share of supported claims an answer is never `high`. */
export const MIN_SUPPORTED_FOR_HIGH = 0.5;

// Weights of the best, second and third source in the quality factor.
const QUALITY_WEIGHTS = [0.7, 0.2, 0.1] as const;

const clamp01 = (value: number): number =>
  Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;

/** Level of an overall score (default bands: low < 0.4 ≤ medium < 0.7 ≤ high). */
export function confidenceLevel(
  overall: number,
  levels: ConfidenceLevels = DEFAULT_CONFIDENCE_LEVELS,
): ConfidenceLevel {
  if (overall < levels.medium) return 'low';
  if (overall < levels.high) return 'medium';
  return 'high';
}

/**
 * Source quality: the best three scores, weighted 0.7 / 0.2 / 0.1 (a missing source counts 0).
 * Raising a score or adding a source never lowers it.
 */
export function sourceQuality(sortedScores: readonly number[]): number {
  return QUALITY_WEIGHTS.reduce((sum, weight, rank) => sum + weight * (sortedScores[rank] ?? 0), 0);
}

/** Source diversity (seed 000): 0.2 + 0.8·√(d/10) for d distinct documents, capped at 1; 0 without sources. */
export function sourceDiversity(distinctDocuments: number): number {
  if (distinctDocuments <= 0) return 0;
  return Math.min(1, 0.2 + 0.8 * Math.sqrt(distinctDocuments / 10));
}

/**
 * Cohesion: how strongly the other sources corroborate the best one,
 * 1 − Π(1 − sᵢ) over every source but the best. No corroboration (one source) gives 0.
 * Raising a score, adding a source, or bringing scores closer to the best raises it.
 */
export function semanticCohesion(sortedScores: readonly number[]): number {
  let missing = 1;
  for (let rank = 1; rank < sortedScores.length; rank++) missing *= 1 - sortedScores[rank]!;
  return 1 - missing;
}

/**
 * Confidence of an answer from its sources. The five factors of seed 000 (made monotonic) are
 * always reported. `overall` comes from the fitted `model` (default `DEFAULT_CONFIDENCE_MODEL`);
 * with `weights`, it is seed 000's weighted mean instead: a factor without signal (no graph
 * support, no model certainty) is left out and its weight spread over the others in
 * proportion. Either way, an answer whose cited claims are mostly unsupported
 * (`supportedRatio` < 0.5) is never `high`.
 */
export function scoreConfidence(
  input: ConfidenceInput,
  weights?: ConfidenceWeights | undefined,
  model: ConfidenceModel = DEFAULT_CONFIDENCE_MODEL,
): Confidence {
  const scores = input.sources.map((source) => clamp01(source.score)).sort((a, b) => b - a);
  const factors: ConfidenceFactors = {
    sourceQuality: sourceQuality(scores),
    sourceDiversity: sourceDiversity(new Set(input.sources.map((s) => s.documentId)).size),
    semanticCohesion: semanticCohesion(scores),
    graphContext: input.graphSupport === undefined ? null : clamp01(input.graphSupport),
    llmCertainty: input.llmCertainty === undefined ? null : clamp01(input.llmCertainty),
  };
  const names = Object.keys(DEFAULT_CONFIDENCE_WEIGHTS) as (keyof ConfidenceFactors)[];
  const factorWeights: ConfidenceWeights = weights ?? model.weights;
  const active = names.filter((name) => factors[name] !== null && factorWeights[name] > 0);
  const total = active.reduce((sum, name) => sum + factorWeights[name], 0);
  const applied = Object.fromEntries(
    names.map((name) => [
      name,
      active.includes(name) && total > 0 ? factorWeights[name] / total : 0,
    ]),
  ) as Record<keyof ConfidenceFactors, number>;
  const levels = weights === undefined ? model.levels : DEFAULT_CONFIDENCE_LEVELS;
  let overall = 0;
  let probability = 0;
  if (input.sources.length > 0) {
    if (weights !== undefined) {
      overall = clamp01(
        active.reduce((sum, name) => sum + applied[name] * (factors[name] ?? 0), 0),
      );
    } else {
      const z = names.reduce(
        (sum, name) => sum + model.weights[name] * (factors[name] ?? 0.5),
        model.bias + model.weights.topScore * (scores[0] ?? 0),
      );
      overall = probability = 1 / (1 + Math.exp(-z));
      if (model.calibration) overall = calibrate(overall, model.calibration);
    }
  }
  const round = (value: number): number => Math.round(value * 1000) / 1000;
  const { capped, cappedAt } = capConfidence(input, levels, (limit) => {
    const lowered = overall > limit;
    overall = Math.min(overall, limit);
    return lowered;
  });
  return {
    sourceQuality: round(factors.sourceQuality),
    sourceDiversity: round(factors.sourceDiversity),
    semanticCohesion: round(factors.semanticCohesion),
    graphContext: factors.graphContext === null ? null : round(factors.graphContext),
    llmCertainty: factors.llmCertainty === null ? null : round(factors.llmCertainty),
    overall: round(overall),
    level: confidenceLevel(round(overall), levels),
    ...(weights === undefined
      ? fittedBreakdown(model, scores[0] ?? 0, probability)
      : { weights: applied, mode: 'weighted' as const }),
    ...(capped ? { capped } : {}),
    cappedAt,
  };
}

/**
 * The caps every confidence mode applies, lowest last: mostly unsupported claims (the judge's
 * verdict) and an answer lacking what was asked are never `high`; one that only restates the
 * question, lacks a number the question writes, points at a text it does not quote, or whose
 * sources miss a word the question is about, is `low`. `lower(limit)` lowers `overall` to `limit` and says whether it was above.
 * `cappedAt` is the lowest cap that applies (`overall` = min(uncapped, cappedAt)); `capped`
 * names the caps that lowered it.
 */
export function capConfidence(
  input: Pick<
    ConfidenceInput,
    | 'sources'
    | 'supportedRatio'
    | 'answerLacks'
    | 'focusMissing'
    | 'llmCertainty'
    | 'answerLacksFocus'
    | 'answerBelowTop'
    | 'runnerUp'
  >,
  levels: ConfidenceLevels,
  lower: (limit: number) => boolean,
): { capped?: ConfidenceCap[]; cappedAt: number | null } {
  const capped: ConfidenceCap[] = [];
  let cappedAt: number | null = null;
  const cap = (limit: number, reason: ConfidenceCap): void => {
    if (lower(limit)) capped.push(reason);
    cappedAt = Math.min(cappedAt ?? 1, limit);
  };
  if (input.supportedRatio !== undefined && input.supportedRatio < MIN_SUPPORTED_FOR_HIGH) {
    cap(levels.high - 0.001, 'unsupported-claims');
  }
  const topScore = input.sources.reduce((best, source) => Math.max(best, source.score), 0);
  if (input.focusMissing && focusMissingRefuses(input.llmCertainty, topScore)) {
    cap(levels.medium - 0.001, 'question-focus-missing');
  }
  if (input.answerLacksFocus) cap(levels.high - 0.001, 'answer-lacks-focus');
  if (input.answerBelowTop) cap(levels.high - 0.001, 'answer-below-top-source');
  if ((input.runnerUp ?? 0) >= CLOSE_RUNNER_UP) cap(levels.high - 0.001, 'answer-close-runner-up');
  if (input.answerLacks === 'restates') cap(levels.medium - 0.001, 'answer-restates-question');
  else if (input.answerLacks === 'asked-for') {
    cap(levels.high - 0.001, 'answer-lacks-asked-for');
  }
  return { ...(capped.length > 0 ? { capped } : {}), cappedAt };
}

/** The breakdown of the fitted mode: the model's own terms, so `overall` can be recomputed. */
function fittedBreakdown(model: ConfidenceModel, topScore: number, probability: number) {
  const { topScore: topScoreWeight, ...weights } = model.weights;
  return {
    weights,
    mode: 'fitted' as const,
    fitted: {
      bias: model.bias,
      topScoreWeight,
      topScore,
      probability,
      calibration: model.calibration ?? null,
    },
  };
}
