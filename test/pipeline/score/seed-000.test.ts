import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../../src/index.js';
import { calibrate, scoreConfidence } from '../../../src/pipeline/score.js';
import { confidenceInMode, seedConfidence } from '../../../src/pipeline/score/seed-000.js';
import type { Confidence } from '../../../src/ports/chat-records.js';
import { createMockLLM } from '../../../src/testing/mock-llm.js';

const sources = (...scores: number[]) =>
  scores.map((score, index) => ({ score, documentId: `d${index}` }));

/** Recomputes a fitted-mode `overall` from the returned fields only. */
function recomputeFitted(confidence: Confidence): number {
  const fitted = confidence.fitted!;
  const names = ['sourceQuality', 'sourceDiversity', 'semanticCohesion'] as const;
  let z = fitted.bias + fitted.topScoreWeight * fitted.topScore;
  for (const name of names) z += confidence.weights[name] * confidence[name];
  z += confidence.weights.graphContext * (confidence.graphContext ?? 0.5);
  z += confidence.weights.llmCertainty * (confidence.llmCertainty ?? 0.5);
  const probability = 1 / (1 + Math.exp(-z));
  expect(probability).toBeCloseTo(fitted.probability, 3);
  let overall = fitted.calibration
    ? calibrate(fitted.probability, fitted.calibration)
    : probability;
  if (confidence.cappedAt != null) overall = Math.min(overall, confidence.cappedAt);
  return Math.round(overall * 1000) / 1000;
}

describe("seed 000's confidence formula (confidence.mode: 'seed-000')", () => {
  it('gives one source at 0.95 the seed’s 0.59 (hand-computed)', () => {
    // 0.30·0.95 + 0.20·(0.8·√(1/10) + 0.2) + 0.15·0.7 + 0.20·0 + 0.15·0.75
    // = 0.285 + 0.090596 + 0.105 + 0 + 0.1125 = 0.593096
    const confidence = seedConfidence({ sources: sources(0.95) });
    expect(confidence.overall).toBe(0.593);
    expect(Math.round(confidence.overall * 100) / 100).toBe(0.59);
    expect(confidence).toMatchObject({
      sourceQuality: 0.95,
      sourceDiversity: 0.453,
      semanticCohesion: 0.7,
      graphContext: 0,
      llmCertainty: 0.75,
      level: 'medium',
      mode: 'seed-000',
    });
  });

  it('gives 0.85 and 0.80 without graph signal the seed’s 0.61 (hand-computed)', () => {
    // mean 0.825; diversity 0.8·√(2/10) + 0.2 = 0.557771; σ = 0.025, cohesion e^(−0.05) = 0.951229
    // 0.30·0.825 + 0.20·0.557771 + 0.15·0.951229 + 0 + 0.15·0.75 = 0.613739
    const confidence = seedConfidence({ sources: sources(0.85, 0.8) });
    expect(confidence.overall).toBe(0.614);
    expect(Math.round(confidence.overall * 100) / 100).toBe(0.61);
    expect(confidence.semanticCohesion).toBe(0.951);
    expect(confidence.sourceDiversity).toBe(0.558);
  });

  it('uses the graph and model signals when given, and reports the weights applied', () => {
    const confidence = seedConfidence({
      sources: sources(0.9, 0.9, 0.9),
      graphSupport: 0.5,
      llmCertainty: 1,
    });
    // 0.3·0.9 + 0.2·(0.8·√0.3 + 0.2) + 0.15·1 + 0.2·0.5 + 0.15·1
    const expected = 0.27 + 0.2 * (0.8 * Math.sqrt(0.3) + 0.2) + 0.15 + 0.1 + 0.15;
    expect(confidence.overall).toBe(Math.round(expected * 1000) / 1000);
    const { weights } = confidence;
    const recomputed =
      weights.sourceQuality * confidence.sourceQuality +
      weights.sourceDiversity * confidence.sourceDiversity +
      weights.semanticCohesion * confidence.semanticCohesion +
      weights.graphContext * confidence.graphContext! +
      weights.llmCertainty * confidence.llmCertainty!;
    expect(recomputed).toBeCloseTo(confidence.overall, 2);
    expect(confidence.level).toBe('high');
  });

  it('is not monotonic, as the seed wrote it: a weaker corroborating source lowers it', () => {
    const one = seedConfidence({ sources: sources(0.95) }).overall;
    const two = seedConfidence({ sources: sources(0.95, 0.3) }).overall;
    expect(two).toBeLessThan(one);
  });

  it('keeps the judge’s cap: mostly unsupported claims are never high', () => {
    const confidence = seedConfidence({
      sources: sources(1, 1, 1),
      llmCertainty: 1,
      graphSupport: 1,
      supportedRatio: 0.2,
    });
    expect(confidence.level).toBe('medium');
    expect(confidence.cappedAt).toBe(0.699);
  });

  it('is selected by the engine’s confidence.mode', async () => {
    const engine = createChatEngine({
      llm: createMockLLM({ responses: 'Refunds take 14 days [source: S1].' }),
      confidence: { mode: 'seed-000' },
    });
    await engine.ingest([
      { id: 'refunds', text: 'Refunds are issued within 14 days of a return.' },
    ]);
    const reply = await engine.chat({ message: 'How long do refunds take?', mode: 'query' });
    expect(reply.confidence.mode).toBe('seed-000');
    expect(reply.confidence.weights).toEqual({
      sourceQuality: 0.3,
      sourceDiversity: 0.2,
      semanticCohesion: 0.15,
      graphContext: 0.2,
      llmCertainty: 0.15,
    });
    expect(() => createChatEngine({ confidence: { mode: 'seed' as 'fitted' } })).toThrow(/mode/);
  });
});

