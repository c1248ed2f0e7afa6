import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { providerFromEnv } from '../../../src/adapters/providers/index.js';
import { ConfigError } from '../../../src/errors/index.js';
import { sendJson, startLoopback, type Loopback } from '../http/loopback.js';

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

let server: Loopback | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await server?.close();
  server = undefined;
});

describe('providerFromEnv: which provider', () => {
  it('returns null when nothing is configured (empty and blank values count as unset)', () => {
    expect(providerFromEnv({})).toBeNull();
    expect(
      providerFromEnv({ OPENAI_API_KEY: '', OPENAI_BASE_URL: ' ', ANTHROPIC_API_KEY: ' ' }),
    ).toBeNull();
    // A model alone names no provider.
    expect(providerFromEnv({ OPENAI_MODEL: 'gpt-4o', OLLAMA_MODEL: 'qwen3:8b' })).toBeNull();
  });

  it('OPENAI_API_KEY alone: OpenAI with its default model', () => {
    const provider = providerFromEnv({ OPENAI_API_KEY: 'sk-secret-openai' })!;
    expect(provider.type).toBe('openai');
    expect(provider.llm.metadata.model).toBe('gpt-4.1-mini');
    expect(provider.description).toBe('openai gpt-4.1-mini (https://api.openai.com/v1)');
    expect(provider.reason).toBe('OPENAI_API_KEY is set');
    expect(
      providerFromEnv({ OPENAI_API_KEY: 'sk-o', OPENAI_MODEL: 'gpt-4o' })?.llm.metadata,
    ).toMatchObject({ model: 'gpt-4o', contextWindow: 128_000 });
  });

  it('OPENAI_BASE_URL + OPENAI_MODEL without a key: an OpenAI-compatible server', () => {
    const provider = providerFromEnv({
      OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
      OPENAI_MODEL: 'llama',
    })!;
    expect(provider.type).toBe('openai');
    expect(provider.description).toBe('openai llama (http://127.0.0.1:8000/v1)');
    expect(provider.reason).toBe(
      'OPENAI_BASE_URL is set (an OpenAI-compatible server, no OPENAI_API_KEY)',
    );
    const both = providerFromEnv({
      OPENAI_API_KEY: 'sk-o',
      OPENAI_BASE_URL: 'https://gateway.example/v1',
      OPENAI_MODEL: 'm',
    })!;
    expect(both.reason).toBe('OPENAI_API_KEY and OPENAI_BASE_URL are set');
  });

  it('OPENAI_BASE_URL without OPENAI_MODEL: a ConfigError naming OPENAI_MODEL, not a fall-through', () => {
    const error = configError(() =>
      providerFromEnv({
        OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
        ANTHROPIC_API_KEY: 'sk-ant',
      }),
    );
    expect(error.issues[0]?.path).toBe('OPENAI_MODEL');
    expect(error.message).toBe(
      'An OpenAI-compatible server (http://127.0.0.1:8000/v1) needs a model: set OPENAI_MODEL',
    );
  });

  it('ANTHROPIC_API_KEY: Anthropic, with ANTHROPIC_MODEL and ANTHROPIC_BASE_URL', () => {
    const provider = providerFromEnv({
      ANTHROPIC_API_KEY: 'sk-ant-secret',
      ANTHROPIC_MODEL: 'claude-sonnet-4-5',
      ANTHROPIC_BASE_URL: 'https://proxy.example',
    })!;
    expect(provider.type).toBe('anthropic');
    expect(provider.description).toBe('anthropic claude-sonnet-4-5 (https://proxy.example)');
    expect(provider.reason).toBe('ANTHROPIC_API_KEY is set');
  });

  it('OLLAMA_HOST: Ollama, written as Ollama accepts it', () => {
    const ollama = providerFromEnv({ OLLAMA_HOST: '0.0.0.0:11434', OLLAMA_MODEL: 'qwen3:8b' })!;
    expect(ollama.type).toBe('ollama');
    expect(ollama.llm.metadata.model).toBe('qwen3:8b');
    expect(ollama.description).toBe('ollama qwen3:8b (http://127.0.0.1:11434)');
    expect(ollama.reason).toBe('OLLAMA_HOST is set');
  });

  it('precedence: OpenAI (key or base URL), then Anthropic, then Ollama', () => {
    const all = {
      OPENAI_API_KEY: 'sk-o',
      ANTHROPIC_API_KEY: 'sk-a',
      OLLAMA_HOST: '0.0.0.0:11434',
    };
    expect(providerFromEnv(all)?.type).toBe('openai');
    expect(providerFromEnv({ ...all, OPENAI_API_KEY: undefined })?.type).toBe('anthropic');
    expect(providerFromEnv({ ...all, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' })?.type).toBe(
      'ollama',
    );
    const localFirst = {
      ...all,
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1',
      OPENAI_MODEL: 'llama',
    };
    expect(providerFromEnv(localFirst)?.type).toBe('openai');
  });

  it('never puts a key in description or reason', () => {
    const env = {
      OPENAI_API_KEY: 'sk-secret-openai-value',
      OPENAI_BASE_URL: 'https://user:sk-secret-in-url@gateway.example/v1?key=sk-secret-query',
      OPENAI_MODEL: 'gpt-4o',
    };
    const provider = providerFromEnv(env)!;
    const said = `${provider.description} ${provider.reason}`;
    expect(said).not.toMatch(/secret/);
    expect(provider.description).toBe('openai gpt-4o (https://gateway.example/v1)');
  });

  it('reads only the environment it is given, never process.env', () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-from-process');
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-from-process');
    vi.stubEnv('OLLAMA_HOST', '127.0.0.1:11434');
    expect(providerFromEnv({})).toBeNull();
  });
});

describe('providerFromEnv options', () => {
  it('type builds that provider from its own variables, skipping the precedence order', () => {
    const env = { OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: 'sk-a', ANTHROPIC_MODEL: 'claude-x' };
    const anthropic = providerFromEnv(env, { type: 'anthropic' })!;
    expect(anthropic.type).toBe('anthropic');
    expect(anthropic.llm.metadata.model).toBe('claude-x');
    expect(anthropic.reason).toBe("type 'anthropic' was requested");
    // Built with its defaults when none of its variables is set.
    expect(providerFromEnv({}, { type: 'ollama' })?.description).toBe(
      'ollama llama3.2 (http://127.0.0.1:11434)',
    );
    const noKey = configError(() => providerFromEnv({}, { type: 'openai' }));
    expect(noKey.issues[0]?.path).toBe('OPENAI_API_KEY');
    expect(noKey.message).toBe('The openai provider needs an API key: set OPENAI_API_KEY');
    expect(
      configError(() => providerFromEnv({}, { type: 'local' as 'openai' })).issues[0]?.path,
    ).toBe('type');
  });

  it('model overrides the *_MODEL variable and satisfies a compatible server', () => {
    expect(
      providerFromEnv({ OPENAI_API_KEY: 'sk-o', OPENAI_MODEL: 'gpt-4o' }, { model: 'o3' })?.llm
        .metadata.model,
    ).toBe('o3');
    expect(
      providerFromEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' }, { model: 'flag' })
        ?.description,
    ).toBe('openai flag (http://127.0.0.1:8000/v1)');
    expect(providerFromEnv({}, { model: 'flag' })).toBeNull();
  });
});

describe('providerFromEnv against loopback servers', () => {
  it('talks to the OpenAI-compatible server OPENAI_BASE_URL names, without a key', async () => {
    const stream = await readFile(
      join(import.meta.dirname, '../../fixtures/providers/openai-chat-stream.sse'),
      'utf8',
    );
    server = await startLoopback((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(stream);
    });
    const provider = providerFromEnv({
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_MODEL: 'local-model',
    })!;
    let text = '';
    for await (const part of provider.llm.stream({
      messages: [{ role: 'user', content: 'Hello' }],
    })) {
      if (part.type === 'text-delta') text += part.text;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.body).toMatchObject({ model: 'local-model' });
  });

  it('talks to the host OLLAMA_HOST names', async () => {
    server = await startLoopback((_request, response) =>
      sendJson(response, 200, {
        message: { role: 'assistant', content: 'Hi.' },
        done: true,
        done_reason: 'stop',
      }),
    );
    const provider = providerFromEnv({ OLLAMA_HOST: server.url.replace('http://', '') });
    const result = await provider!.llm.generate({ messages: [{ role: 'user', content: 'Hello' }] });
    expect(result.text).toBe('Hi.');
    expect(server.requests[0]?.path).toBe('/api/chat');
  });
});

describe('providerFromEnv: seed 000 LLM_PROVIDER', () => {
  it('LLM_PROVIDER=anthropic with both keys set picks Anthropic, saying why', () => {
    const provider = providerFromEnv({
      OPENAI_API_KEY: 'sk-o',
      ANTHROPIC_API_KEY: 'sk-ant',
      LLM_PROVIDER: 'anthropic',
    })!;
    expect(provider.type).toBe('anthropic');
    expect(provider.reason).toBe("LLM_PROVIDER is 'anthropic'");
    expect(provider.reason).not.toContain('sk-');
    // Without it, the precedence order still picks OpenAI.
    expect(providerFromEnv({ OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: 'sk-ant' })!.type).toBe(
      'openai',
    );
  });

  it('`local` is Ollama, any case; LLM_MODEL is the model unless the provider’s own is set', () => {
    const local = providerFromEnv({ LLM_PROVIDER: 'Local', LLM_MODEL: 'qwen3:8b' })!;
    expect(local.type).toBe('ollama');
    expect(local.llm.metadata.model).toBe('qwen3:8b');
    const own = providerFromEnv({
      LLM_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'k',
      ANTHROPIC_MODEL: 'claude-own',
      LLM_MODEL: 'claude-seed',
    })!;
    expect(own.llm.metadata.model).toBe('claude-own');
    const seeded = providerFromEnv({
      LLM_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'k',
      LLM_MODEL: 'claude-seed',
    })!;
    expect(seeded.llm.metadata.model).toBe('claude-seed');
  });

  it('the type option wins over LLM_PROVIDER', () => {
    const provider = providerFromEnv(
      { LLM_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'sk-o' },
      { type: 'openai' },
    )!;
    expect(provider.type).toBe('openai');
  });

  it('names a missing key of the provider LLM_PROVIDER asks for, not another one', () => {
    const error = configError(() =>
      providerFromEnv({ LLM_PROVIDER: 'anthropic', OPENAI_API_KEY: 'sk-o' }),
    );
    expect(error.message).toContain('ANTHROPIC_API_KEY');
  });

  it('refuses an unknown or hostile value, naming LLM_PROVIDER without echoing the value', () => {
    for (const value of [
      'gemini',
      'sk-secret-123',
      'a\u0000b',
      '\uD800',
      'x'.repeat(100_000),
      '__proto__',
    ]) {
      const error = configError(() => providerFromEnv({ LLM_PROVIDER: value }));
      expect(error.issues[0]?.path).toBe('LLM_PROVIDER');
      expect(error.message).not.toContain(value);
    }
  });
});
