import { describe, expect, it } from 'vitest';
import {
  NO_ANSWER_TEXT,
  NO_SOURCES_TEXT,
  createExtractiveProvider,
} from '../../../src/adapters/extractive/provider.js';
import type { LLMRequest, LLMStreamPart, PromptSource } from '../../../src/ports/llm-provider.js';

const SOURCES: PromptSource[] = [
  { label: 'S1', text: 'Refunds are issued within 14 days of the return.' },
  { label: 'S2', text: 'The warehouse is located in Rotterdam and employs forty people.' },
];

const ask = (question: string, sources: readonly PromptSource[] = SOURCES): LLMRequest => ({
  messages: [{ role: 'user', content: question }],
  sources,
});

async function finishOf(stream: AsyncIterable<LLMStreamPart>) {
  let finish: LLMStreamPart | undefined;
  for await (const part of stream) if (part.type === 'finish') finish = part;
  return finish;
}

describe('the extractive model marks its own refusals', () => {
  it('marks the no-answer and no-sources texts as refusals, in generate and in stream', async () => {
    const llm = createExtractiveProvider();
    const unrelated = await llm.generate(ask('What is the capital of France?'));
    expect(unrelated.text).toBe(NO_ANSWER_TEXT);
    expect(unrelated.refused).toBe(true);
    const none = await llm.generate(ask('How long do refunds take?', []));
    expect(none.text).toBe(NO_SOURCES_TEXT);
    expect(none.refused).toBe(true);
    expect(await finishOf(llm.stream(ask('What is the capital of France?')))).toMatchObject({
      type: 'finish',
      refused: true,
    });
  });

  it('leaves an answer unmarked', async () => {
    const llm = createExtractiveProvider();
    const answer = await llm.generate(ask('Where is the warehouse located?'));
    expect(answer.text).toContain('Rotterdam');
    expect(answer.refused).toBeUndefined();
    const finish = await finishOf(llm.stream(ask('Where is the warehouse located?')));
    expect(finish).toBeDefined();
    expect(finish).not.toHaveProperty('refused');
  });
});
