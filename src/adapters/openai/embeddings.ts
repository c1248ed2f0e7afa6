/**
 * The OpenAI embeddings adapter: `createOpenAIEmbeddings`, an `EmbeddingProvider` over
 * `POST {baseURL}/embeddings` that splits long inputs into batches and checks every returned
 * vector's index and length.
 */
import type { EmbeddingProvider } from '../../ports/embedding-provider.js';
import { parseResponse, postJson, readJson } from '../http/post-json.js';
import { badEmbeddings, batchedEmbedder } from '../http/embeddings.js';
import { checkPositiveInteger, invalidSetting } from '../http/settings.js';
import { resolveConnection, resolveModel, type OpenAIConnectionSettings } from './connection.js';
import { embeddingsSchema } from './wire-schemas.js';

/** Embedding model used when `model` is not set (OpenAI's API only). */
export const DEFAULT_OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';

/** Settings of {@link createOpenAIEmbeddings}. */
export interface OpenAIEmbeddingsSettings extends OpenAIConnectionSettings {
  /** Model id (default `text-embedding-3-small` on OpenAI's API; required elsewhere). */
  readonly model?: string | undefined;
  /**
   * Vector length. For `text-embedding-3-*` it is sent as the `dimensions` parameter (a
   * shortened embedding); for other models it declares their size and is required unless
   * the model is a known OpenAI one.
   */
  readonly dimensions?: number | undefined;
  /** Most texts per request; longer batches are split (default 256). */
  readonly maxBatchSize?: number | undefined;
  /** Typical cosine of an unrelated and a related pair, `[floor, ceiling]` (see the port). */
  readonly similarityRange?: readonly [number, number] | undefined;
}

/** Native vector length of OpenAI embedding models. */
const EMBEDDING_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

/**
 * Creates an `EmbeddingProvider` over `POST {baseURL}/embeddings`, returning one
 * `Float32Array` per text in input order (by each item's `index`).
 */
export function createOpenAIEmbeddings(settings: OpenAIEmbeddingsSettings = {}): EmbeddingProvider {
  const connection = resolveConnection(settings);
  const { name } = connection;
  const model = resolveModel(connection, settings.model, DEFAULT_OPENAI_EMBEDDING_MODEL);
  checkPositiveInteger(name, 'dimensions', settings.dimensions);
  checkPositiveInteger(name, 'maxBatchSize', settings.maxBatchSize);
  const shortenable = model.startsWith('text-embedding-3');
  const dimensions = settings.dimensions ?? EMBEDDING_DIMENSIONS[model];
  if (dimensions === undefined) {
    throw invalidSetting(
      name,
      'dimensions',
      `is required for model '${model}' (its vector length)`,
    );
  }
  const sendDimensions = shortenable && settings.dimensions !== undefined;
  const maxBatchSize = settings.maxBatchSize ?? 256;
  const url = `${connection.baseURL}/embeddings`;

  const embedBatch = async (texts: readonly string[], signal: AbortSignal | undefined) => {
    const response = await postJson({
      provider: name,
      url,
      headers: connection.headers,
      body: {
        model,
        input: texts,
        encoding_format: 'float',
        ...(sendDimensions ? { dimensions } : {}),
      },
      fetch: connection.fetch,
      signal,
      secrets: [connection.apiKey],
    });
    const json = await readJson(response, name, signal);
    const { data } = parseResponse(embeddingsSchema, json, name, 'embeddings response');
    const vectors: (Float32Array | undefined)[] = new Array(texts.length);
    for (const item of data) {
      if (!Number.isInteger(item.index) || item.index < 0 || item.index >= texts.length) {
        throw badEmbeddings(name, `index ${item.index} is out of range`);
      }
      if (item.embedding.length !== dimensions) {
        throw badEmbeddings(
          name,
          `vector of ${item.embedding.length} dimensions, expected ${dimensions}`,
        );
      }
      vectors[item.index] = Float32Array.from(item.embedding);
    }
    return Array.from(vectors, (vector, index) => vector ?? failMissing(name, index));
  };

  return batchedEmbedder({
    name,
    model,
    dimensions,
    maxBatchSize,
    similarityRange: settings.similarityRange,
    embedBatch,
  });
}

/** Throws for an input that received no vector. */
function failMissing(provider: string, index: number): never {
  throw badEmbeddings(provider, `no vector for input ${index}`);
}
