import { describe, expect, it } from 'vitest';
import { createChatEngine } from '../../src/index.js';
import { checkAnswerShape } from '../../src/pipeline/answer-shape.js';
import { MISSING_TERM_TOP_SCORE } from '../../src/pipeline/guard-focus.js';
import type { LLMProvider } from '../../src/ports/llm-provider.js';
import { CLOSE_RUNNER_UP, focusMissingRefuses, scoreConfidence } from '../../src/pipeline/score.js';
import { createMockLLM } from '../../src/testing/index.js';

describe('checkAnswerShape', () => {
  it('finds an answer that restates the question', () => {
    expect(
      checkAnswerShape(
        'How do I give an option a default value?',
        'You can specify a default value for an option [source: S1].',
      ),
    ).toEqual({
      intents: ['value', 'how-to'],
      holds: false,
      belowTop: false,
      restates: true,
      lacksFocus: [],
    });
  });

  it('does not take a one-word answer that names a name or a value for a restatement', () => {
    const asked = 'Which error type corresponds to a 401 status code?';
    expect(checkAnswerShape(asked, '401 — AuthenticationError [source: S1].')?.restates).toBe(
      false,
    );
    expect(checkAnswerShape(asked, 'The 401 status code [source: S1].')?.restates).toBe(true);
    expect(checkAnswerShape('What is the default port?', 'The port: 8080.')?.restates).toBe(false);
    expect(checkAnswerShape('Which setting?', `${'a'.repeat(20_000)}.`)?.restates).toBe(true);
  });

  it('lists the focus words of a question the answer leaves out, counting the cited headings', () => {
    const question = 'Which library does fast-glob use for pattern matching?';
    const answer = "It's a very fast and efficient glob library for Node.js [source: S2].";
    expect(checkAnswerShape(question, answer)?.lacksFocus).toEqual(['pattern', 'match']);
    expect(checkAnswerShape(question, answer, 'README.md\nfast-glob\nPattern matching')).toEqual(
      expect.objectContaining({ lacksFocus: [] }),
    );
    // a claim to check is not a question: its words are the judge's to check
    expect(checkAnswerShape('fast-glob uses micromatch for matching.', answer)?.lacksFocus).toEqual(
      [],
    );
  });

  it('keeps an answer lacking a focus word of its question below high', () => {
    const sources = [{ documentId: 'a', chunkId: 'a#0', text: 'x', score: 0.99 }];
    const base = { sources, llmCertainty: 1 };
    expect(scoreConfidence(base).level).toBe('high');
    const capped = scoreConfidence({ ...base, answerLacksFocus: true });
    expect(capped.level).toBe('medium');
    expect(capped.capped).toEqual(['answer-lacks-focus']);
  });

  it('finds an answer that leads with a source below the top one', () => {
    const question = 'What happens with unknown options?';
    const below = 'Unknown options are ignored [source: S2]. They are kept [source: S1].';
    expect(checkAnswerShape(question, below, '', 'S1')).toEqual(
      expect.objectContaining({ belowTop: true, holds: true }),
    );
    const top = 'Unknown options are ignored [source: S1]. They are kept [source: S2].';
    expect(checkAnswerShape(question, top, '', 'S1')).toEqual(
      expect.objectContaining({ belowTop: false, holds: true }),
    );
    // no ranked sources named, or no citation: nothing to compare
    expect(checkAnswerShape(question, below)?.belowTop).toBe(false);
    expect(checkAnswerShape(question, 'Unknown options are ignored.', '', 'S1')?.belowTop).toBe(
      false,
    );
  });

  it('finds a how-to answered without a command, code or instruction', () => {
    const shape = checkAnswerShape(
      'How do I enable colours?',
      'Colours in the program are enabled by the theme [source: S1].',
    );
    expect(shape?.holds).toBe(false);
    expect(shape?.restates).toBe(false);
    for (const answer of [
      'Pass `--color` on the command line [source: S1].',
      'Scan the QR code on the handlebar to enable colours [source: S1].',
      'Call chalk.level = 3 first [source: S1].',
      'Run it like this [source: S1]:\n\n```sh\nFORCE_COLOR=1 node app.js\n```',
    ]) {
      expect(checkAnswerShape('How do I enable colours?', answer)?.holds).toBe(true);
    }
  });

  it('finds a default asked for and no value given', () => {
    const question = 'What is the default timeout of the client?';
    expect(checkAnswerShape(question, 'The client has a timeout option [source: S1].')?.holds).toBe(
      false,
    );
    expect(checkAnswerShape(question, 'Default: `4e3` milliseconds [source: S1].')?.holds).toBe(
      true,
    );
  });

  it('says nothing about a refusal, and survives hostile text', () => {
    expect(checkAnswerShape('How do I x?', 'I don’t know.')).toBeUndefined();
    expect(checkAnswerShape('How do I x?', '   ')).toBeUndefined();
    for (const text of ['\u0000\ud800', '\n'.repeat(100_000), '['.repeat(100_000)]) {
      expect(checkAnswerShape(`How do I ${text}?`, `Do ${text}`)).toBeDefined();
    }
  });
});

