import { afterEach, beforeEach, describe, expect, it } from './runner.js';
import type { EmbeddingProvider } from '../ports/embedding-provider.js';
import {
  abortedSignal,
  cosine,
  expectErrorCode,
  titled,
  type SkipReasons,
  type SuiteOptions,
} from './shared.js';

/** Parts of the `EmbeddingProvider` contract an adapter may lack (see {@link SkipReasons}). */
export type EmbeddingProviderCapability = 'similarity' | 'abort';

/** Options of {@link testEmbeddingProvider}. */
export interface EmbeddingProviderSuiteOptions extends SuiteOptions<EmbeddingProvider> {
  /** Capabilities the adapter lacks, with the reason printed in the skipped tests' titles. */
  readonly skip?: SkipReasons<EmbeddingProviderCapability> | undefined;
}

const TEXTS = [
  'The refund policy allows returns within fourteen days.',
  'Photosynthesis converts sunlight into chemical energy in plants.',
  'The central bank raised interest rates again this quarter.',
];

/**
 * Registers a `describe` block checking an `EmbeddingProvider` against the port contract:
 * its declared fields, one finite `Float32Array` of `dimensions` per text in input order,
 * an empty batch, stable vectors for equal texts, similar texts closer than unrelated ones,
 * and rejection of aborted calls.
 */
export function testEmbeddingProvider(options: EmbeddingProviderSuiteOptions): void {
  const skip = options.skip ?? {};

  describe(options.title ?? 'EmbeddingProvider conformance', () => {
    let embedder: EmbeddingProvider;

    beforeEach(async () => {
      embedder = await options.create();
    });

    afterEach(async () => {
      await options.destroy?.(embedder);
    });

    it('declares its name, specification version, id, dimensions and batch size', () => {
      expect(embedder.name.length).toBeGreaterThan(0);
      expect(embedder.specificationVersion).toBe('v1');
      expect(typeof embedder.id).toBe('string');
      expect(embedder.id.length).toBeGreaterThan(0);
      expect(Number.isInteger(embedder.dimensions)).toBe(true);
      expect(embedder.dimensions).toBeGreaterThan(0);
      if (embedder.maxBatchSize !== undefined) {
        expect(Number.isInteger(embedder.maxBatchSize)).toBe(true);
        expect(embedder.maxBatchSize).toBeGreaterThan(0);
      }
    });

    it('returns one finite Float32Array of the declared dimension per text', async () => {
      const vectors = await embedder.embed(TEXTS);
      expect(vectors).toHaveLength(TEXTS.length);
      for (const vector of vectors) {
        expect(vector).toBeInstanceOf(Float32Array);
        expect(vector.length).toBe(embedder.dimensions);
        expect(vector.every((value) => Number.isFinite(value))).toBe(true);
        expect(vector.some((value) => value !== 0)).toBe(true);
      }
    });

    it('returns nothing for no texts', async () => {
      expect(await embedder.embed([])).toEqual([]);
    });

    it('keeps input order and gives equal texts the same vector', async () => {
      const batch = await embedder.embed(TEXTS);
      for (const [index, text] of TEXTS.entries()) {
        const [single] = await embedder.embed([text]);
        expect(
          cosine(single!, batch[index]!),
          `text ${index} alone vs in the batch`,
        ).toBeGreaterThan(0.999);
      }
      const [first, again] = await embedder.embed([TEXTS[0]!, TEXTS[0]!]);
      expect(cosine(first!, again!)).toBeGreaterThan(0.999);
      expect(cosine(batch[0]!, batch[1]!)).toBeLessThan(0.99);
    });

    it.skipIf(skip.similarity)(
      titled('places a paraphrase closer than an unrelated text', skip.similarity),
      async () => {
        const [query, paraphrase, unrelated] = await embedder.embed([
          'What is the refund policy for returns?',
          'The refund policy allows returns within fourteen days.',
          'Photosynthesis converts sunlight into chemical energy in plants.',
        ]);
        expect(cosine(query!, paraphrase!)).toBeGreaterThan(cosine(query!, unrelated!));
      },
    );

    it.skipIf(skip.abort)(
      titled("rejects a call with an aborted signal with code 'aborted'", skip.abort),
      async () => {
        await expectErrorCode(
          () => embedder.embed(TEXTS, { signal: abortedSignal() }),
          'aborted',
          'embed',
        );
      },
    );
  });
}
