import { describe, expect, it } from 'vitest';
import {
  calculateFeedbackReward,
  patternScore,
  rankPatterns,
  validateFeedbackRecord,
} from '../../src/learning/feedback.js';
import type { FeedbackRecord, TrajectoryRecord } from '../../src/ports/chat-records.js';

describe('calculateFeedbackReward (seed 000)', () => {
  it('maps ratings to 1, 0.5 and -0.5', () => {
    expect(calculateFeedbackReward({ rating: 'good' })).toBe(1);
    expect(calculateFeedbackReward({ rating: 'neutral' })).toBe(0.5);
    expect(calculateFeedbackReward({ rating: 'bad' })).toBe(-0.5);
  });

  it('blends source helpfulness 0.7 / 0.3 around 0.5', () => {
    expect(
      calculateFeedbackReward({ rating: 'good', sourceHelpfulness: { S1: 1, S2: 0 } }),
    ).toBeCloseTo(0.7, 10);
    expect(calculateFeedbackReward({ rating: 'bad', sourceHelpfulness: { S1: 0 } })).toBeCloseTo(
      -0.5,
      10,
    );
  });

  it('treats an empty helpfulness map as none (the seed divides by zero)', () => {
    expect(calculateFeedbackReward({ rating: 'good', sourceHelpfulness: {} })).toBe(1);
  });

  it('forces at most -0.3 for an answer marked not factual with a correction, only then', () => {
    expect(
      calculateFeedbackReward({ rating: 'good', markedAsFactual: false, correctedContent: 'x' }),
    ).toBe(-0.3);
    expect(
      calculateFeedbackReward({ rating: 'bad', markedAsFactual: false, correctedContent: 'x' }),
    ).toBe(-0.5);
    expect(calculateFeedbackReward({ rating: 'good', markedAsFactual: false })).toBe(1);
    expect(
      calculateFeedbackReward({ rating: 'good', markedAsFactual: true, correctedContent: 'x' }),
    ).toBe(1);
  });

  it('stays within [-1, 1]', () => {
    for (const rating of ['good', 'neutral', 'bad'] as const) {
      for (const help of [0, 0.5, 1]) {
        const reward = calculateFeedbackReward({ rating, sourceHelpfulness: { S1: help } });
        expect(reward).toBeGreaterThanOrEqual(-1);
        expect(reward).toBeLessThanOrEqual(1);
      }
    }
  });
});

const record = (overrides: Partial<FeedbackRecord> = {}): FeedbackRecord => ({
  id: 'f1',
  messageId: 'm1',
  sessionId: 's1',
  userId: 'u1',
  rating: 'good',
  sourceHelpfulness: null,
  comment: null,
  markedAsFactual: null,
  correctedContent: null,
  reward: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

describe('validateFeedbackRecord', () => {
  it('names the bad field', () => {
    expect(() => validateFeedbackRecord(record())).not.toThrow();
    expect(() => validateFeedbackRecord(record({ reward: 2 }))).toThrow(/reward/);
    expect(() => validateFeedbackRecord(record({ rating: 'meh' as never }))).toThrow(/rating/);
    expect(() => validateFeedbackRecord(record({ sourceHelpfulness: { S1: 1.5 } }))).toThrow(
      /sourceHelpfulness\.S1/,
    );
    expect(() => validateFeedbackRecord(record({ messageId: '' }))).toThrow(/messageId/);
  });
});

const trajectory = (
  id: string,
  query: string,
  quality: number | null,
  status: TrajectoryRecord['status'] = 'completed',
): TrajectoryRecord => ({
  id,
  sessionId: 's',
  userId: 'u',
  initialQuery: query,
  route: 'retrieval',
  status,
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: status === 'active' ? null : '2026-01-01T01:00:00.000Z',
  stepCount: 1,
  totalReward: 1,
  finalQuality: quality,
});

describe('findPatterns ranking', () => {
  it('ranks ended trajectories by shared terms times quality, ignoring active ones', () => {
    const ranked = rankPatterns('refund policy for digital goods', 2, [
      trajectory('a', 'What is the refund policy?', 0.9),
      trajectory('b', 'refund policy digital goods', 0.5),
      trajectory('c', 'refund policy digital goods', 1, 'active'),
      trajectory('d', 'shipping times', 1),
    ]);
    expect(ranked.map((item) => item.id)).toEqual(['b', 'a']);
    expect(patternScore('anything', trajectory('x', 'anything', null, 'active'))).toBe(0);
  });
});
