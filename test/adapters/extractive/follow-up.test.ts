import { describe, expect, it } from 'vitest';

import { createExtractiveProvider } from '../../../src/adapters/extractive/provider.js';
import { earlierQuestions, standaloneRequest } from '../../../src/adapters/extractive/follow-up.js';
import type { LLMMessage } from '../../../src/ports/llm-provider.js';

const conversation: LLMMessage[] = [
  { role: 'user', content: 'How do I read a file asynchronously?' },
  { role: 'assistant', content: 'Call readFile [source: S1].' },
  { role: 'user', content: '<sources>\n<source label="S1">…</source>\n</sources>' },
  { role: 'user', content: 'And synchronously?' },
];

describe('the extractive model reads a follow-up in standalone form', () => {
  it('finds the earlier questions without the data messages', () => {
    expect(earlierQuestions(conversation)).toEqual(['How do I read a file asynchronously?']);
  });

  it('completes the last user message, and leaves a standalone one alone', () => {
    const request = { messages: conversation };
    expect(standaloneRequest(request).messages.at(-1)?.content).toBe(
      'How do I read a file synchronously?',
    );
    const alone = { messages: [{ role: 'user' as const, content: 'And synchronously?' }] };
    expect(standaloneRequest(alone)).toBe(alone);
  });

  it('adds the subject a pronoun stands for to the retrieval query, beside the user’s words', () => {
    const request = standaloneRequest({
      messages: [
        { role: 'user' as const, content: 'What is the backoffFactor option?' },
        { role: 'user' as const, content: 'What is its largest value?' },
      ],
      retrievalQuery: 'largest value backofffactor',
    });
    expect(request.messages.at(-1)?.content).toBe('What is its largest value?');
    expect(request.retrievalQuery).toBe('backoffFactor largest value backofffactor');
  });

  it('answers "and synchronously?" with the synchronous call', async () => {
    const llm = createExtractiveProvider();
    const sources = [
      { label: 'S1', text: 'Work done synchronously blocks the event loop until it ends.' },
      { label: 'S2', text: 'To read a file synchronously, call `readFileSync(path)`.' },
    ];
    const result = await llm.generate({ messages: conversation, sources });
    expect(result.text).toContain('readFileSync');
    expect(result.text).not.toContain('event loop');
  });
});
