/**
 * What every HTTP embedding adapter shares once it can embed one batch: splitting the input
 * into batches of `maxBatchSize`, the `EmbeddingProvider` object around them, and the error
 * for a response that is not the vectors asked for.
 */
import { ProviderError } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { EmbeddingProvider } from '../../ports/embedding-provider.js';
import { abortError } from './post-json.js';

/** What {@link batchedEmbedder} wraps. */
export interface BatchedEmbedderSettings {
  /** Adapter name, for events and errors. */
  readonly name: string;
  /** Model id, part of the embedder's `id`. */
  readonly model: string;
  /** Vector length. */
  readonly dimensions: number;
  /** Most texts per request. */
  readonly maxBatchSize: number;
  /** The range similarities fall in, when the model documents one. */
  readonly similarityRange?: readonly [number, number] | undefined;
  /** Embeds one batch (at most `maxBatchSize` texts), in input order. */
  readonly embedBatch: (
    texts: readonly string[],
    signal: AbortSignal | undefined,
  ) => Promise<Float32Array[]>;
}

/** An `EmbeddingProvider` that embeds any number of texts, one request per batch, in order. */
export function batchedEmbedder(settings: BatchedEmbedderSettings): EmbeddingProvider {
  const { name, model, dimensions, maxBatchSize, embedBatch } = settings;
  return {
    name,
    specificationVersion: 'v1',
    id: `${name}:${model}:${dimensions}`,
    dimensions,
    maxBatchSize,
    ...(settings.similarityRange === undefined
      ? {}
      : { similarityRange: settings.similarityRange }),
    async embed(texts: readonly string[], options?: CallOptions): Promise<Float32Array[]> {
      const signal = options?.signal;
      if (signal?.aborted) throw abortError(signal);
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += maxBatchSize) {
        vectors.push(...(await embedBatch(texts.slice(start, start + maxBatchSize), signal)));
      }
      return vectors;
    },
  };
}

/** A non-retryable `ProviderError` for an unexpected embeddings response. */
export function badEmbeddings(provider: string, detail: string): ProviderError {
  return new ProviderError(`${provider} sent unexpected embeddings: ${detail}`, {
    provider,
    retryable: false,
  });
}
