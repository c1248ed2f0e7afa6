import type { Confidence, ConfidenceFactors, ConfidenceLevel } from '../ports/chat-records.js';

/** Weights of the five confidence factors. */
export type ConfidenceWeights = Readonly<Record<keyof ConfidenceFactors, number>>;

/** Seed 000's weights. */
export const DEFAULT_CONFIDENCE_WEIGHTS: ConfidenceWeights = {
  sourceQuality: 0.3,
  sourceDiversity: 0.2,
  semanticCohesion: 0.15,
  graphContext: 0.2,
  llmCertainty: 0.15,
};

/** What the score is computed from. */
export interface ConfidenceInput {
  /** Each source's relevance in [0, 1] and its document. */
  readonly sources: readonly { readonly score: number; readonly documentId: string }[];
  /** Graph support in [0, 1], or undefined when no graph signal exists. */
  readonly graphSupport?: number | undefined;
  /** The model's certainty in [0, 1], or undefined when the provider gives none. */
  readonly llmCertainty?: number | undefined;
}

// Weights of the best, second and third source in the quality factor.
const QUALITY_WEIGHTS = [0.7, 0.2, 0.1] as const;

const clamp01 = (value: number): number =>
  Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;

/** Level of an overall score: low < 0.4 ≤ medium < 0.7 ≤ high. */
export function confidenceLevel(overall: number): ConfidenceLevel {
  if (overall < 0.4) return 'low';
  if (overall < 0.7) return 'medium';
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
 * Confidence of an answer from its sources (seed 000 §3, made monotonic). A factor without
 * signal (no graph support, no model certainty) is left out and its weight is spread over the
 * others in proportion, so `overall` stays a weighted mean in [0, 1].
 */
export function scoreConfidence(
  input: ConfidenceInput,
  weights: ConfidenceWeights = DEFAULT_CONFIDENCE_WEIGHTS,
): Confidence {
  const scores = input.sources.map((source) => clamp01(source.score)).sort((a, b) => b - a);
  const factors: ConfidenceFactors = {
    sourceQuality: sourceQuality(scores),
    sourceDiversity: sourceDiversity(new Set(input.sources.map((s) => s.documentId)).size),
    semanticCohesion: semanticCohesion(scores),
    graphContext: input.graphSupport === undefined ? null : clamp01(input.graphSupport),
    llmCertainty: input.llmCertainty === undefined ? null : clamp01(input.llmCertainty),
  };
  const names = Object.keys(weights) as (keyof ConfidenceFactors)[];
  const active = names.filter((name) => factors[name] !== null && weights[name] > 0);
  const total = active.reduce((sum, name) => sum + weights[name], 0);
  const applied = Object.fromEntries(
    names.map((name) => [name, active.includes(name) && total > 0 ? weights[name] / total : 0]),
  ) as Record<keyof ConfidenceFactors, number>;
  const overall =
    input.sources.length === 0
      ? 0
      : clamp01(active.reduce((sum, name) => sum + applied[name] * (factors[name] ?? 0), 0));
  const round = (value: number): number => Math.round(value * 1000) / 1000;
  return {
    sourceQuality: round(factors.sourceQuality),
    sourceDiversity: round(factors.sourceDiversity),
    semanticCohesion: round(factors.semanticCohesion),
    graphContext: factors.graphContext === null ? null : round(factors.graphContext),
    llmCertainty: factors.llmCertainty === null ? null : round(factors.llmCertainty),
    overall: round(overall),
    level: confidenceLevel(round(overall)),
    weights: applied,
  };
}
