/**
 * `cortexis/rerank`: hosted rerankers over `fetch` — Cohere, Jina and Voyage. The three APIs
 * share one shape (a query and a list of document texts in, `{ index, relevance_score }` out),
 * so one adapter serves them, with each vendor's URL, model and field names. No SDK, no
 * `node:` imports: it runs wherever `fetch` does.
 *
 * The engine asks the reranker only on routes that want one (`searchDepth: 'deep'`, relational
 * and comparison questions); a failing reranker keeps the fused order. Wrap it in nothing:
 * errors are typed (`ProviderError` with `status`, `retryable`, `retryAfterMs`).
 *
 * @example
 * ```ts
 * import { createChatEngine } from 'cortexis';
 * import { createCohereReranker } from 'cortexis/rerank';
 *
 * const engine = createChatEngine({
 *   reranker: createCohereReranker({ apiKey: process.env.COHERE_API_KEY }),
 * });
 * ```
 * @module
 */
import * as z from 'zod/mini';
import { ProviderError, ValidationError } from '../../errors/index.js';
import type { CallOptions } from '../../ports/common.js';
import type { RerankCandidate, Reranker, RerankResult } from '../../ports/reranker.js';
import {
  abortError,
  parseResponse,
  postJson,
  readJson,
  type FetchFunction,
} from '../http/post-json.js';
import { checkBaseURL, checkNonEmpty, checkPositiveInteger } from '../http/settings.js';

export type { FetchFunction } from '../http/post-json.js';

/** Settings of a hosted reranker. */
export interface HostedRerankerSettings {
  /** API key, sent as `Authorization: Bearer`. Required. */
  readonly apiKey: string;
  /** Model id (default per vendor: `rerank-v3.5`, `jina-reranker-v2-base-multilingual`, `rerank-2.5`). */
  readonly model?: string | undefined;
  /** API base URL (default the vendor's; a proxy or a compatible server). */
  readonly baseURL?: string | undefined;
  /** Most documents per request; more candidates are sent in several requests (default 100). */
  readonly maxDocuments?: number | undefined;
  /** Longest document text sent, in characters; longer texts are cut (default 4 000). */
  readonly maxDocumentChars?: number | undefined;
  /** The `fetch` to use (default: the global one). */
  readonly fetch?: FetchFunction | undefined;
}

/** How one vendor's rerank API differs from the others. */
interface Vendor {
  readonly name: string;
  readonly baseURL: string;
  readonly path: string;
  readonly model: string;
  /** The request body of one batch. */
  body(model: string, query: string, documents: readonly string[]): Record<string, unknown>;
  /** Where the results are in the response: `results` (Cohere, Jina) or `data` (Voyage). */
  readonly resultsField: 'results' | 'data';
}

const COHERE: Vendor = {
  name: 'cohere',
  baseURL: 'https://api.cohere.com',
  path: '/v2/rerank',
  model: 'rerank-v3.5',
  body: (model, query, documents) => ({ model, query, documents, top_n: documents.length }),
  resultsField: 'results',
};

const JINA: Vendor = {
  name: 'jina',
  baseURL: 'https://api.jina.ai',
  path: '/v1/rerank',
  model: 'jina-reranker-v2-base-multilingual',
  body: (model, query, documents) => ({
    model,
    query,
    documents,
    top_n: documents.length,
    return_documents: false,
  }),
  resultsField: 'results',
};

const VOYAGE: Vendor = {
  name: 'voyage',
  baseURL: 'https://api.voyageai.com',
  path: '/v1/rerank',
  model: 'rerank-2.5',
  body: (model, query, documents) => ({
    model,
    query,
    documents,
    top_k: documents.length,
    return_documents: false,
    truncation: true,
  }),
  resultsField: 'data',
};

const resultSchema = z.object({
  index: z.number().check(z.int(), z.nonnegative()),
  relevance_score: z.number(),
});
const responseSchemas = {
  results: z.object({ results: z.array(resultSchema) }),
  data: z.object({ data: z.array(resultSchema) }),
} as const;

