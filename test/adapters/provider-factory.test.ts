import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, providerFromEnv } from '../../src/adapters/provider-factory.js';
import { ConfigError } from '../../src/errors/index.js';
import { sendJson, startLoopback, type Loopback } from './http/loopback.js';

function configIssue(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as ConfigError).issues[0]?.path;
  }
  return undefined;
}

describe('createProvider', () => {
  it('builds each provider with its default model and a description without the key', () => {
    const openai = createProvider({ type: 'openai', apiKey: 'sk-secret-123456' });
    expect(openai.llm.metadata.model).toBe('gpt-4.1-mini');
    expect(openai.embedder?.id).toBe('openai:text-embedding-3-small:1536');
    expect(openai.description).toBe('openai gpt-4.1-mini (https://api.openai.com/v1)');
    const anthropic = createProvider({ type: 'anthropic', apiKey: 'sk-ant-secret' });
    expect(anthropic.llm.metadata).toMatchObject({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
    });
    expect(anthropic.embedder).toBeUndefined();
    expect(anthropic.description).not.toContain('secret');
    const ollama = createProvider({ type: 'ollama' });
    expect(ollama.llm.metadata.model).toBe('llama3.2');
    expect(ollama.embedder?.dimensions).toBe(768);
    expect(ollama.description).toBe('ollama llama3.2 (http://127.0.0.1:11434)');
  });

  it('throws a ConfigError when a required key or model is missing, or the type is unknown', () => {
    expect(configIssue(() => createProvider({ type: 'openai' }))).toBe('apiKey');
    expect(configIssue(() => createProvider({ type: 'openai', apiKey: '  ' }))).toBe('apiKey');
    expect(configIssue(() => createProvider({ type: 'anthropic' }))).toBe('apiKey');
    expect(
      configIssue(() => createProvider({ type: 'openai', baseURL: 'http://127.0.0.1:1234/v1' })),
    ).toBe('model');
    expect(configIssue(() => createProvider({ type: 'local' as 'openai' }))).toBe('type');
  });

  it('builds an OpenAI-compatible provider without a key; its embedder needs known dimensions', () => {
    const local = createProvider({
      type: 'openai',
      baseURL: 'http://127.0.0.1:1234/v1',
      model: 'qwen2.5-7b-instruct',
    });
    expect(local.llm.metadata.model).toBe('qwen2.5-7b-instruct');
    expect(local.embedder).toBeUndefined();
    expect(local.description).toBe('openai qwen2.5-7b-instruct (http://127.0.0.1:1234/v1)');
  });
});

describe('providerFromEnv', () => {
  it('returns null when nothing is configured (empty values count as unset)', () => {
    expect(providerFromEnv({})).toBeNull();
    expect(providerFromEnv({ OPENAI_API_KEY: '', ANTHROPIC_API_KEY: ' ' })).toBeNull();
  });

  it('prefers OpenAI, then Anthropic, then Ollama', () => {
    const all = {
      OPENAI_API_KEY: 'sk-o',
      ANTHROPIC_API_KEY: 'sk-a',
      OLLAMA_HOST: '0.0.0.0:11434',
    };
    expect(providerFromEnv(all)?.llm.name).toBe('openai');
    expect(providerFromEnv({ ...all, OPENAI_API_KEY: undefined })?.llm.name).toBe('anthropic');
    const ollama = providerFromEnv({ OLLAMA_HOST: '0.0.0.0:11434', OLLAMA_MODEL: 'qwen3:8b' });
    expect(ollama?.llm.metadata.model).toBe('qwen3:8b');
    expect(ollama?.description).toBe('ollama qwen3:8b (http://127.0.0.1:11434)');
  });

  it('reads the model variables and an OpenAI-compatible base URL', () => {
    expect(
      providerFromEnv({ OPENAI_API_KEY: 'sk-o', OPENAI_MODEL: 'gpt-4o' })?.llm.metadata,
    ).toMatchObject({ model: 'gpt-4o', contextWindow: 128_000 });
    expect(
      providerFromEnv({ ANTHROPIC_API_KEY: 'sk-a', ANTHROPIC_MODEL: 'claude-sonnet-4-5' })?.llm
        .metadata.model,
    ).toBe('claude-sonnet-4-5');
    expect(
      providerFromEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1', OPENAI_MODEL: 'llama' })
        ?.description,
    ).toBe('openai llama (http://127.0.0.1:8000/v1)');
    expect(
      configIssue(() => providerFromEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' })),
    ).toBe('model');
  });
});

describe('providerFromEnv against a loopback Ollama', () => {
  let server: Loopback;

  beforeEach(async () => {
    server = await startLoopback((_request, response) =>
      sendJson(response, 200, {
        message: { role: 'assistant', content: 'Hi.' },
        done: true,
        done_reason: 'stop',
      }),
    );
  });

  afterEach(async () => {
    await server.close();
  });

  it('talks to the host OLLAMA_HOST names', async () => {
    const provider = providerFromEnv({ OLLAMA_HOST: server.url.replace('http://', '') });
    const result = await provider!.llm.generate({ messages: [{ role: 'user', content: 'Hello' }] });
    expect(result.text).toBe('Hi.');
    expect(server.requests[0]?.path).toBe('/api/chat');
  });
});
