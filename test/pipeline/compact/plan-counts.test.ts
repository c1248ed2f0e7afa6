import { messageRecord } from '../../util/helpers.js';
import { describe, expect, it } from 'vitest';
import { messageTokens, planCompaction } from '../../../src/pipeline/compact/plan.js';
import { CHAT_PROFILES } from '../../../src/pipeline/compact/profiles.js';
import type { Tokenizer } from '../../../src/ports/tokenizer.js';

/** A tokenizer of one token per word that records every text it counts. */
function countingTokenizer(): Tokenizer & { counted: string[] } {
  const counted: string[] = [];
  return {
    name: 'words',
    counted,
    count(text) {
      counted.push(text);
      return text.split(/\s+/).filter(Boolean).length;
    },
    encode: (text) => text.split(/\s+/).map((_, index) => index),
    decode: () => '',
  };
}

describe('compaction plan: token counts of stored history', () => {
  it('counts a frozen stored message once, however many turns plan over it', () => {
    const tokenizer = countingTokenizer();
    const history = Array.from({ length: 6 }, (_, i) => Object.freeze(messageRecord(i)));
    const first = planCompaction(history, CHAT_PROFILES.default, tokenizer);
    const countedOnce = tokenizer.counted.length;
    const second = planCompaction(history, CHAT_PROFILES.default, tokenizer);
    expect(countedOnce).toBe(6);
    expect(tokenizer.counted).toHaveLength(6);
    expect(second).toEqual(first);
    expect(first.historyTokens).toBe(6 * (3 + 4));
  });

  it('counts a message that is not frozen every time, and each tokenizer on its own', () => {
    const words = countingTokenizer();
    const other = { ...countingTokenizer(), count: (text: string) => text.length };
    const open = messageRecord(1);
    expect(messageTokens(open, words)).toBe(3 + 4);
    (open as { content: string }).content = 'changed';
    expect(messageTokens(open, words)).toBe(1 + 4);
    const frozen = Object.freeze(messageRecord(2));
    expect(messageTokens(frozen, words)).toBe(3 + 4);
    expect(messageTokens(frozen, other)).toBe('message number 2'.length + 4);
  });
});
