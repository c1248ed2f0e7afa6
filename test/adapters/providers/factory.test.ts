import { describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/adapters/providers/index.js';
import { ConfigError } from '../../../src/errors/index.js';

/** The ConfigError an action throws (fails the test when it throws something else or nothing). */
function configError(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('createProvider', () => {
  it('builds each provider with its default model and a description without the key', () => {
    const openai = createProvider({ type: 'openai', apiKey: 'sk-secret-123456' });
    expect(openai.type).toBe('openai');
    expect(openai.llm.metadata.model).toBe('gpt-4.1-mini');
    expect(openai.embedder?.id).toBe('openai:text-embedding-3-small:1536');
    expect(openai.description).toBe('openai gpt-4.1-mini (https://api.openai.com/v1)');
    const anthropic = createProvider({ type: 'anthropic', apiKey: 'sk-ant-secret' });
    expect(anthropic.llm.metadata).toMatchObject({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
    });
    expect(anthropic.embedder).toBeUndefined();
    expect(anthropic.description).toBe('anthropic claude-haiku-4-5 (https://api.anthropic.com)');
    const ollama = createProvider({ type: 'ollama' });
    expect(ollama.llm.metadata.model).toBe('llama3.2');
    expect(ollama.embedder?.dimensions).toBe(768);
    expect(ollama.description).toBe('ollama llama3.2 (http://127.0.0.1:11434)');
  });

  it('throws a ConfigError when a required key or model is missing, or the type is unknown', () => {
    const noKey = configError(() => createProvider({ type: 'openai' }));
    expect(noKey.issues[0]?.path).toBe('apiKey');
    expect(noKey.message).toBe('The openai provider needs an API key: set apiKey');
    expect(
      configError(() => createProvider({ type: 'openai', apiKey: '  ' })).issues[0]?.path,
    ).toBe('apiKey');
    expect(configError(() => createProvider({ type: 'anthropic' })).issues[0]?.path).toBe('apiKey');
    const noModel = configError(() =>
      createProvider({ type: 'openai', baseURL: 'http://127.0.0.1:1234/v1' }),
    );
    expect(noModel.issues[0]?.path).toBe('model');
    expect(noModel.message).toContain('http://127.0.0.1:1234/v1');
    const unknown = configError(() => createProvider({ type: 'local' as 'openai' }));
    expect(unknown.issues[0]).toEqual({
      path: 'type',
      message: 'must be one of openai, anthropic, ollama',
    });
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

  it('leaves credentials and query strings of a base URL out of the description', () => {
    const proxied = createProvider({
      type: 'openai',
      baseURL: 'https://user:hunter2@proxy.example/v1?api-key=sk-secret',
      model: 'gpt-4o',
    });
    expect(proxied.description).toBe('openai gpt-4o (https://proxy.example/v1)');
  });
});
