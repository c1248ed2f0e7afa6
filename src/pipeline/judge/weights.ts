/**
 * The fitted model of the grounding judge's support score: the weights of a logistic
 * regression over the evidence features (fitted on the SciFact train split by
 * `bench/judge.ts --fit`), the default support threshold, and the score itself. Pure.
 * @module
 */
import type { SupportFeatures } from './features.js';

/** Weights of the support score: `score = σ(bias + Σ weight·feature)`. */
export interface SupportWeights {
  /** Constant term of the logit. */
  readonly bias: number;
  /** Weight of `coverage`. */
  readonly coverage: number;
  /** Weight of `sentenceCoverage`. */
  readonly sentenceCoverage: number;
  /** Weight of `proximity` (0 by default: it only picks the evidence sentence). */
  readonly proximity: number;
  /** Weight of `numbers`. */
  readonly numbers: number;
  /** Weight of `entities`. */
  readonly entities: number;
  /** Weight of `numberMismatch` (negative). */
  readonly numberMismatch: number;
  /** Weight of `polarityMismatch` (negative). */
  readonly polarityMismatch: number;
  /** Weight of `novelName` (negative). */
  readonly novelName: number;
  /** Weight of `novelNumber` (negative). */
  readonly novelNumber: number;
  /** Weight of `negationUnmatched` (negative). */
  readonly negationUnmatched: number;
  /** Weight of `directionMismatch` (negative). */
  readonly directionMismatch: number;
}

/**
 * Weights fitted on the SciFact train split, SUPPORT against NOT_ENOUGH_INFO and CONTRADICT
 * (`node --import tsx bench/judge.ts --fit --fit-all`), the bias shifted so the best-F1 train
 * threshold is 0.5; `numberMismatch` is set to −4 (the fit's −1.1 lets a wrong number in an
 * otherwise verbatim claim pass).
 */
export const DEFAULT_SUPPORT_WEIGHTS: SupportWeights = {
  bias: -2.17,
  coverage: 4.09,
  sentenceCoverage: 0.05,
  proximity: 0,
  numbers: 0.26,
  entities: 0.52,
  numberMismatch: -4,
  polarityMismatch: -0.77,
  novelName: -0.36,
  novelNumber: -0.23,
  negationUnmatched: -0.84,
  directionMismatch: -1.54,
};

/** Default support threshold (chosen on the SciFact train split). */
export const DEFAULT_SUPPORT_THRESHOLD = 0.5;

/** The support score of a set of features. */
export function supportScore(
  features: SupportFeatures,
  weights: SupportWeights = DEFAULT_SUPPORT_WEIGHTS,
): number {
  const logit =
    weights.bias +
    weights.coverage * features.coverage +
    weights.sentenceCoverage * features.sentenceCoverage +
    weights.proximity * features.proximity +
    weights.numbers * features.numbers +
    weights.entities * features.entities +
    weights.numberMismatch * features.numberMismatch +
    weights.polarityMismatch * features.polarityMismatch +
    weights.novelName * features.novelName +
    weights.novelNumber * features.novelNumber +
    weights.negationUnmatched * features.negationUnmatched +
    weights.directionMismatch * features.directionMismatch;
  return 1 / (1 + Math.exp(-logit));
}
