import { describe, expect, it } from 'vitest';
import {
  calibrate,
  confidenceLevel,
  DEFAULT_CONFIDENCE_LEVELS,
  DEFAULT_CONFIDENCE_MODEL,
  DEFAULT_CONFIDENCE_WEIGHTS,
  scoreConfidence,
} from '../../src/pipeline/score.js';

const sources = (...scores: number[]) =>
  scores.map((score, index) => ({ score, documentId: `d${index}` }));

// Deterministic pseudo-random numbers for property checks.
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('scoreConfidence', () => {
  it('is zero and low with no sources', () => {
    const confidence = scoreConfidence({ sources: [] });
    expect(confidence.overall).toBe(0);
    expect(confidence.level).toBe('low');
  });

  it('spreads the weight of factors without signal over the others (seed 000 weights)', () => {
    const confidence = scoreConfidence({ sources: sources(0.9) }, DEFAULT_CONFIDENCE_WEIGHTS);
    expect(confidence.graphContext).toBeNull();
    expect(confidence.llmCertainty).toBeNull();
    expect(confidence.weights.graphContext).toBe(0);
    expect(confidence.weights.llmCertainty).toBe(0);
    const total = Object.values(confidence.weights).reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 10);
    expect(confidence.weights.sourceQuality).toBeCloseTo(0.3 / 0.65, 10);
  });

  it('uses every weight when all signals are present (seed 000 weights)', () => {
    const confidence = scoreConfidence(
      {
        sources: sources(1, 1, 1),
        graphSupport: 1,
        llmCertainty: 1,
      },
      DEFAULT_CONFIDENCE_WEIGHTS,
    );
    expect(confidence.weights).toEqual(DEFAULT_CONFIDENCE_WEIGHTS);
  });

  it('stays in [0, 1] and maps levels at 0.4 and 0.7', () => {
    expect(confidenceLevel(0.39)).toBe('low');
    expect(confidenceLevel(0.4)).toBe('medium');
    expect(confidenceLevel(0.69)).toBe('medium');
    expect(confidenceLevel(0.7)).toBe('high');
    const next = random(7);
    for (let trial = 0; trial < 500; trial++) {
      const count = Math.floor(next() * 12);
      const confidence = scoreConfidence({
        sources: sources(...Array.from({ length: count }, () => next() * 1.4 - 0.2)),
        llmCertainty: next() < 0.5 ? undefined : next(),
      });
      expect(confidence.overall).toBeGreaterThanOrEqual(0);
      expect(confidence.overall).toBeLessThanOrEqual(1);
    }
  });

  for (const [mode, weights] of [
    ['fitted model', undefined],
    ['seed 000 weights', DEFAULT_CONFIDENCE_WEIGHTS],
  ] as const) {
    it(`never lowers the score for a better, larger or more agreeing source set (${mode})`, () => {
      const next = random(42);
      const score = (scores: number[], certainty: number | undefined): number =>
        scoreConfidence({ sources: sources(...scores), llmCertainty: certainty }, weights).overall;
      for (let trial = 0; trial < 1000; trial++) {
        const scores = Array.from({ length: 1 + Math.floor(next() * 8) }, () => next());
        const certainty = next() < 0.5 ? undefined : next();
        const before = score(scores, certainty);

        const better = scores.slice();
        const index = Math.floor(next() * better.length);
        better[index] = Math.min(1, better[index]! + next() * 0.5);
        expect(score(better, certainty)).toBeGreaterThanOrEqual(before);

        expect(score([...scores, next()], certainty)).toBeGreaterThanOrEqual(before);

        const top = Math.max(...scores);
        const agreeing = scores.map((value) => value + (top - value) * next());
        expect(score(agreeing, certainty)).toBeGreaterThanOrEqual(before);

        if (certainty !== undefined) {
          expect(score(scores, Math.min(1, certainty + next() * 0.5))).toBeGreaterThanOrEqual(
            before,
          );
        }
      }
    });
  }

  it('fits overall as a probability from the factors and the best score', () => {
    const { bias, weights } = DEFAULT_CONFIDENCE_MODEL;
    const confidence = scoreConfidence({ sources: sources(0.8), llmCertainty: 1 });
    const z =
      bias +
      weights.sourceQuality * confidence.sourceQuality +
      weights.sourceDiversity * confidence.sourceDiversity +
      weights.semanticCohesion * confidence.semanticCohesion +
      weights.graphContext * 0.5 +
      weights.llmCertainty * 1 +
      weights.topScore * 0.8;
    const probability = 1 / (1 + Math.exp(-z));
    const calibrated = calibrate(probability, DEFAULT_CONFIDENCE_MODEL.calibration ?? []);
    expect(confidence.overall).toBeCloseTo(calibrated, 3);
    // Without a calibration, overall is the logistic probability itself.
    const uncalibrated = { ...DEFAULT_CONFIDENCE_MODEL, calibration: undefined };
    expect(
      scoreConfidence({ sources: sources(0.8), llmCertainty: 1 }, undefined, uncalibrated).overall,
    ).toBeCloseTo(probability, 3);
    expect(Object.keys(confidence)).toEqual(
      expect.arrayContaining([
        'sourceQuality',
        'sourceDiversity',
        'semanticCohesion',
        'graphContext',
        'llmCertainty',
      ]),
    );
  });

  it('maps the logistic probability through the isotonic calibration', () => {
    const calibration = [
      [0.2, 0.05],
      [0.6, 0.3],
      [0.9, 0.8],
    ] as const;
    expect(calibrate(0.1, calibration)).toBe(0.05);
    expect(calibrate(0.2, calibration)).toBe(0.05);
    expect(calibrate(0.5, calibration)).toBe(0.3);
    expect(calibrate(0.95, calibration)).toBe(0.8);
    // A flat logistic curve is stretched: the same sources score differently once calibrated.
    const model = { ...DEFAULT_CONFIDENCE_MODEL, calibration };
    const input = { sources: sources(0.8), llmCertainty: 1 };
    const raw = scoreConfidence(input, undefined, { ...model, calibration: undefined }).overall;
    const expected = calibrate(raw, calibration);
    expect(scoreConfidence(input, undefined, model).overall).toBe(expected);
    expect(scoreConfidence(input, undefined, model).level).toBe(
      confidenceLevel(expected, model.levels),
    );
  });

  it('never rates high when most cited claims are unsupported', () => {
    for (const weights of [undefined, DEFAULT_CONFIDENCE_WEIGHTS]) {
      const strong = { sources: sources(1, 1, 1), graphSupport: 1, llmCertainty: 1 };
      expect(scoreConfidence(strong, weights).level).toBe('high');
      const unsupported = scoreConfidence({ ...strong, supportedRatio: 0.2 }, weights);
      expect(unsupported.level).not.toBe('high');
      expect(unsupported.overall).toBeLessThan(
        (weights ? DEFAULT_CONFIDENCE_LEVELS : DEFAULT_CONFIDENCE_MODEL.levels).high,
      );
      // Half supported is not "mostly unsupported".
      expect(scoreConfidence({ ...strong, supportedRatio: 0.5 }, weights).level).toBe('high');
    }
  });

  it('counts distinct documents for diversity', () => {
    const sameDocument = scoreConfidence({
      sources: [
        { score: 0.8, documentId: 'a' },
        { score: 0.8, documentId: 'a' },
      ],
    });
    const twoDocuments = scoreConfidence({ sources: sources(0.8, 0.8) });
    expect(twoDocuments.sourceDiversity).toBeGreaterThan(sameDocument.sourceDiversity);
  });
});
