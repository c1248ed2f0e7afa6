import { describe, expect, it } from 'vitest';
import {
  NO_ANSWER_TEXT,
  NO_SOURCES_TEXT,
  composeAnswer,
  createExtractiveProvider,
  splitDeltas,
  stem,
} from '../../../src/adapters/extractive/provider.js';
import { createGptTokenizer } from '../../../src/adapters/tokenizer/gpt-tokenizer.js';
import { AbortError, ValidationError } from '../../../src/errors/index.js';
import type { LLMRequest, LLMStreamPart, PromptSource } from '../../../src/ports/llm-provider.js';

const SOURCES: PromptSource[] = [
  {
    label: 'S1',
    title: 'Handbook',
    text:
      '# Refunds\n\nRefunds are issued within 14 days of the return. ' +
      'Our office is closed on Sundays.',
  },
  {
    label: 'S2',
    title: 'Digital',
    text:
      'Digital goods are refunded within 48 hours of purchase. Shipping takes 5 days.\n\n' +
      '- Gift cards cannot be refunded',
  },
  { label: 'S3', text: 'The warehouse is located in Rotterdam and employs forty people.' },
];

function ask(question: string, sources: readonly PromptSource[] = SOURCES): LLMRequest {
  return { messages: [{ role: 'user', content: question }], sources };
}

async function collect(stream: AsyncIterable<LLMStreamPart>): Promise<LLMStreamPart[]> {
  const parts: LLMStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function deltasOf(parts: readonly LLMStreamPart[]): string[] {
  return parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : []));
}

/** Answer sentences with the label each cites. */
function citedSentences(text: string): { sentence: string; label: string }[] {
  return [...text.matchAll(/([^.!?]*?)\s*\[source: (S\d+)\]/g)].map((match) => ({
    sentence: match[1]!.trim(),
    label: match[2]!,
  }));
}

