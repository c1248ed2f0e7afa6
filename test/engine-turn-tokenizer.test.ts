import { describe, expect, it } from 'vitest';
import { createGptTokenizer } from '../src/adapters/tokenizer/gpt-tokenizer.js';
import { createChatEngine } from '../src/index.js';
import type { Tokenizer } from '../src/ports/tokenizer.js';
import { handbook } from './fixtures/handbook.js';

/** The tokenizer with `piecewise` as given, recording every text it is asked to count. */
function recording(tokenizer: Tokenizer, piecewise: boolean): Tokenizer & { texts: string[] } {
  const texts: string[] = [];
  return {
    name: tokenizer.name,
    piecewise,
    texts,
    count(text: string) {
      texts.push(text);
      return tokenizer.count(text);
    },
    encode: (text: string) => tokenizer.encode(text),
    decode: (tokens: readonly number[]) => tokenizer.decode(tokens),
  };
}

/** The prompt tokens a query turn reports, the sources' texts, and the texts the tokenizer counted during it. */
async function turn(tokenizer: Tokenizer & { texts: string[] }, message: string) {
  const engine = createChatEngine({ tokenizer });
  await engine.ingest(handbook);
  let promptTokens: unknown;
  engine.on('metrics', (event) => {
    if (event.phase === 'generate') promptTokens = event.detail?.['promptTokens'];
  });
  tokenizer.texts.length = 0;
  const reply = await engine.chat({ message, mode: 'query' });
  const hits = await engine.search(message);
  return {
    promptTokens,
    reply,
    counted: [...tokenizer.texts],
    chunkTexts: hits.map((hit) => hit.text),
  };
}

describe('the turn tokenizer', () => {
  it('counts a piecewise tokenizer’s texts piece by piece, with the same counts', async () => {
    const gpt = await createGptTokenizer();
    const message = 'What is the refund policy?';
    const whole = await turn(recording(gpt, false), message);
    const pieces = await turn(recording(gpt, true), message);

    expect(whole.reply.sources.length).toBeGreaterThan(0);
    expect(pieces.reply.text).toBe(whole.reply.text);
    expect(typeof whole.promptTokens).toBe('number');
    expect(pieces.promptTokens).toBe(whole.promptTokens);
    // Counted whole without `piecewise`, never whole with it: only its pieces are encoded.
    const long = whole.chunkTexts.filter((text) => text.length >= 64);
    expect(long.length).toBeGreaterThan(0);
    expect(whole.counted.some((text) => long.includes(text))).toBe(true);
    expect(pieces.counted.some((text) => long.includes(text))).toBe(false);
  });
});
