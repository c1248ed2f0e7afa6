import { describe, expect, it } from 'vitest';
import { answerJson, renderConfidence, renderSources, sourcePlace } from '../../src/cli/render.js';
import type { Confidence, Source } from '../../src/ports/chat-records.js';
import type { ChatResponse } from '../../src/types.js';

function source(id: string, score: number, overrides: Partial<Source> = {}): Source {
  return {
    id,
    chunkId: `${id}#0`,
    documentId: 'chokidar/README.md',
    title: 'Chokidar',
    uri: null,
    snippet: '',
    score,
    vectorScore: null,
    keywordScore: null,
    fusedScore: score,
    type: 'hybrid',
    graphBoost: 1,
    learnedBoost: 1,
    graphContext: null,
    metadata: {},
    ...overrides,
  };
}

const confidence: Confidence = {
  overall: 0.62,
  level: 'medium',
  sourceQuality: 0.7,
  sourceDiversity: 0.2,
  semanticCohesion: 0.5,
  graphContext: null,
  llmCertainty: 0.8,
  weights: {
    sourceQuality: 0.4,
    sourceDiversity: 0.1,
    semanticCohesion: 0.1,
    graphContext: 0,
    llmCertainty: 0.4,
  },
};

describe('CLI sources a reader can use', () => {
  it('names each source by its section, not the document title, with file, score and snippet', () => {
    const printed = renderSources([
      source('S1', 0.4, {
        section: 'Chokidar › Getting started › Performance',
        snippet: '- usePolling (default: false). Whether to use fs.watchFile (backed by polling).',
      }),
      source('S2', 0.9, { section: 'Chokidar', snippet: 'Minimal file watching.' }),
      source('S3', 0.5, { title: null, documentId: 'notes.txt' }),
    ]).split('\n');
    expect(printed).toEqual([
      'Sources:',
      '  [S1] Getting started › Performance (chokidar/README.md) score 0.40',
      '       - usePolling (default: false). Whether to use fs.watchFile (backed by polling).',
      '  [S2] Chokidar (chokidar/README.md) score 0.90',
      '       Minimal file watching.',
      '  [S3] notes.txt (notes.txt) score 0.50',
    ]);
  });

  it('keeps a heading path whose first heading is not the title, and falls back to the title', () => {
    expect(sourcePlace(source('S1', 1, { section: 'Install › npm', title: 'Other' }))).toBe(
      'Install › npm',
    );
    expect(sourcePlace(source('S1', 1, { section: '   ' }))).toBe('Chokidar');
    expect(sourcePlace(source('S1', 1, { section: undefined, title: null }))).toBe(
      'chokidar/README.md',
    );
  });

  it('cuts a long snippet at a word and prints no control characters from a document', () => {
    const printed = renderSources([
      source('S1', 1, {
        section: 'Chokidar › \u001b[31mRed\u001b[0m\u0000',
        documentId: 'evil\u0007.md',
        snippet: `Watch \u001b]0;title\u0007files ${'word '.repeat(200)}`,
      }),
    ]);
    // no escape, bell or NUL reaches the terminal (lines are joined with \n only)
    expect(printed.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    const [, head, snippet] = printed.split('\n');
    expect(head).toContain('[31mRed [0m');
    expect(head).toContain('evil .md');
    expect(snippet!.length).toBeLessThan(160);
    expect(snippet).toMatch(/word…$/);
  });

  it('prints the confidence breakdown: each factor with its weight, and the terms reported', () => {
    expect(renderConfidence(confidence)).toBe(
      'Confidence: medium 0.62 (quality 0.70×0.40, diversity 0.20×0.10, cohesion 0.50×0.10, certainty 0.80×0.40)',
    );
    const fitted = {
      ...confidence,
      mode: 'fitted',
      fitted: {
        bias: -1.5,
        topScoreWeight: 2,
        topScore: 0.71,
        probability: 0.604,
        calibration: null,
      },
      cappedAt: 0.699,
    } as Confidence;
    expect(renderConfidence(fitted)).toBe(
      'Confidence: medium 0.62 (fitted: quality 0.70×0.40, diversity 0.20×0.10, cohesion 0.50×0.10, ' +
        'certainty 0.80×0.40, top score 0.71×2.00, bias -1.50, probability 0.604, capped at 0.699)',
    );
    const named = { ...fitted, capped: ['answer-below-top-source', 'answer-close-runner-up'] };
    expect(renderConfidence(named as Confidence)).toMatch(
      /, capped at 0\.699 by answer-below-top-source and answer-close-runner-up\)$/,
    );
  });

  it("lists ask --json's sources in label order, each with its section", () => {
    const response = {
      text: 'x',
      sources: [source('S1', 0.2, { section: 'Chokidar › Why?' }), source('S2', 0.9)],
      confidence,
      grounding: null,
      citations: { generatedIds: [], validIds: [], removed: [] },
      guard: false,
      refused: null,
      status: 'complete',
      model: 'm',
      sessionId: null,
      messageId: 'a',
    } as unknown as ChatResponse;
    const json = answerJson(response, null) as { sources: { id: string; section: unknown }[] };
    expect(json.sources.map((item) => [item.id, item.section])).toEqual([
      ['S1', 'Chokidar › Why?'],
      ['S2', null],
    ]);
  });
});
