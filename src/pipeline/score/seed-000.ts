/**
 * Seed 000's confidence formula (§3.1), reproduced as written, for `confidence.mode: 'seed-000'`:
 * the mean source score, √n diversity over the number of sources, exp(−2σ) cohesion (0.7 for
 * one source), graph context 0 and model certainty 0.75 when there is no signal, weighted
 * 0.30 / 0.20 / 0.15 / 0.20 / 0.15 and banded low < 0.4 ≤ medium < 0.7 ≤ high.
 *
 * It is not the default because it is not monotonic: adding a weaker corroborating source can
 * lower it (see docs/concepts.md, "Confidence").
 */
import type { Confidence, ConfidenceFactors } from '../../ports/chat-records.js';
import {
  confidenceLevel,
  DEFAULT_CONFIDENCE_LEVELS,
  DEFAULT_CONFIDENCE_WEIGHTS,
  capConfidence,
  scoreConfidence,
  type ConfidenceInput,
  type ConfidenceWeights,
} from '../score.js';

/** How `overall` is computed: the fitted model (default), a weighted mean, or seed 000's formula. */
export type ConfidenceMode = 'fitted' | 'seed-000';

/** Model certainty the seed assumes when the provider gives none. */
export const SEED_DEFAULT_LLM_CERTAINTY = 0.75;

/** Seed 000's cohesion of a single source. */
export const SEED_SINGLE_SOURCE_COHESION = 0.7;

const clamp01 = (value: number): number =>
  Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;

/** The seed's five factors of a set of source scores, before weighting. */
export function seedConfidenceFactors(
  scores: readonly number[],
  graphSupport?: number | undefined,
  llmCertainty?: number | undefined,
): Record<keyof ConfidenceFactors, number> {
  const n = scores.length;
  const mean = n > 0 ? scores.reduce((sum, score) => sum + score, 0) / n : 0;
  let semanticCohesion = n === 1 ? SEED_SINGLE_SOURCE_COHESION : 0;
  if (n > 1) {
    const variance = scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / n;
    semanticCohesion = Math.exp(-Math.sqrt(variance) * 2);
  }
  return {
    sourceQuality: mean,
    // the seed gives 0.2 even without sources (√0 = 0)
    sourceDiversity: Math.min(1, (Math.sqrt(n) / Math.sqrt(10)) * 0.8 + 0.2),
    semanticCohesion,
    graphContext: graphSupport === undefined ? 0 : clamp01(graphSupport),
    llmCertainty: llmCertainty === undefined ? SEED_DEFAULT_LLM_CERTAINTY : clamp01(llmCertainty),
  };
}

/**
 * Seed 000's `calculateConfidence`: every factor is reported (graph 0 and certainty 0.75
 * stand in for a missing signal, as in the seed), `weights` are the weights applied as given
 * (default the seed's), so `overall` = Σ weight·factor of the returned fields (rounded to
 * three places; the seed rounds to two). As in the seed, a turn without sources still gets
 * diversity 0.2 and the default certainty (0.1525: `low`). An answer whose cited claims are
 * mostly unsupported, or lacking what was asked, is never `high`, as in the other modes
 * (`capConfidence`; `cappedAt` says so).
 */
export function seedConfidence(
  input: ConfidenceInput,
  weights: ConfidenceWeights = DEFAULT_CONFIDENCE_WEIGHTS,
): Confidence {
  const scores = input.sources.map((source) => clamp01(source.score));
  const factors = seedConfidenceFactors(scores, input.graphSupport, input.llmCertainty);
  const names = Object.keys(DEFAULT_CONFIDENCE_WEIGHTS) as (keyof ConfidenceFactors)[];
  const round = (value: number): number => Math.round(value * 1000) / 1000;
  let overall = names.reduce((sum, name) => sum + weights[name] * factors[name], 0);
  const { capped, cappedAt } = capConfidence(input, DEFAULT_CONFIDENCE_LEVELS, (limit) => {
    const lowered = overall > limit;
    overall = Math.min(overall, limit);
    return lowered;
  });
  overall = round(clamp01(overall));
  return {
    sourceQuality: round(factors.sourceQuality),
    sourceDiversity: round(factors.sourceDiversity),
    semanticCohesion: round(factors.semanticCohesion),
    graphContext: round(factors.graphContext),
    llmCertainty: round(factors.llmCertainty),
    overall,
    level: confidenceLevel(overall, DEFAULT_CONFIDENCE_LEVELS),
    weights: { ...weights },
    mode: 'seed-000',
    ...(capped ? { capped } : {}),
    cappedAt,
  };
}

/** The engine's `confidence` settings a turn reads. */
export interface ConfidenceSettings {
  /** `seed-000` selects `seedConfidence`; otherwise `scoreConfidence`. */
  readonly mode?: ConfidenceMode | undefined;
  /** Factor weights (seed 000's weighted mean, or the seed formula's weights). */
  readonly weights?: ConfidenceWeights | undefined;
}

/** The confidence of an answer in the engine's configured mode. */
export function confidenceInMode(settings: ConfidenceSettings, input: ConfidenceInput): Confidence {
  return settings.mode === 'seed-000'
    ? seedConfidence(input, settings.weights)
    : scoreConfidence(input, settings.weights);
}