describe('the default (fitted) breakdown can recompute overall', () => {
  it('for many inputs, from the returned fields alone', () => {
    const cases = [
      { sources: sources(0.95) },
      { sources: sources(0.95), llmCertainty: 0.9 },
      { sources: sources(0.85, 0.8) },
      { sources: sources(0.4, 0.3, 0.2), graphSupport: 0.7 },
      { sources: sources(0.99, 0.98), llmCertainty: 1 },
      { sources: sources(0.9), llmCertainty: 1, supportedRatio: 0.1 },
    ];
    for (const input of cases) {
      const confidence = scoreConfidence(input);
      expect(confidence.mode).toBe('fitted');
      expect(recomputeFitted(confidence)).toBe(confidence.overall);
    }
  });

  it('reports the model’s weights, not a weight of 0 beside a high overall', () => {
    const confidence = scoreConfidence({ sources: sources(0.99, 0.98), llmCertainty: 1 });
    expect(confidence.overall).toBeGreaterThan(0.9);
    expect(confidence.fitted!.topScoreWeight).toBeGreaterThan(0);
    expect(confidence.fitted!.topScore).toBe(0.99);
    expect(confidence.weights.llmCertainty).toBeGreaterThan(0);
  });

  it('the weighted mode says so and is Σ weight·factor', () => {
    const confidence = confidenceInMode(
      {
        mode: 'fitted',
        weights: {
          sourceQuality: 0.3,
          sourceDiversity: 0.2,
          semanticCohesion: 0.15,
          graphContext: 0.2,
          llmCertainty: 0.15,
        },
      },
      { sources: sources(0.9, 0.5) },
    );
    expect(confidence.mode).toBe('weighted');
    const sum =
      confidence.weights.sourceQuality * confidence.sourceQuality +
      confidence.weights.sourceDiversity * confidence.sourceDiversity +
      confidence.weights.semanticCohesion * confidence.semanticCohesion;
    expect(sum).toBeCloseTo(confidence.overall, 2);
  });
});
