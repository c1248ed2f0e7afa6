import { describe, expect, it } from 'vitest';

import { longAnswerDeltas, overlapsPause, quantile, sseChunk, sseEnd } from '../../bench/stream.js';
import { createOpenAIChat } from '../../src/adapters/openai/index.js';
import { validateCitations } from '../../src/pipeline/cite.js';

describe('streaming benchmark harness', () => {
  it('builds a long answer of exactly N deltas mixing valid, invalid and split tags', () => {
    for (const count of [1, 2, 3, 100, 5_000]) {
      expect(longAnswerDeltas(count)).toHaveLength(count);
    }
    const deltas = longAnswerDeltas(5_000);
    expect(deltas).toContain(' [source: S1]');
    expect(deltas).toContain(' [source: S99]');
    expect(deltas).toContain(' [sour'); // a tag split over three deltas
    expect(deltas).toContain(' [source:'); // an invalid tag split over two
    expect(deltas).toContain(' [note]');
    expect(longAnswerDeltas(5_000)).toEqual(deltas);

    const { text, report } = validateCitations(deltas.join(''), ['S1', 'S2']);
    expect(report.validIds).toEqual(['S1', 'S2']);
    expect(report.removed).toEqual(expect.arrayContaining(['S99', 'X7']));
    expect(text).not.toMatch(/S99|X7/);
    expect(text).toContain('[note]');
  });

  it('writes SSE chunks the real OpenAI adapter parses back into the same deltas', async () => {
    const deltas = longAnswerDeltas(300);
    const body = [
      sseChunk({ role: 'assistant', content: '' }),
      ...deltas.map((content) => sseChunk({ content })),
      ...sseEnd(deltas.length),
    ].join('');
    const llm = createOpenAIChat({
      apiKey: 'k',
      baseURL: 'http://bench.invalid/v1',
      model: 'm',
      fetch: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    });
    const texts: string[] = [];
    let finish: unknown;
    for await (const part of llm.stream({ messages: [{ role: 'user', content: 'q' }] })) {
      if (part.type === 'text-delta') texts.push(part.text);
      else finish = part;
    }
    expect(texts).toEqual(deltas);
    expect(finish).toEqual({
      type: 'finish',
      finishReason: 'stop',
      usage: { inputTokens: 100, outputTokens: 300 },
    });
  });

  it('takes nearest-rank quantiles and finds pauses overlapping a window', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(quantile(sorted, 0.5)).toBe(6);
    expect(quantile(sorted, 0.99)).toBe(10);
    expect(quantile([], 0.5)).toBeNaN();

    const pauses = [{ start: 10, end: 12 }];
    expect(overlapsPause(pauses, 11, 20)).toBe(true);
    expect(overlapsPause(pauses, 5, 10.5)).toBe(true);
    expect(overlapsPause(pauses, 12, 20)).toBe(false);
    expect(overlapsPause(pauses, 0, 10)).toBe(false);
  });
});
