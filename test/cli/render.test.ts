import { describe, expect, it } from 'vitest';
import {
  counted,
  formatDuration,
  progressLine,
  renderSources,
  sortByScore,
} from '../../src/cli/render.js';
import { parseHistory } from '../../src/cli/repl.js';
import type { Source } from '../../src/ports/chat-records.js';

function source(id: string, score: number): Source {
  return {
    id,
    chunkId: `${id}#0`,
    documentId: `${id}.md`,
    title: id,
    uri: null,
    snippet: '',
    score,
    vectorScore: null,
    keywordScore: null,
    fusedScore: score,
    type: 'vector',
    graphBoost: 0,
    learnedBoost: 0,
    graphContext: null,
    metadata: {},
  } as Source;
}

describe('CLI rendering', () => {
  it('writes a count with its noun, singular for one', () => {
    expect(counted(1, 'document')).toBe('1 document');
    expect(counted(0, 'chunk')).toBe('0 chunks');
    expect(counted(2, 'unchanged document')).toBe('2 unchanged documents');
    expect(counted(3, 'query', 'queries')).toBe('3 queries');
  });

  it('sorts sources best first, ties in label order; prints them in label order', () => {
    const sources = [source('S1', 0.5), source('S2', 0.9), source('S3', 0.5), source('S4', 0.7)];
    expect(sortByScore(sources).map((s) => s.id)).toEqual(['S2', 'S4', 'S1', 'S3']);
    expect(
      renderSources(sources)
        .split('\n')
        .slice(1)
        .map((line) => line.trim().slice(0, 4)),
    ).toEqual(['[S1]', '[S2]', '[S3]', '[S4]']);
  });

  it('names the page of a paged source (PDF)', () => {
    const one = { ...source('S1', 0.9), metadata: { page: 2 } } as Source;
    const span = { ...source('S2', 0.8), metadata: { page: 2, pageEnd: 3 } } as Source;
    const lines = renderSources([one, span, source('S3', 0.1)]).split('\n');
    expect(lines[1]).toContain('(S1.md, p. 2)');
    expect(lines[2]).toContain('(S2.md, pp. 2–3)');
    expect(lines[3]).toContain('(S3.md)');
  });

  it('estimates the time left from the rate so far', () => {
    expect(progressLine(10, 40, 5_000)).toMatch(/25% 10\/40 documents, ETA 15s$/);
    expect(progressLine(1, 100, 10_000)).toMatch(/ETA 16m 30s$/);
    expect(progressLine(0, 40, 1_000)).not.toMatch(/ETA/);
    expect(progressLine(40, 40, 9_000)).toMatch(/100% 40\/40 documents$/);
    expect(formatDuration(2 * 3_600_000 + 5 * 60_000)).toBe('2h 05m');
  });

  it('reads the chat history newest first without blanks or repeats', () => {
    expect(parseHistory('first\n\nsecond\nfirst\nthird\n')).toEqual(['third', 'first', 'second']);
  });
});