const DEFAULT_MAX_DOCUMENTS = 100;
const DEFAULT_MAX_DOCUMENT_CHARS = 4_000;

/** A relevance score as the port promises it: in [0, 1] (NaN → 0). */
const clampScore = (score: number): number => (score > 0 ? (score < 1 ? score : 1) : 0);

function createHostedReranker(vendor: Vendor, settings: HostedRerankerSettings): Reranker {
  if (typeof settings !== 'object' || settings === null) {
    throw new ValidationError(`${vendor.name} reranker: settings must be an object`, [
      { path: '(settings)', message: 'must be an object' },
    ]);
  }
  checkNonEmpty(vendor.name, 'apiKey', settings.apiKey);
  if (settings.model !== undefined) checkNonEmpty(vendor.name, 'model', settings.model);
  checkPositiveInteger(vendor.name, 'maxDocuments', settings.maxDocuments);
  checkPositiveInteger(vendor.name, 'maxDocumentChars', settings.maxDocumentChars);
  const base = checkBaseURL(vendor.name, 'baseURL', settings.baseURL ?? vendor.baseURL);
  const url = `${base}${vendor.path}`;
  const model = settings.model?.trim() ?? vendor.model;
  const apiKey = settings.apiKey.trim();
  const maxDocuments = settings.maxDocuments ?? DEFAULT_MAX_DOCUMENTS;
  const maxChars = settings.maxDocumentChars ?? DEFAULT_MAX_DOCUMENT_CHARS;

  /** Scores of one batch, by position in the batch. */
  async function scoreBatch(
    query: string,
    documents: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<number[]> {
    const response = await postJson({
      provider: vendor.name,
      url,
      headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
      body: vendor.body(model, query, documents),
      fetch: settings.fetch,
      signal,
      secrets: [apiKey],
    });
    const parsed = parseResponse(
      responseSchemas[vendor.resultsField],
      await readJson(response, vendor.name, signal),
      vendor.name,
      'rerank response',
    );
    const results = 'results' in parsed ? parsed.results : parsed.data;
    const scores = new Array<number>(documents.length).fill(Number.NaN);
    for (const result of results) {
      if (result.index >= documents.length) {
        throw new ProviderError(
          `${vendor.name} sent an unexpected rerank response: index ${result.index} of ${documents.length} documents`,
          { provider: vendor.name, retryable: false },
        );
      }
      scores[result.index] = clampScore(result.relevance_score);
    }
    return scores;
  }

  return {
    name: vendor.name,
    specificationVersion: 'v1',
    async rerank(
      query: string,
      candidates: readonly RerankCandidate[],
      options?: CallOptions,
    ): Promise<RerankResult[]> {
      const signal = options?.signal;
      if (signal?.aborted) throw abortError(signal);
      if (candidates.length === 0) return [];
      const scored: RerankResult[] = [];
      for (let start = 0; start < candidates.length; start += maxDocuments) {
        const batch = candidates.slice(start, start + maxDocuments);
        const scores = await scoreBatch(
          query,
          batch.map((candidate) => candidate.text.slice(0, maxChars)),
          signal,
        );
        batch.forEach((candidate, index) => {
          // A document the API left out (top_n smaller than asked) ranks last.
          const score = scores[index]!;
          scored.push({ id: candidate.id, score: Number.isNaN(score) ? 0 : score });
        });
      }
      return scored.sort((a, b) => b.score - a.score);
    },
  };
}

/** Cohere Rerank (`POST /v2/rerank`, default model `rerank-v3.5`). */
export function createCohereReranker(settings: HostedRerankerSettings): Reranker {
  return createHostedReranker(COHERE, settings);
}

/** Jina Reranker (`POST /v1/rerank`, default model `jina-reranker-v2-base-multilingual`). */
export function createJinaReranker(settings: HostedRerankerSettings): Reranker {
  return createHostedReranker(JINA, settings);
}

/** Voyage AI Rerank (`POST /v1/rerank`, default model `rerank-2.5`). */
export function createVoyageReranker(settings: HostedRerankerSettings): Reranker {
  return createHostedReranker(VOYAGE, settings);
}
