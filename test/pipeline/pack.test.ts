import { describe, expect, it } from 'vitest';
import { packContext } from '../../src/pipeline/pack.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';

// One token per word keeps the arithmetic visible.
const wordTokenizer: Tokenizer = {
  name: 'words',
  count: (text) => text.split(/\s+/).filter(Boolean).length,
  encode: () => [],
  decode: () => '',
};
const words = (n: number, word = 'w') => Array.from({ length: n }, () => word).join(' ');

describe('packContext', () => {
  const base = {
    contextWindow: 200,
    answerTokens: 50,
    system: words(10),
    message: words(10),
    history: [],
    historyTokens: 40,
  };

  it('keeps whole chunks best first and skips those that do not fit', () => {
    // budget 150 - (10 + 10 + 8 overhead) = 122; each chunk costs text + 12
    const chunks = [{ text: words(60) }, { text: words(60) }, { text: words(20) }];
    const result = packContext({ ...base, chunks }, wordTokenizer);
    expect(result.chunks).toEqual([chunks[0], chunks[2]]);
    expect(result.droppedChunks).toBe(1);
    expect(result.promptTokens).toBeLessThanOrEqual(150);
  });

  it('keeps the most recent history within its own limit, oldest first', () => {
    const history = [
      { role: 'user' as const, content: words(10, 'old') },
      { role: 'assistant' as const, content: words(10, 'mid') },
      { role: 'user' as const, content: words(10, 'new') },
    ];
    const result = packContext({ ...base, history, chunks: [] }, wordTokenizer);
    // each message costs 10 + 4; two fit in 40
    expect(result.history.map((message) => message.content.split(' ')[0])).toEqual(['mid', 'new']);
    expect(result.droppedHistory).toBe(1);
  });

  it('never exceeds the window minus the answer reserve', () => {
    const chunks = Array.from({ length: 30 }, (_, index) => ({ text: words(5 + (index % 7)) }));
    const result = packContext({ ...base, chunks }, wordTokenizer);
    expect(result.promptTokens).toBeLessThanOrEqual(base.contextWindow - base.answerTokens);
  });
});