describe('scoreConfidence: an answer that lacks what was asked', () => {
  const sources = [{ score: 1, documentId: 'a' }];
  it('is never high, and low when it restates the question; the breakdown says why', () => {
    const plain = scoreConfidence({ sources, llmCertainty: 1 });
    expect(plain.level).toBe('high');
    expect(plain.capped).toBeUndefined();
    const lacks = scoreConfidence({ sources, llmCertainty: 1, answerLacks: 'asked-for' });
    expect(lacks.level).toBe('medium');
    expect(lacks.capped).toEqual(['answer-lacks-asked-for']);
    const restates = scoreConfidence({ sources, llmCertainty: 1, answerLacks: 'restates' });
    expect(restates.level).toBe('low');
    expect(restates.capped).toEqual(['answer-restates-question']);
    const offFocus = scoreConfidence({ sources, llmCertainty: 0.4, focusMissing: true });
    expect(offFocus.level).toBe('low');
    expect(offFocus.capped).toEqual(['question-focus-missing']);
    // a model that covers the question well despite the missing word (a paraphrase) keeps it
    const covered = scoreConfidence({ sources, llmCertainty: 0.7, focusMissing: true });
    expect(covered.capped).toBeUndefined();
    // … unless the best source is as weak as the guard's bound for missing words
    const weak = [{ ...sources[0]!, score: MISSING_TERM_TOP_SCORE - 0.01 }];
    const weakFocus = scoreConfidence({ sources: weak, llmCertainty: 0.7, focusMissing: true });
    expect(weakFocus.level).toBe('low');
    expect(weakFocus.cappedAt).toBe(0.399);
    expect(focusMissingRefuses(0.7, MISSING_TERM_TOP_SCORE)).toBe(false);
    expect(focusMissingRefuses(0.7, MISSING_TERM_TOP_SCORE - 0.01)).toBe(true);
    expect(focusMissingRefuses(0.5, 0.9)).toBe(true);
    const both = scoreConfidence({ sources, llmCertainty: 1, supportedRatio: 0 });
    expect(both.capped).toEqual(['unsupported-claims']);
  });
});

describe('a turn whose answer leads with a source below the top one', () => {
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
  // `runnerUp`: how close the model says its runner-up quote came.
  const ask = async (label: string, runnerUp?: number) => {
    const answer = `What happens with unknown options by default: they are reported as an error [source: ${label}].`;
    const mock = createMockLLM({ responses: { text: answer, certainty: 1 } });
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
  it('is never high; the same answer led by the top source is', async () => {
    const top = await ask('S1');
    expect(top.sources[0]?.documentId).toBe('unknown');
    expect(top.confidence.level).toBe('high');
    expect(top.confidence.capped).toBeUndefined();
    const below = await ask('S2');
    expect(below.confidence.level).toBe('medium');
    expect(below.confidence.capped).toEqual(['answer-below-top-source']);
  });
  it('nor is an answer whose runner-up came close; one with a distant runner-up is', async () => {
    const distant = await ask('S1', 0.5);
    expect(distant.confidence.level).toBe('high');
    expect(distant.confidence.capped).toBeUndefined();
    const close = await ask('S1', CLOSE_RUNNER_UP);
    expect(close.text).toBe(distant.text);
    expect(close.confidence.level).toBe('medium');
    expect(close.confidence.capped).toEqual(['answer-close-runner-up']);
    const sources = [{ score: 0.95, documentId: 'a' }];
    expect(scoreConfidence({ sources, llmCertainty: 1, runnerUp: 0.79 }).level).toBe('high');
    const capped = scoreConfidence({ sources, llmCertainty: 1, runnerUp: CLOSE_RUNNER_UP });
    expect([capped.level, capped.cappedAt]).toEqual(['medium', 0.699]);
  });
});

describe('a turn whose answer restates the question', () => {
  const docs = [
    {
      id: 'options',
      title: 'Options',
      text: '# Options\n\nYou can specify a default value for an option. Options are declared with flags.',
    },
  ];
  it('is rated low, whatever model wrote it', async () => {
    const restating = 'You can specify a default value for an option [source: S1].';
    const engine = createChatEngine({ llm: createMockLLM({ responses: restating }) });
    await engine.ingest(docs);
    const reply = await engine.chat({
      message: 'How do I give an option a default value?',
      mode: 'query',
    });
    expect(reply.text).toBe(restating);
    expect(reply.confidence.level).toBe('low');
    expect(reply.confidence.capped).toEqual(['answer-restates-question']);

    const answering =
      "Pass it as the third argument: `.option('-c', 'cheese', 'blue')` [source: S1].";
    const other = createChatEngine({ llm: createMockLLM({ responses: answering }) });
    await other.ingest(docs);
    const good = await other.chat({
      message: 'How do I give an option a default value?',
      mode: 'query',
    });
    expect(good.confidence.capped).toBeUndefined();
  });
});