describe('createExtractiveProvider', () => {
  it('describes itself', () => {
    const llm = createExtractiveProvider({ contextWindow: 8192 });
    expect(llm.name).toBe('extractive');
    expect(llm.specificationVersion).toBe('v1');
    expect(llm.metadata).toEqual({
      provider: 'extractive',
      model: 'extractive-v1',
      type: 'local',
      supportedModels: ['extractive-v1'],
      contextWindow: 8192,
      followsInstructions: false,
    });
    expect(createExtractiveProvider().metadata.contextWindow).toBe(16384);
  });

  it('quotes the most relevant sentence and cites its source before the final period', async () => {
    const result = await createExtractiveProvider().generate(ask('Can gift cards be refunded?'));
    expect(result.text).toBe('Gift cards cannot be refunded [source: S2].');
    expect(result.finishReason).toBe('stop');
    expect(result.certainty).toBe(1);
  });

  it('cites for each sentence the source that contains it', async () => {
    const result = await createExtractiveProvider().generate(
      ask('Where are the warehouse and the office?'),
    );
    const cited = citedSentences(result.text);
    expect(cited.map((item) => item.label)).toEqual(['S1', 'S3']);
    for (const { sentence, label } of cited) {
      const source = SOURCES.find((item) => item.label === label)!;
      expect(source.text).toContain(sentence);
    }
    // Sources arrive best first: on equal scores the earlier source leads.
    expect(cited[0]!.label).toBe('S1');
  });

  it('matches inflected forms of the question terms', async () => {
    const result = await createExtractiveProvider().generate(ask('How long do refunds take?'));
    expect(
      result.text.startsWith('Refunds are issued within 14 days of the return [source: S1].'),
    ).toBe(true);
    expect(stem('refunds')).toBe(stem('refunded'));
    expect(stem('policies')).toBe(stem('policy'));
    expect(stem('issued')).toBe(stem('issue'));
  });

  it('quotes at most maxSentences sentences and never the same sentence twice', async () => {
    const repeated = [
      {
        label: 'S1',
        text:
          'Refunds are issued within 14 days of the return. Refunds are issued within 14 days ' +
          'of the return. Refunds of gift cards are refused. Refunds of digital goods are partial.',
      },
    ];
    const llm = createExtractiveProvider({ maxSentences: 2 });
    const result = await llm.generate(ask('refund refunded refunds', repeated));
    const cited = citedSentences(result.text);
    expect(cited).toHaveLength(2);
    expect(new Set(cited.map((item) => item.sentence)).size).toBe(2);
  });

  it('says honestly that the sources do not answer an unrelated question', async () => {
    const result = await createExtractiveProvider().generate(ask('What is the capital of France?'));
    expect(result.text).toBe(NO_ANSWER_TEXT);
    expect(result.text).not.toContain('[source:');
    expect(result.certainty).toBe(0);
  });

  it('gives higher certainty when the quoted sentences cover more of the question', async () => {
    const llm = createExtractiveProvider();
    const full = await llm.generate(ask('Where is the warehouse located?'));
    const partial = await llm.generate(ask('Where is the warehouse of the Paris office?'));
    expect(full.certainty).toBe(1);
    expect(partial.certainty).toBeGreaterThan(0);
    expect(partial.certainty).toBeLessThan(full.certainty!);
  });

  it('answers the last user message of a conversation', async () => {
    const result = await createExtractiveProvider().generate({
      sources: SOURCES,
      messages: [
        { role: 'user', content: 'Where is the warehouse?' },
        { role: 'assistant', content: 'In Rotterdam [source: S3].' },
        { role: 'user', content: 'And what about digital goods?' },
      ],
    });
    expect(result.text).toBe(
      'Digital goods are refunded within 48 hours of purchase [source: S2].',
    );
  });

  it('summarises the sources, with citations, when asked for a summary of them', async () => {
    const result = await createExtractiveProvider().generate(ask('Summarize the documents.'));
    const cited = citedSentences(result.text);
    expect(cited.length).toBeGreaterThan(1);
    for (const { sentence, label } of cited) {
      expect(SOURCES.find((item) => item.label === label)!.text).toContain(sentence);
    }
  });

  it('without sources, answers small talk and otherwise says it answers only from documents', async () => {
    const llm = createExtractiveProvider();
    const hello = await llm.generate({ messages: [{ role: 'user', content: 'Hi there!' }] });
    expect(hello.text).toMatch(/^Hello/);
    const other = await llm.generate({ messages: [{ role: 'user', content: 'What is 2 + 2?' }] });
    expect(other.text).toBe(NO_SOURCES_TEXT);
    expect(other.text).not.toContain('[source:');
  });

  it('summarises the conversation itself when the system prompt asks for a summary', async () => {
    const conversation: LLMRequest = {
      system: 'Summarize the conversation so far in a few sentences.',
      messages: [
        { role: 'user', content: 'What is the refund policy for physical goods?' },
        {
          role: 'assistant',
          content:
            'Refunds for physical goods are issued within 14 days [source: S1]. ' +
            'Refunds go back to the original card.',
        },
        { role: 'user', content: 'How long does shipping to Canada take?' },
        {
          role: 'assistant',
          content:
            'Shipping to Canada takes 5 to 7 business days. Customs fees are paid by the buyer.',
        },
        { role: 'user', content: 'Please summarize our chat.' },
      ],
    };
    const llm = createExtractiveProvider({ maxSummarySentences: 3 });
    const result = await llm.generate(conversation);
    expect(result.text).not.toContain('[source:');
    expect(result.text).not.toContain('summarize');
    const sentences = result.text.split(/(?<=\.)\s+/);
    expect(sentences.length).toBeGreaterThan(0);
    expect(sentences.length).toBeLessThanOrEqual(3);
    const earlier = conversation.messages
      .map((message) => message.content.replace(/ \[source: S\d+\]/g, ''))
      .join(' ');
    for (const sentence of sentences) expect(earlier).toContain(sentence);
    expect(await llm.generate(conversation)).toEqual(result);
  });

  it('is deterministic for equal input', async () => {
    const first = await createExtractiveProvider().generate(ask('refund policy for digital goods'));
    const second = await createExtractiveProvider().generate(
      ask('refund policy for digital goods'),
    );
    expect(second).toEqual(first);
    expect(composeAnswer(ask('refund policy for digital goods')).text).toBe(first.text);
  });

  it('reports approximate usage', async () => {
    const result = await createExtractiveProvider().generate(ask('Where is the warehouse?'));
    expect(result.usage!.inputTokens).toBeGreaterThan(10);
    expect(result.usage!.outputTokens).toBeGreaterThan(5);
    expect(Number.isInteger(result.usage!.inputTokens)).toBe(true);
  });

  it('stops at maxTokens with finishReason length, counted by an injected tokenizer', async () => {
    const tokenizer = await createGptTokenizer();
    const llm = createExtractiveProvider({ tokenizer });
    const request = { ...ask('What is the refund policy?'), maxTokens: 12 };
    const result = await llm.generate(request);
    expect(result.finishReason).toBe('length');
    expect(tokenizer.count(result.text)).toBeLessThanOrEqual(12);
    expect(result.usage!.outputTokens).toBe(tokenizer.count(result.text));
    const full = await llm.generate(ask('What is the refund policy?'));
    expect(full.text.startsWith(result.text)).toBe(true);
    expect(deltasOf(await collect(llm.stream(request))).join('')).toBe(result.text);
  });

  it('approximates tokens from words without a tokenizer', async () => {
    const result = await createExtractiveProvider().generate({
      ...ask('What is the refund policy?'),
      maxTokens: 5,
    });
    expect(result.finishReason).toBe('length');
    expect(result.text.split(' ').length).toBeLessThanOrEqual(5);
    expect(result.text.length).toBeGreaterThan(0);
  });

  it('rejects invalid settings and requests with a ValidationError naming the field', async () => {
    expect(() => createExtractiveProvider({ maxSentences: 0 })).toThrow(ValidationError);
    expect(() => createExtractiveProvider({ minCoverage: 2 })).toThrow(/minCoverage/);
    await expect(
      createExtractiveProvider().generate({ ...ask('x'), maxTokens: 0 }),
    ).rejects.toMatchObject({ issues: [{ path: 'maxTokens' }] });
  });
});

