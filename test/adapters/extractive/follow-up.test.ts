import { describe, expect, it } from 'vitest';

import { createExtractiveProvider } from '../../../src/adapters/extractive/provider.js';
import { earlierQuestions, standaloneRequest } from '../../../src/adapters/extractive/follow-up.js';
import type { LLMMessage } from '../../../src/ports/llm-provider.js';

const conversation: LLMMessage[] = [
  { role: 'user', content: 'How do I configure the cache?' },
  { role: 'assistant', content: 'Pass a cache option [source: S1].' },
  { role: 'user', content: '<sources>\n<source label="S1">…</source>\n</sources>' },
  { role: 'user', content: 'And how do I turn it off?' },
];

describe('the extractive model reads a follow-up in standalone form', () => {
  it('finds the earlier questions without the data messages', () => {
    expect(earlierQuestions(conversation)).toEqual(['How do I configure the cache?']);
  });

  it('answers the question without its lead word', () => {
    const request = standaloneRequest({ messages: conversation, retrievalQuery: undefined });
    expect(request.messages.at(-1)?.content).toBe('How do I turn it off?');
    expect(request.retrievalQuery).toBeUndefined();
    const alone = { messages: [{ role: 'user' as const, content: 'And how do I turn it off?' }] };
    expect(standaloneRequest(alone)).toBe(alone);
  });

  it('adds a name asked about before to the retrieval query, beside the user’s words', () => {
    const request = standaloneRequest({
      messages: [
        { role: 'user' as const, content: 'What is the BackoffTimer?' },
        { role: 'user' as const, content: 'What is the largest delay?' },
      ],
      retrievalQuery: 'largest delay',
    });
    expect(request.messages.at(-1)?.content).toBe('What is the largest delay?');
    expect(request.retrievalQuery).toBe('BackoffTimer largest delay');
  });

  it('reads what "and which …?" asks for, and says when the quote does not hold it', async () => {
    const llm = createExtractiveProvider();
    const sources = [
      {
        label: 'S1',
        text: 'Disabling the cache is rarely needed, since the cache option is cheap.',
      },
    ];
    const messages: LLMMessage[] = [
      { role: 'user', content: 'How do I configure the cache?' },
      { role: 'assistant', content: 'Pass a cache option [source: S1].' },
      { role: 'user', content: 'And which option disables the cache?' },
    ];
    const result = await llm.generate({ messages, sources });
    // The question asks for a name; the sentence quoted names none, and the answer says so.
    expect(result.text).toMatch(/\[source: S1\]\. The sources do not name/);
  });

  it('reads a final "it" as the name asked about before', async () => {
    const llm = createExtractiveProvider();
    const sources = [
      { label: 'S1', text: 'Old calls throw in every module where the line is put.' },
      {
        label: 'S2',
        text: 'The Polyfill variant needs one line at the top of each module: `const x = require("polyfill")`.',
      },
    ];
    const messages: LLMMessage[] = [
      { role: 'user', content: 'What is the Polyfill variant?' },
      { role: 'assistant', content: 'A variant [source: S2].' },
      { role: 'user', content: 'Which line do I put in each module for it?' },
    ];
    const request = { messages, sources, retrievalQuery: 'line put module polyfill variant' };
    expect(standaloneRequest(request).messages.at(-1)?.content).toBe(
      'Which line do I put in each module for Polyfill?',
    );
    // S1 holds more of the user's words; the name makes S2, the unit about it, the answer.
    expect((await llm.generate(request)).text).toMatch(
      /^The Polyfill variant needs .*\[source: S2\]/,
    );
  });

  it('reads "that option" as the name asked about before', async () => {
    const llm = createExtractiveProvider();
    const sources = [
      {
        label: 'S1',
        text: '* **autoSelect** `boolean` - Default: `false`. Picks an address family.\n* **allowH2** `boolean` - Default: `true`. Enables support for H2.',
      },
    ];
    const messages: LLMMessage[] = [
      { role: 'user', content: 'What does the `allowH2` option do?' },
      { role: 'assistant', content: 'It enables H2 [source: S1].' },
      { role: 'user', content: 'Is that option on by default?' },
    ];
    const request = { messages, sources, retrievalQuery: 'default allowh2 option' };
    expect(standaloneRequest(request).messages.at(-1)?.content).toBe('Is allowH2 on by default?');
    // Both items state a default; the name makes the one about it the answer.
    expect((await llm.generate(request)).text).toMatch(/^\W*allowH2\b[^\n]*Default: `?true/);
  });
});
