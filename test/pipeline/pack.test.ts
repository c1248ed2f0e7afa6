import { describe, expect, it } from 'vitest';
import { packContext, renderMemory, renderRecalled } from '../../src/pipeline/pack.js';
import { buildSystemPrompt } from '../../src/pipeline/prompt.js';
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
    // each message costs 10 + 4; two fit in 40, but 'mid' answers the cut 'old': it goes too
    expect(result.history.map((message) => message.content.split(' ')[0])).toEqual(['new']);
    expect(result.droppedHistory).toBe(2);
    const four = [...history, { role: 'assistant' as const, content: words(5, 'last') }];
    const paired = packContext(
      { ...base, history: four, historyTokens: 50, chunks: [] },
      wordTokenizer,
    );
    expect(paired.history.map((message) => message.content.split(' ')[0])).toEqual(['new', 'last']);
  });

  it('never exceeds the window minus the answer reserve', () => {
    const chunks = Array.from({ length: 30 }, (_, index) => ({ text: words(5 + (index % 7)) }));
    const result = packContext({ ...base, chunks }, wordTokenizer);
    expect(result.promptTokens).toBeLessThanOrEqual(base.contextWindow - base.answerTokens);
  });

  const recalled = (n: number, size = 5) =>
    Array.from({ length: n }, (_, index) => ({
      role: 'user' as const,
      text: words(size, `r${index}`),
      createdAt: `2025-01-0${index + 1}T00:00:00.000Z`,
    }));

  it('fills one budget in priority order: top chunk, summary, history, other chunks, recalled', () => {
    // budget 150; system + message 28 → 122 left
    const chunks = [{ text: words(20, 'c0') }, { text: words(20, 'c1') }];
    const history = [
      { role: 'user' as const, content: words(10, 'q') },
      { role: 'assistant' as const, content: words(10, 'a') },
    ];
    const result = packContext(
      { ...base, summary: words(10, 's'), history, chunks, recalled: recalled(3) },
      wordTokenizer,
    );
    expect(result.chunks).toEqual(chunks);
    expect(result.summary).toBe(words(10, 's'));
    expect(result.history).toEqual(history);
    expect(result.tokens.chunks).toBe(64);
    expect(result.tokens.history).toBe(28);
    // what is left goes to recalled messages, whole
    expect(result.recalled.length).toBeLessThan(3);
    expect(result.dropped.recalled).toBe(3 - result.recalled.length);
    const sum = Object.values(result.tokens).reduce((total, tokens) => total + tokens, 0);
    expect(result.promptTokens).toBe(sum);
    expect(result.promptTokens).toBeLessThanOrEqual(150);
  });

  it('keeps the best chunk before the summary and history, and cuts the summary to fit', () => {
    const chunks = [{ text: words(80, 'c0') }, { text: words(10, 'c1') }];
    const history = [{ role: 'user' as const, content: words(10, 'q') }];
    const result = packContext(
      { ...base, summary: words(60, 's'), history, chunks },
      wordTokenizer,
    );
    expect(result.chunks).toEqual([chunks[0]]); // 92 of 122
    expect(result.dropped.summary).toBe('cut');
    expect(result.summary!.split(' ').length).toBeLessThan(60);
    expect(result.dropped.history).toBe(1);
    expect(result.dropped.chunks).toBe(1);
    expect(result.promptTokens).toBeLessThanOrEqual(150);
  });

  it('drops a summary with no room left, and reports it', () => {
    const result = packContext(
      { ...base, summary: words(30, 's'), history: [], chunks: [{ text: words(105, 'c') }] },
      wordTokenizer,
    );
    expect(result.summary).toBeNull();
    expect(result.dropped.summary).toBe('dropped');
    expect(result.memory).toBe('');
  });

  it('applies per-part caps', () => {
    const chunks = [{ text: words(10) }, { text: words(10) }, { text: words(10) }];
    const result = packContext(
      {
        ...base,
        contextWindow: 1000,
        summary: words(40, 's'),
        history: [],
        chunks,
        recalled: recalled(4, 10),
        caps: { chunks: 44, summary: 30, recalled: 30 },
      },
      wordTokenizer,
    );
    expect(result.chunks).toHaveLength(2);
    expect(result.tokens.summary).toBeLessThanOrEqual(30);
    expect(result.tokens.recalled).toBeLessThanOrEqual(30);
    expect(result.recalled.length).toBeGreaterThan(0);
  });

  it('always keeps the system prompt and the message, even over budget', () => {
    const result = packContext(
      { ...base, message: words(500), history: [], chunks: [{ text: words(5) }] },
      wordTokenizer,
    );
    expect(result.chunks).toEqual([]);
    expect(result.tokens.message).toBe(504);
  });

  it('places the memory block before the sources or at the end (summaryPosition)', () => {
    const memory = renderMemory('User wants a refund.');
    const sources = [{ label: 'S1', text: 'Refunds take 14 days.' }];
    const before = buildSystemPrompt('Answer from {{sources}} only.', sources, 'Chat.', {
      block: memory,
      position: 'before_retrieval',
    });
    expect(before.indexOf('<conversation_memory>')).toBeLessThan(before.indexOf('<sources>'));
    expect(before.startsWith('Answer from <conversation_memory>')).toBe(true);
    expect(before.endsWith('only.\n\nChat.')).toBe(true);
    const after = buildSystemPrompt('Answer from {{sources}} only.', sources, 'Chat.', {
      block: memory,
      position: 'after_retrieval',
    });
    expect(after.indexOf('<conversation_memory>')).toBeGreaterThan(after.indexOf('Chat.'));
    expect(after.endsWith('</conversation_memory>')).toBe(true);
    // No memory: the prompt is the one without the option.
    const none = buildSystemPrompt('Be brief.', sources, undefined, {
      block: renderMemory(null),
      position: 'before_retrieval',
    });
    expect(none).toBe(buildSystemPrompt('Be brief.', sources));
  });

  it('renders the memory block without asking for a summary, and recalled messages apart', () => {
    const memory = renderMemory('User wants a refund.');
    expect(memory).toContain('<conversation_memory>');
    expect(memory).toContain('User wants a refund.');
    expect(memory).not.toMatch(/summar/i);
    expect(renderMemory(null)).toBe('');
    const block = renderRecalled(recalled(2, 2));
    expect(block.indexOf('r0 r0')).toBeLessThan(block.indexOf('r1 r1'));
    expect(block).not.toMatch(/summar/i);
    expect(renderRecalled([])).toBe('');
  });
});
