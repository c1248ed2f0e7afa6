import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createCohereReranker,
  createJinaReranker,
  createVoyageReranker,
  type HostedRerankerSettings,
} from '../../../src/adapters/rerank/index.js';
import { createChatEngine } from '../../../src/engine.js';
import { AbortError, ConfigError, ProviderError } from '../../../src/errors/index.js';
import type { Reranker } from '../../../src/ports/reranker.js';
import { sendJson, startLoopback, type Loopback, type RecordedRequest } from '../http/loopback.js';

const KEY = 'rk-test-rerank-key-77';

/** Scores a document by how many query words it contains (a stand-in for the vendor's model). */
function overlap(query: string, document: string): number {
  const words = new Set(query.toLowerCase().match(/\p{L}+/gu) ?? []);
  const hits = (document.toLowerCase().match(/\p{L}+/gu) ?? []).filter((word) => words.has(word));
  return Math.min(1, hits.length / Math.max(1, words.size));
}

/** Each vendor's documented wire format: request path and fields, results field. */
const vendors = [
  {
    name: 'cohere',
    create: createCohereReranker,
    path: '/v2/rerank',
    model: 'rerank-v3.5',
    limitField: 'top_n',
    extra: {},
    respond: (results: unknown[]) => ({
      id: 'abc',
      results,
      meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
    }),
  },
  {
    name: 'jina',
    create: createJinaReranker,
    path: '/v1/rerank',
    model: 'jina-reranker-v2-base-multilingual',
    limitField: 'top_n',
    extra: { return_documents: false },
    respond: (results: unknown[]) => ({
      model: 'jina-reranker-v2-base-multilingual',
      usage: { total_tokens: 42 },
      results,
    }),
  },
  {
    name: 'voyage',
    create: createVoyageReranker,
    path: '/v1/rerank',
    model: 'rerank-2.5',
    limitField: 'top_k',
    extra: { return_documents: false, truncation: true },
    respond: (data: unknown[]) => ({
      object: 'list',
      data,
      model: 'rerank-2.5',
      usage: { total_tokens: 42 },
    }),
  },
] as const;

const candidates = [
  { id: 'a#0', text: 'Gift cards are never refunded.', score: 0.9 },
  { id: 'b#0', text: 'Refunds are issued within 14 days of the request.', score: 0.5 },
  { id: 'c#0', text: 'Standard shipping takes 3 to 5 business days.', score: 0.4 },
];

