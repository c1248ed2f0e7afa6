import { describe, expect, it } from 'vitest';

import { createMemoryGraphStore } from '../../src/adapters/memory/graph-store.js';
import { createGraphIndexer } from '../../src/ingest/graph.js';
import {
  collectNeighborhoods,
  expansionScores,
  graphSupport,
  propagateScores,
  type GraphLink,
} from '../../src/pipeline/graph-rerank.js';

const link = (chunkId: string | null, documentId: string, depth = 2, weight = 1): GraphLink => ({
  chunkId,
  documentId,
  depth,
  weight,
});

describe('propagateScores', () => {
  it('boosts candidates connected to strong candidates, within [1, 2]', () => {
    const scores = new Map([
      ['a', 1],
      ['b', 0.8],
      ['c', 0.9],
    ]);
    const neighborhoods = new Map([
      ['a', [link('b', 'B')]],
      ['b', [link('a', 'A')]],
      ['c', []],
    ]);
    for (const rounds of [1, 2]) {
      const boosts = propagateScores(scores, neighborhoods, rounds);
      expect(boosts.get('c')!.graphBoost).toBe(1);
      expect(boosts.get('b')!.graphBoost).toBeGreaterThan(boosts.get('a')!.graphBoost);
      for (const { graphBoost, support } of boosts.values()) {
        expect(graphBoost).toBeGreaterThanOrEqual(1);
        expect(graphBoost).toBeLessThanOrEqual(2);
        expect(support).toBeCloseTo(graphBoost - 1, 12);
      }
    }
    // b's support: 1 − e^(−1·1) from a (score 1 relative, link strength 1).
    expect(propagateScores(scores, neighborhoods, 1).get('b')!.support).toBeCloseTo(
      1 - Math.exp(-1),
      10,
    );
  });

  it('weakens longer and lighter paths', () => {
    const scores = new Map([
      ['a', 1],
      ['b', 1],
      ['c', 1],
    ]);
    const near = propagateScores(scores, new Map([['b', [link('a', 'A', 2, 1)]]]), 1);
    const far = propagateScores(scores, new Map([['b', [link('a', 'A', 3, 0.5)]]]), 1);
    expect(near.get('b')!.support).toBeGreaterThan(far.get('b')!.support);
  });
});

describe('graphSupport and expansionScores', () => {
  it('averages boosts minus one, undefined without sources', () => {
    expect(graphSupport([])).toBeUndefined();
    expect(graphSupport([1, 2])).toBeCloseTo(0.5, 12);
    expect(graphSupport([1, 1])).toBe(0);
  });

  it('scores reached non-candidates by the candidates reaching them', () => {
    const scores = new Map([
      ['a', 2],
      ['b', 1],
    ]);
    const reached = expansionScores(
      scores,
      new Map([
        ['a', [link('x', 'X'), link('b', 'B'), link(null, 'D', 2)]],
        ['b', [link('x', 'X'), link('y', 'Y')]],
      ]),
    );
    expect(reached.map((r) => r.key)).toEqual(['x', 'document:D', 'y']);
    expect(reached[0]!.score).toBeCloseTo(1.5, 12);
  });
});

describe('collectNeighborhoods', () => {
  it('reaches sibling chunks, chunks sharing a term and cited documents', async () => {
    const graphStore = createMemoryGraphStore();
    await createGraphIndexer({ graphStore }).index('kb', [
      {
        doc: { id: 'a', text: 'See [b](b).' },
        chunks: [
          { id: 'a#0', text: 'Ribosomes translate messenger transcripts.' },
          { id: 'a#1', text: 'Second part.' },
        ],
      },
      { doc: { id: 'b', text: 'x' }, chunks: [{ id: 'b#0', text: 'Unrelated words here.' }] },
      { doc: { id: 'c', text: 'x' }, chunks: [{ id: 'c#0', text: 'Ribosomes assemble slowly.' }] },
    ]);
    const found = await collectNeighborhoods(graphStore, ['a#0', 'missing'], {
      namespace: 'kb',
      depth: 2,
    });
    const around = found.get('a#0')!;
    expect(around.filter((l) => l.chunkId !== null).map((l) => l.chunkId)).toEqual(
      expect.arrayContaining(['a#1', 'c#0']),
    );
    expect(around).toContainEqual(expect.objectContaining({ chunkId: null, documentId: 'b' }));
    expect(found.get('missing')).toEqual([]);
  });
});
