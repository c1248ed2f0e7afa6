import { afterEach, beforeEach, describe, expect, it } from './runner.js';
import type {
  LLMProvider,
  LLMRequest,
  LLMResult,
  LLMStreamPart,
  LLMUsage,
} from '../ports/llm-provider.js';
import {
  abortedSignal,
  collect,
  expectErrorCode,
  titled,
  type SkipReasons,
  type SuiteOptions,
} from './shared.js';

/** Parts of the `LLMProvider` contract an adapter may lack (see {@link SkipReasons}). */
export type LLMProviderCapability = 'abort' | 'streamAbort';

/** Options of {@link testLLMProvider}. */
export interface LLMProviderSuiteOptions extends SuiteOptions<LLMProvider> {
  /**
   * Whether the same request always gives the same text (true for the extractive provider
   * and scripted mocks). Only then does the suite check that the streamed deltas add up to
   * exactly the text `generate` returns; otherwise that test is skipped with a reason.
   */
  readonly deterministic?: boolean | undefined;
  /** The request the tests send (default: a grounded question with one source `S1`). */
  readonly request?: LLMRequest | undefined;
  /** Capabilities the adapter lacks, with the reason printed in the skipped tests' titles. */
  readonly skip?: SkipReasons<LLMProviderCapability> | undefined;
}

const DEFAULT_REQUEST: LLMRequest = {
  system:
    'Answer from the sources only and cite them as [source: S1].\n\n' +
    'S1 (Sky): On a clear day the sky is blue because air scatters blue light more than ' +
    'red light. At sunset the sky turns orange and red.',
  messages: [{ role: 'user', content: 'Why is the sky blue on a clear day?' }],
  sources: [
    {
      label: 'S1',
      title: 'Sky',
      text:
        'On a clear day the sky is blue because air scatters blue light more than red light. ' +
        'At sunset the sky turns orange and red.',
    },
  ],
  maxTokens: 200,
  temperature: 0,
};

const FINISH_REASONS = ['stop', 'length', 'content-filter', 'other'];

function expectValidExtras(extras: {
  usage?: LLMUsage | undefined;
  certainty?: number | undefined;
}) {
  if (extras.usage !== undefined) {
    for (const count of [extras.usage.inputTokens, extras.usage.outputTokens]) {
      expect(Number.isInteger(count)).toBe(true);
      expect(count).toBeGreaterThanOrEqual(0);
    }
  }
  if (extras.certainty !== undefined) {
    expect(extras.certainty).toBeGreaterThanOrEqual(0);
    expect(extras.certainty).toBeLessThanOrEqual(1);
  }
}

/** Checks the shape of a finished stream and returns its text. */
function streamedText(parts: readonly LLMStreamPart[]): string {
  const finishes = parts.filter((part) => part.type === 'finish');
  expect(finishes, 'exactly one finish part').toHaveLength(1);
  expect(parts[parts.length - 1]?.type, 'the finish part comes last').toBe('finish');
  const finish = finishes[0]!;
  expect(FINISH_REASONS).toContain(finish.finishReason);
  expectValidExtras(finish);
  let text = '';
  for (const part of parts.slice(0, -1)) {
    expect(part.type).toBe('text-delta');
    if (part.type === 'text-delta') {
      expect(typeof part.text).toBe('string');
      text += part.text;
    }
  }
  return text;
}

/**
 * Registers a `describe` block checking an `LLMProvider` against the port contract:
 * metadata, `generate` (text, finish reason, usage and certainty bounds), `stream` (text
 * deltas ending with exactly one `finish` part, adding up to `generate`'s text for a
 * deterministic provider), multi-turn requests, and aborts before and during a call.
 */
export function testLLMProvider(options: LLMProviderSuiteOptions): void {
  const skip = options.skip ?? {};
  const request = options.request ?? DEFAULT_REQUEST;
  const nondeterministic = options.deterministic
    ? undefined
    : 'the provider is not declared deterministic';

  describe(options.title ?? 'LLMProvider conformance', () => {
    let llm: LLMProvider;

    beforeEach(async () => {
      llm = await options.create();
    });

    afterEach(async () => {
      await options.destroy?.(llm);
    });

    it('declares its name, specification version and metadata', () => {
      expect(llm.name.length).toBeGreaterThan(0);
      expect(llm.specificationVersion).toBe('v1');
      expect(typeof llm.metadata.provider).toBe('string');
      expect(llm.metadata.provider.length).toBeGreaterThan(0);
      expect(typeof llm.metadata.model).toBe('string');
      expect(Number.isInteger(llm.metadata.contextWindow)).toBe(true);
      expect(llm.metadata.contextWindow).toBeGreaterThan(0);
      if (llm.metadata.maxOutputTokens !== undefined) {
        expect(llm.metadata.maxOutputTokens).toBeGreaterThan(0);
      }
    });

    it('generates text with a finish reason', async () => {
      const result: LLMResult = await llm.generate(request);
      expect(typeof result.text).toBe('string');
      expect(result.text.trim().length).toBeGreaterThan(0);
      expect(FINISH_REASONS).toContain(result.finishReason);
      expectValidExtras(result);
    });

    it('streams text deltas ending with exactly one finish part', async () => {
      const parts = await collect(llm.stream(request));
      expect(parts.some((part) => part.type === 'text-delta')).toBe(true);
      expect(streamedText(parts).trim().length).toBeGreaterThan(0);
    });

    it.skipIf(nondeterministic)(
      titled("streams deltas that add up exactly to generate's text", nondeterministic),
      async () => {
        const result = await llm.generate(request);
        expect((await llm.generate(request)).text).toBe(result.text);
        expect(streamedText(await collect(llm.stream(request)))).toBe(result.text);
      },
    );

    it('answers a multi-turn conversation', async () => {
      const followUp: LLMRequest = {
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: 'Because air scatters blue light [source: S1].' },
          { role: 'user', content: 'And what colour is it at sunset?' },
        ],
      };
      const result = await llm.generate(followUp);
      expect(result.text.trim().length).toBeGreaterThan(0);
      expect(streamedText(await collect(llm.stream(followUp))).trim().length).toBeGreaterThan(0);
    });

    it.skipIf(skip.abort)(
      titled("rejects a call with an aborted signal with code 'aborted'", skip.abort),
      async () => {
        await expectErrorCode(
          () => llm.generate({ ...request, signal: abortedSignal() }),
          'aborted',
          'generate',
        );
        await expectErrorCode(
          () => collect(llm.stream({ ...request, signal: abortedSignal() })),
          'aborted',
          'stream',
        );
      },
    );

    it.skipIf(skip.streamAbort)(
      titled("stops a stream aborted after its first delta with code 'aborted'", skip.streamAbort),
      async () => {
        const controller = new AbortController();
        const after: LLMStreamPart[] = [];
        let aborted = false;
        await expectErrorCode(
          async () => {
            for await (const part of llm.stream({ ...request, signal: controller.signal })) {
              if (aborted) after.push(part);
              if (part.type === 'text-delta' && !aborted) {
                aborted = true;
                controller.abort();
              }
            }
          },
          'aborted',
          'a stream aborted mid-way',
        );
        expect(aborted).toBe(true);
        expect(after.filter((part) => part.type === 'text-delta')).toEqual([]);
      },
    );
  });
}
