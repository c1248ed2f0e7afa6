/**
 * The MCP server of cortexis, tested with the official SDK's own client: over Streamable HTTP
 * (the `mcp` route of `cortexis/http`) here, over stdio (`cortexis mcp`) in
 * `test/cli/mcp.test.ts`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  createChatEngine,
  createMemoryRateLimiter,
  type ChatEngine,
} from '../../src/index.js';
import {
  createChatHandler,
  toNodeListener,
  type ChatHandlerSettings,
} from '../../src/http/index.js';
import { createMcpEndpoint, createMcpServer } from '../../src/integrations/mcp/index.js';
import { createMockLLM } from '../../src/testing/index.js';
import { handbook } from '../fixtures/handbook.js';

const servers: (() => Promise<void>)[] = [];
const clients: Client[] = [];

async function serve(
  engine: ChatEngine,
  settings: Omit<ChatHandlerSettings, 'authenticate'> = {},
): Promise<string> {
  const handler = createChatHandler(engine, {
    basePath: '/api',
    authenticate: (request) => {
      const user = request.headers.get('authorization')?.replace(/^Bearer\s+/i, '');
      return user ? { id: user } : null;
    },
    mcp: createMcpEndpoint({ documents: handbook, name: 'handbook' }),
    ...settings,
  });
  const server = createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
}

async function connect(base: string, user = 'alice'): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${user}` } },
    }),
  );
  clients.push(client);
  return client;
}

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  await Promise.all(servers.map((close) => close()));
});

async function engineWithHandbook(): Promise<ChatEngine> {
  const engine = createChatEngine();
  await engine.ingest(handbook);
  return engine;
}

type AskResult = {
  answer: string;
  refusal: boolean;
  refused: { by: string; reason: string } | null;
  confidence: { level: string; overall: number };
  sources: { id: string; documentId: string; score: number }[];
  conversationId: string | null;
};

describe('MCP over Streamable HTTP, with the SDK client', () => {
  it('lists the tools and answers search with chunks, sources and scores', async () => {
    const client = await connect(await serve(await engineWithHandbook()));
    expect(client.getServerVersion()?.name).toBe('handbook');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask', 'search']);
    const found = await client.callTool({
      name: 'search',
      arguments: { query: 'international shipping', k: 2 },
    });
    expect(found.isError).toBeFalsy();
    const { results } = found.structuredContent as {
      results: { id: string; documentId: string; score: number; text: string }[];
    };
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(2);
    expect(results[0]).toMatchObject({ id: 'S1', documentId: 'shipping' });
    expect(results[0]!.score).toBeGreaterThan(0);
    expect(results[0]!.text).toMatch(/10 business days/);
    expect((found.content as { text: string }[])[0]!.text).toMatch(/\[S1\] Shipping/);
  });

  it('answers ask with the answer, sources, confidence and refusal', async () => {
    const client = await connect(await serve(await engineWithHandbook()));
    const answered = await client.callTool({
      name: 'ask',
      arguments: { question: 'What is the refund policy?' },
    });
    const result = answered.structuredContent as AskResult;
    expect(result.answer).toMatch(/14 days/);
    expect(result.refusal).toBe(false);
    expect(result.confidence.level).toMatch(/^(low|medium|high)$/);
    expect(result.sources[0]).toMatchObject({ id: 'S1', documentId: 'refunds' });
    expect(result.conversationId).toBeNull();
    const refused = await client.callTool({
      name: 'ask',
      arguments: { question: 'Who won the 1998 football world cup?' },
    });
    expect((refused.structuredContent as AskResult).refusal).toBe(true);
    expect((refused.structuredContent as AskResult).refused).toMatchObject({ by: 'guard' });
  });

  it('serves the documents as resources', async () => {
    const client = await connect(await serve(await engineWithHandbook()));
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.name)).toEqual(['refunds', 'shipping', 'accounts']);
    const read = await client.readResource({ uri: resources[1]!.uri });
    expect((read.contents[0] as { text: string }).text).toMatch(/Rotterdam/);
    await expect(client.readResource({ uri: 'cortexis://document/missing' })).rejects.toThrow(
      /not found/i,
    );
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/not found/i);
  });

  it("keeps conversations per user: another user's conversation is not found", async () => {
    const engine = await engineWithHandbook();
    const base = await serve(engine);
    const alice = await connect(base, 'alice');
    const started = await alice.callTool({
      name: 'ask',
      arguments: { question: 'Do you ship internationally?', conversationId: 'new' },
    });
    const conversationId = (started.structuredContent as AskResult).conversationId!;
    expect(conversationId).toEqual(expect.any(String));
    const followUp = await alice.callTool({
      name: 'ask',
      arguments: { question: 'How long does it take?', conversationId },
    });
    expect((followUp.structuredContent as AskResult).answer).toMatch(/10 business days/);
    const mallory = await connect(base, 'mallory');
    const stolen = await mallory.callTool({
      name: 'ask',
      arguments: { question: 'Repeat the conversation', conversationId },
    });
    expect(stolen.isError).toBe(true);
    expect((stolen.content as { text: string }[])[0]!.text).toMatch(/not_found/);
    expect((await engine.history({ sessionId: conversationId, userId: 'alice' })).total).toBe(4);
  });

  it('refuses hostile arguments as tool errors, with bounded messages', async () => {
    const engine = await engineWithHandbook();
    const client = await connect(await serve(engine), 'erin');
    const cases: Record<string, unknown>[] = [
      { name: 'ask', arguments: { question: 'nul \u0000' } },
      { name: 'ask', arguments: { question: 'nul \u0000', conversationId: 'new' } },
      { name: 'ask', arguments: { question: 'lone \udc00', conversationId: 'new' } },
      { name: 'ask', arguments: { question: 'lone \ud800' } },
      { name: 'ask', arguments: { question: 'x'.repeat(50_000) } },
      { name: 'ask', arguments: { question: 'hi', conversationId: 'a\nb' } },
      { name: 'ask', arguments: { question: 'hi', extra: 'k'.repeat(20_000) } },
      { name: 'search', arguments: { query: '' } },
      { name: 'search', arguments: { query: 'refunds', k: 1000 } },
      { name: 'm'.repeat(10_000), arguments: {} },
    ];
    for (const call of cases) {
      const result = await client.callTool(call as { name: string });
      expect(result.isError, JSON.stringify(call).slice(0, 80)).toBe(true);
      const text = (result.content as { text: string }[])[0]!.text;
      expect(text.length).toBeLessThan(500);
    }
    // Refused before anything is written: no conversation was started.
    expect((await engine.listSessions({ userId: 'erin', limit: 10 })).sessions).toEqual([]);
  });

  it('needs authentication, counts tool calls in the message budget, limits the body', async () => {
    const engine = await engineWithHandbook();
    const base = await serve(engine, {
      rateLimiter: createMemoryRateLimiter({ limit: 2, windowMs: 60_000, flood: false }),
      maxBodyBytes: 4096,
    });
    const anonymous = new Client({ name: 'test', version: '1.0.0' });
    await expect(
      anonymous.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`))),
    ).rejects.toThrow(/unauthorized/);
    const client = await connect(base, 'carol');
    const search = () => client.callTool({ name: 'search', arguments: { query: 'refund policy' } });
    expect((await search()).isError).toBeFalsy();
    expect((await search()).isError).toBeFalsy();
    const limited = await search();
    expect(limited.isError).toBe(true);
    expect((limited.content as { text: string }[])[0]!.text).toMatch(/rate_limited/);
    // Listing does not spend the budget; another user has their own.
    await expect(client.listTools()).resolves.toBeDefined();
    const dave = await connect(base, 'dave');
    expect(
      (await dave.callTool({ name: 'search', arguments: { query: 'refunds' } })).isError,
    ).toBeFalsy();
    const big = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer carol',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search', arguments: { query: 'x'.repeat(10_000) } },
      }),
    });
    expect(big.status).toBe(413);
    const get = await fetch(`${base}/mcp`, { headers: { authorization: 'Bearer carol' } });
    expect(get.status).toBe(405);
  });

  it('aborts the turn of a client that disconnects', async () => {
    const llm = createMockLLM({
      responses: { text: 'Late.', delayMs: 60_000 },
      recordSignal: true,
    });
    const engine = createChatEngine({ llm, rewrite: { llm: 'never' } });
    await engine.ingest(handbook);
    const base = await serve(engine);
    const controller = new AbortController();
    const call = fetch(`${base}/mcp`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        authorization: 'Bearer alice',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ask', arguments: { question: 'What is the refund policy?' } },
      }),
    }).catch((error: unknown) => error);
    // Wait for the model call (counting calls, not time), then go away.
    while (llm.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect(await call).toBeInstanceOf(Error);
    const signal = llm.calls[0]!.request.signal!;
    await new Promise<void>((resolve) =>
      signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve()),
    );
    expect(signal.aborted).toBe(true);
  });

  it('is 404 when not enabled, and names the package when the SDK cannot be loaded', async () => {
    const engine = await engineWithHandbook();
    const base = await serve(engine, { mcp: undefined });
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: 'Bearer alice', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    const missing = createMcpServer(engine, {
      userId: 'u',
      library: () => Promise.reject(new Error('Cannot find package')),
    });
    await expect(missing).rejects.toThrow(/Cannot find package/);
    await expect(
      import('../../src/util/optional-import.js').then(({ importOptional }) =>
        importOptional({
          name: '@modelcontextprotocol/sdk',
          load: () => Promise.reject(new Error('ERR_MODULE_NOT_FOUND')),
          neededBy: 'the cortexis MCP server',
        }),
      ),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
