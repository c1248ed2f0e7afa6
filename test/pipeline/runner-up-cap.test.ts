import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../src/index.js';
import type { LLMProvider } from '../../src/ports/llm-provider.js';
import { CLOSE_RUNNER_UP, scoreConfidence } from '../../src/pipeline/score.js';
import { createMockLLM } from '../../src/testing/index.js';

describe('an answer whose runner-up came close', () => {
  const docs = [
    {
      id: 'unknown',
      title: 'Unknown options',
      text: '# Unknown options by default\n\nWhat happens with unknown options by default: they are reported as an error.',
    },
    {
      id: 'unknown-config',
      title: 'Unknown config',
      text: '# Config\n\nA command config may allow unknown options, which then reach the action.',
    },
  ];
  const ask = async (runnerUp: number) => {
    const mock = createMockLLM({
      responses: {
        text: 'What happens with unknown options by default: they are reported as an error [source: S1].',
        certainty: 1,
      },
    });
    const llm: LLMProvider = {
      ...mock,
      generate: async (request) => ({ ...(await mock.generate(request)), runnerUp }),
      async *stream(request) {
        for await (const part of mock.stream(request)) {
          yield part.type === 'finish' ? { ...part, runnerUp } : part;
        }
      },
    };
    const engine = createChatEngine({ llm });
    await engine.ingest(docs);
    return engine.chat({ message: 'What happens with unknown options by default?', mode: 'query' });
  };

  it('is never high; the same answer with a distant runner-up is', async () => {
    const distant = await ask(0.5);
    expect(distant.confidence.level).toBe('high');
    expect(distant.confidence.capped).toBeUndefined();
    const close = await ask(CLOSE_RUNNER_UP);
    expect(close.text).toBe(distant.text);
    expect(close.confidence.level).toBe('medium');
    expect(close.confidence.capped).toEqual(['answer-close-runner-up']);
  });

  it('caps the score just below high', () => {
    const sources = [{ score: 0.95, documentId: 'a' }];
    const free = scoreConfidence({ sources, llmCertainty: 1, runnerUp: 0.79 });
    expect(free.level).toBe('high');
    const capped = scoreConfidence({ sources, llmCertainty: 1, runnerUp: 0.8 });
    expect(capped.level).toBe('medium');
    expect(capped.cappedAt).toBe(0.699);
  });
});
