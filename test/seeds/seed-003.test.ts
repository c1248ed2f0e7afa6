/**
 * Seed 003 (per-session RAG): what a session's settings promise.
 */
import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../src/engine.js';
import { handbook } from '../fixtures/handbook.js';

/** Six near-identical pages: adaptive widening would take several of them. */
const pages = Array.from({ length: 6 }, (_, index) => ({
  id: `refunds-${index}`,
  text: `Refund policy ${index}: refunds are issued within ${10 + index} days of the request.`,
}));

describe('seed 003: a session topK is exact', () => {
  it('a session with topK 1 gets one source, though widening would add more', async () => {
    const engine = createChatEngine();
    await engine.ingest(pages);
    const open = await engine.createSession({ userId: 'u' });
    const wide = await engine.chat({
      sessionId: open.id,
      userId: 'u',
      message: 'How fast are refunds issued?',
    });
    expect(wide.sources.length).toBeGreaterThan(1);
    const narrow = await engine.createSession({ userId: 'u', settings: { topK: 1 } });
    const one = await engine.chat({
      sessionId: narrow.id,
      userId: 'u',
      message: 'How fast are refunds issued?',
    });
    expect(one.sources).toHaveLength(1);
    const two = await engine.chat({
      sessionId: narrow.id,
      userId: 'u',
      message: 'How fast are refunds issued?',
      topK: 2,
    });
    expect(two.sources).toHaveLength(2);
  });
});

describe('seed 003: a session threshold drops weak sources', () => {
  it('keeps only sources scoring at least the session threshold', async () => {
    const engine = createChatEngine();
    await engine.ingest(handbook);
    const open = await engine.createSession({ userId: 'u' });
    const all = await engine.chat({
      sessionId: open.id,
      userId: 'u',
      message: 'What does shipping cost and how long do refunds take?',
    });
    const scores = all.sources.map((source) => source.score);
    expect(scores.length).toBeGreaterThan(1);
    // Between the best and the worst score: some sources survive, some do not.
    const threshold = (Math.max(...scores) + Math.min(...scores)) / 2;
    const strict = await engine.createSession({ userId: 'u', settings: { threshold } });
    const kept = await engine.chat({
      sessionId: strict.id,
      userId: 'u',
      message: 'What does shipping cost and how long do refunds take?',
    });
    expect(kept.sources.length).toBeGreaterThan(0);
    expect(kept.sources.length).toBeLessThan(all.sources.length);
    expect(kept.sources.every((source) => source.score >= threshold)).toBe(true);
  });

  it('refuses a threshold outside [0, 1], naming it', async () => {
    const engine = createChatEngine();
    await expect(
      engine.createSession({ userId: 'u', settings: { threshold: 1.5 } }),
    ).rejects.toThrow(/threshold/);
  });
});
