import { describe, expect, it } from 'vitest';
import { createExtractiveProvider } from '../../../src/adapters/extractive/provider.js';
import type { LLMRequest, LLMStreamPart, PromptSource } from '../../../src/ports/llm-provider.js';

const ask = (question: string, sources: readonly PromptSource[]): LLMRequest => ({
  messages: [{ role: 'user', content: question }],
  sources,
});

async function finishOf(stream: AsyncIterable<LLMStreamPart>) {
  let finish: LLMStreamPart | undefined;
  for await (const part of stream) if (part.type === 'finish') finish = part;
  return finish;
}

describe('the extractive model reports how close its runner-up came', () => {
  const llm = createExtractiveProvider();

  it('is near 1 when another unit answers about as well as the one quoted', async () => {
    const request = ask('How long do refunds take?', [
      { label: 'S1', text: 'Refunds take 14 days.' },
      { label: 'S2', text: 'Refunds take 30 days for gift cards.' },
    ]);
    const result = await llm.generate(request);
    expect(result.runnerUp).toBeGreaterThanOrEqual(0.8);
    const finish = await finishOf(llm.stream(request));
    expect(finish?.type === 'finish' && finish.runnerUp).toBe(result.runnerUp);
  });

  it('is 0 when no other unit answers, and absent on a refusal', async () => {
    const sources = [
      { label: 'S1', text: 'Refunds take 14 days.' },
      { label: 'S2', text: 'The warehouse is located in Rotterdam.' },
    ];
    const result = await llm.generate(ask('How long do refunds take?', sources));
    expect(result.text).toContain('14 days');
    expect(result.runnerUp).toBe(0);
    const refusal = await llm.generate(ask('What is the capital of France?', sources));
    expect(refusal.refused).toBe(true);
    expect(refusal.runnerUp).toBeUndefined();
  });

  it('does not change the answer text', async () => {
    const request = ask('How long do refunds take?', [
      { label: 'S1', text: 'Refunds take 14 days.' },
      { label: 'S2', text: 'Refunds take 30 days for gift cards.' },
    ]);
    expect((await llm.generate(request)).text).toBe('Refunds take 14 days [source: S1].');
  });
});
