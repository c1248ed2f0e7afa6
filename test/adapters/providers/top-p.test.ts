/**
 * Issue 30 item 9 (seed 000 §5.1): `topP` on `LLMRequest` and in `createProvider`, sent by every
 * adapter that samples; `LLMMetadata` carries the seed's `type` and `supportedModels`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicChat } from '../../../src/adapters/anthropic/index.js';
import { createOllamaChat } from '../../../src/adapters/ollama/index.js';
import { createOpenAIChat } from '../../../src/adapters/openai/index.js';
import { createProvider } from '../../../src/adapters/providers/index.js';
import { ConfigError } from '../../../src/errors/index.js';
import { createChatEngine, createExtractiveProvider } from '../../../src/index.js';
import type { LLMRequest } from '../../../src/ports/llm-provider.js';
import { createMockLLM } from '../../../src/testing/mock-llm.js';
import { fixture, sendJson, startLoopback, type Loopback } from '../http/loopback.js';

const REQUEST: LLMRequest = { messages: [{ role: 'user', content: 'Why is the sky blue?' }] };

let server: Loopback;
beforeEach(async () => {
  server = await startLoopback();
});
afterEach(async () => {
  await server.close();
});

/** Answers every request with a provider's recorded reply. */
function answerWith(name: string) {
  server.handle((_request, response) => sendJson(response, 200, JSON.parse(fixture(name))));
}

describe('topP', () => {
  it('createProvider sends it as top_p from all three adapters; a request’s own wins', async () => {
    answerWith('openai-chat-completion.json');
    const openai = createProvider({
      type: 'openai',
      baseURL: `${server.url}/v1`,
      model: 'm',
      topP: 0.9,
    });
    await openai.llm.generate(REQUEST);
    await openai.llm.generate({ ...REQUEST, topP: 0.5 });
    expect(server.requests.map((request) => request.body.top_p)).toEqual([0.9, 0.5]);

    answerWith('anthropic-message.json');
    const anthropic = createProvider({
      type: 'anthropic',
      apiKey: 'k',
      baseURL: server.url,
      topP: 0.8,
    });
    await anthropic.llm.generate(REQUEST);
    expect(server.requests[2]?.body.top_p).toBe(0.8);

    answerWith('ollama-chat.json');
    const ollama = createProvider({ type: 'ollama', baseURL: server.url, topP: 0.7 });
    await ollama.llm.generate({ ...REQUEST, topP: 0.6 });
    expect(server.requests[3]?.body.options.top_p).toBe(0.6);
  });

  it('sends nothing when neither the request nor the settings set it', async () => {
    answerWith('openai-chat-completion.json');
    await createOpenAIChat({ baseURL: `${server.url}/v1`, model: 'm' }).generate(REQUEST);
    answerWith('anthropic-message.json');
    await createAnthropicChat({ apiKey: 'k', baseURL: server.url }).generate(REQUEST);
    answerWith('ollama-chat.json');
    await createOllamaChat({ host: server.url }).generate(REQUEST);
    expect(server.requests[0]?.body).not.toHaveProperty('top_p');
    expect(server.requests[1]?.body).not.toHaveProperty('top_p');
    expect(server.requests[2]?.body.options).not.toHaveProperty('top_p');
  });

  it('refuses a topP outside (0, 1], naming it', () => {
    for (const topP of [
      0,
      -0.1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '0.5' as unknown as number,
    ]) {
      expect(() => createProvider({ type: 'ollama', topP })).toThrow(ConfigError);
      expect(() => createOpenAIChat({ apiKey: 'k', topP })).toThrow(/topP/);
      expect(() => createAnthropicChat({ apiKey: 'k', topP })).toThrow(/topP/);
      expect(() => createChatEngine({ generation: { topP } })).toThrow(/generation\.topP/);
    }
  });

  it('the engine’s generation.topP reaches the model with every answer', async () => {
    const llm = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
    const engine = createChatEngine({ llm, generation: { topP: 0.85 } });
    await engine.ingest([
      { id: 'refunds', text: 'Refunds are issued within 14 days of a return.' },
    ]);
    await engine.chat({ message: 'How long do refunds take?' });
    expect(llm.calls.at(-1)?.request.topP).toBe(0.85);
    const plain = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
    const other = createChatEngine({ llm: plain });
    await other.ingest([{ id: 'refunds', text: 'Refunds are issued within 14 days of a return.' }]);
    await other.chat({ message: 'How long do refunds take?' });
    expect(plain.calls.at(-1)?.request).not.toHaveProperty('topP');
  });
});

describe('LLMMetadata type and supportedModels', () => {
  it('names the seed’s provider kind and the models each adapter knows', () => {
    const openai = createOpenAIChat({ apiKey: 'k' }).metadata;
    expect(openai.type).toBe('openai');
    expect(openai.supportedModels).toContain('gpt-4.1-mini');
    const compatible = createOpenAIChat({ baseURL: 'http://127.0.0.1:1/v1', model: 'llama' });
    expect(compatible.metadata).toMatchObject({ type: 'custom', supportedModels: ['llama'] });
    const anthropic = createAnthropicChat({ apiKey: 'k' }).metadata;
    expect(anthropic.type).toBe('anthropic');
    expect(anthropic.supportedModels).toContain('claude-haiku-4-5');
    expect(createOllamaChat({ model: 'qwen3:8b' }).metadata).toMatchObject({
      type: 'local',
      supportedModels: ['qwen3:8b'],
    });
    expect(createExtractiveProvider().metadata.type).toBe('local');
  });

  it('every listed model is one whose limits the adapter knows', () => {
    for (const model of createOpenAIChat({ apiKey: 'k' }).metadata.supportedModels ?? []) {
      // an unknown model gets the conservative 8,192-token window
      expect(createOpenAIChat({ apiKey: 'k', model }).metadata.contextWindow).toBeGreaterThan(8192);
    }
    for (const model of createAnthropicChat({ apiKey: 'k' }).metadata.supportedModels ?? []) {
      // an unknown model gets the conservative 8,192 output tokens; of the known ones only
      // Claude 3.5 has exactly that
      const { maxOutputTokens } = createAnthropicChat({ apiKey: 'k', model }).metadata;
      if (model.startsWith('claude-3-5-')) expect(maxOutputTokens).toBe(8192);
      else expect(maxOutputTokens).toBeGreaterThan(8192);
    }
  });
});