describe.each(vendors)('$name reranker against a loopback server', (vendor) => {
  let server: Loopback;
  const reranker = (settings: Partial<HostedRerankerSettings> = {}): Reranker =>
    vendor.create({ apiKey: KEY, baseURL: server.url, ...settings });

  beforeEach(async () => {
    server = await startLoopback((request, response) => {
      const documents: string[] = request.body.documents;
      // Best first, as the vendors answer.
      const results = documents
        .map((document, index) => ({
          index,
          relevance_score: overlap(request.body.query, document),
        }))
        .sort((a, b) => b.relevance_score - a.relevance_score);
      sendJson(response, 200, vendor.respond(results));
    });
  });

  afterEach(async () => {
    await server.close();
  });

  it('sends the documented request and maps results back to candidate ids, best first', async () => {
    const results = await reranker().rerank('how fast are refunds issued', candidates);
    expect(results.map((result) => result.id)).toEqual(['b#0', 'a#0', 'c#0']);
    expect(results.every((result) => result.score >= 0 && result.score <= 1)).toBe(true);
    const request = server.requests[0] as RecordedRequest;
    expect(request.method).toBe('POST');
    expect(request.path).toBe(vendor.path);
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body).toEqual({
      model: vendor.model,
      query: 'how fast are refunds issued',
      documents: candidates.map((candidate) => candidate.text),
      [vendor.limitField]: 3,
      ...vendor.extra,
    });
  });

  it('sends a chosen model, cuts long texts and batches many candidates', async () => {
    const many = Array.from({ length: 5 }, (_, index) => ({
      id: `d${index}`,
      text: `refunds ${'x'.repeat(50)} ${index}`,
      score: 0.1,
    }));
    const results = await reranker({
      model: 'my-model',
      maxDocuments: 2,
      maxDocumentChars: 20,
    }).rerank('refunds', many);
    expect(results).toHaveLength(5);
    expect(server.requests.map((request) => request.body.documents.length)).toEqual([2, 2, 1]);
    expect(server.requests[0]?.body.model).toBe('my-model');
    expect(server.requests[0]?.body.documents[0]).toHaveLength(20);
  });

  it('makes no request for no candidates', async () => {
    await expect(reranker().rerank('refunds', [])).resolves.toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('maps 429 to a retryable ProviderError with Retry-After, and never leaks the key', async () => {
    server.handle((_request, response) =>
      sendJson(
        response,
        429,
        { message: `rate limited for key ${KEY}` },
        {
          'retry-after': '3',
        },
      ),
    );
    const error = await reranker()
      .rerank('refunds', candidates)
      .catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 3_000 });
    expect(String((error as Error).message)).not.toContain(KEY);
  });

  it('maps 401 to a non-retryable ProviderError', async () => {
    server.handle((_request, response) => sendJson(response, 401, { message: 'invalid api key' }));
    await expect(reranker().rerank('refunds', candidates)).rejects.toMatchObject({
      status: 401,
      retryable: false,
    });
  });

  it('refuses a response of the wrong shape or with an index out of range', async () => {
    server.handle((_request, response) => sendJson(response, 200, { nothing: [] }));
    await expect(reranker().rerank('refunds', candidates)).rejects.toThrow(
      /unexpected rerank response/,
    );
    server.handle((_request, response) =>
      sendJson(response, 200, vendor.respond([{ index: 7, relevance_score: 0.5 }])),
    );
    await expect(reranker().rerank('refunds', candidates)).rejects.toThrow(/index 7 of 3/);
  });

  it('ranks a document the API left out last', async () => {
    server.handle((_request, response) =>
      sendJson(response, 200, vendor.respond([{ index: 2, relevance_score: 0.7 }])),
    );
    const results = await reranker().rerank('shipping', candidates);
    expect(results[0]).toEqual({ id: 'c#0', score: 0.7 });
    expect(results.slice(1).map((result) => result.score)).toEqual([0, 0]);
  });

  it('rejects with AbortError when the signal fires', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      reranker().rerank('refunds', candidates, { signal: controller.signal }),
    ).rejects.toSatisfy((error) => AbortError.isInstance(error));
  });
});

describe('hosted reranker settings', () => {
  it('requires an API key and a valid base URL, naming the setting', () => {
    expect(() => createCohereReranker({ apiKey: ' ' })).toThrow(ConfigError);
    expect(() => createCohereReranker({ apiKey: ' ' })).toThrow(/apiKey/);
    expect(() => createJinaReranker({ apiKey: KEY, baseURL: 'ftp://x' })).toThrow(/baseURL/);
    expect(() => createVoyageReranker({ apiKey: KEY, maxDocuments: 0 })).toThrow(/maxDocuments/);
  });
});

describe('a hosted reranker in the engine', () => {
  it('reorders deep searches by the reranker’s scores', async () => {
    const server = await startLoopback((request, response) => {
      const documents: string[] = request.body.documents;
      // This "model" prefers the document about gift cards, whatever the query.
      const results = documents.map((document, index) => ({
        index,
        relevance_score: document.includes('Gift cards') ? 0.99 : 0.01,
      }));
      sendJson(response, 200, { results });
    });
    try {
      const engine = createChatEngine({
        reranker: createCohereReranker({ apiKey: KEY, baseURL: server.url }),
      });
      await engine.ingest([
        { id: 'refunds', text: 'Refunds are issued within 14 days of the request.' },
        { id: 'gift', text: 'Gift cards are never refunded. Refunds of gift cards are refused.' },
        { id: 'shipping', text: 'Standard shipping takes 3 to 5 business days.' },
      ]);
      const shallow = await engine.search('How fast are refunds issued?', {
        searchDepth: 'shallow',
      });
      expect(server.requests).toHaveLength(0);
      const deep = await engine.search('How fast are refunds issued?', { searchDepth: 'deep' });
      expect(server.requests.length).toBeGreaterThan(0);
      expect(deep[0]?.documentId).toBe('gift');
      expect(shallow[0]?.documentId).toBe('refunds');
    } finally {
      await server.close();
    }
  });
});