describe('extractive streaming', () => {
  it("streams word by word, deltas adding up exactly to generate's text, then one finish", async () => {
    const llm = createExtractiveProvider();
    const request = ask('What is the refund policy for digital goods?');
    const result = await llm.generate(request);
    const parts = await collect(llm.stream(request));
    const deltas = deltasOf(parts);
    expect(deltas.join('')).toBe(result.text);
    expect(deltas.length).toBeGreaterThan(5);
    for (const delta of deltas) expect(delta).toMatch(/^(?:\[source: S\d+\]\S*|\S+)\s*$/);
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: result.finishReason,
      usage: result.usage,
      certainty: result.certainty,
      runnerUp: result.runnerUp,
    });
    expect(parts.filter((part) => part.type === 'finish')).toHaveLength(1);
  });

  it('keeps a citation tag in one delta', () => {
    expect(splitDeltas('Refunds take 14 days [source: S1]. Next one.')).toEqual([
      'Refunds ',
      'take ',
      '14 ',
      'days ',
      '[source: S1]. ',
      'Next ',
      'one.',
    ]);
  });

  it('rejects an already-aborted call with an AbortError', async () => {
    const llm = createExtractiveProvider();
    const signal = AbortSignal.abort();
    await expect(llm.generate({ ...ask('refunds'), signal })).rejects.toBeInstanceOf(AbortError);
    await expect(collect(llm.stream({ ...ask('refunds'), signal }))).rejects.toBeInstanceOf(
      AbortError,
    );
  });

  it('stops a stream aborted mid-way and throws an AbortError', async () => {
    const llm = createExtractiveProvider();
    const controller = new AbortController();
    const received: string[] = [];
    const run = async () => {
      for await (const part of llm.stream({ ...ask('refund policy'), signal: controller.signal })) {
        if (part.type === 'text-delta') received.push(part.text);
        if (received.length === 2) controller.abort();
      }
    };
    await expect(run()).rejects.toBeInstanceOf(AbortError);
    expect(received).toHaveLength(2);
  });

  it('aborts while waiting between delayed deltas', async () => {
    const llm = createExtractiveProvider({ delayMs: 10_000 });
    const controller = new AbortController();
    const iterator = llm.stream({ ...ask('refund policy'), signal: controller.signal });
    const pending = collect(iterator);
    setTimeout(() => controller.abort(), 5);
    await expect(pending).rejects.toBeInstanceOf(AbortError);
  });
});

describe('the extractive model reports how close its runner-up came', () => {
  const llm = createExtractiveProvider();
  const refunds: PromptSource[] = [
    { label: 'S1', text: 'Refunds take 14 days.' },
    { label: 'S2', text: 'Refunds take 30 days for gift cards.' },
  ];

  it('is near 1 when another unit answers about as well, in generate and stream', async () => {
    const request = ask('How long do refunds take?', refunds);
    const result = await llm.generate(request);
    expect(result.text).toBe('Refunds take 14 days [source: S1].');
    expect(result.runnerUp).toBeGreaterThanOrEqual(0.8);
    const finish = (await collect(llm.stream(request))).at(-1);
    expect(finish?.type === 'finish' && finish.runnerUp).toBe(result.runnerUp);
  });

  it('is 0 when no other unit answers, and absent on a refusal', async () => {
    const sources = [refunds[0]!, { label: 'S2', text: 'The warehouse is in Rotterdam.' }];
    const result = await llm.generate(ask('How long do refunds take?', sources));
    expect(result.text).toBe('Refunds take 14 days [source: S1].');
    expect(result.runnerUp).toBe(0);
    const refusal = await llm.generate(ask('What is the capital of France?', sources));
    expect(refusal.refused).toBe(true);
    expect(refusal.runnerUp).toBeUndefined();
  });
});
