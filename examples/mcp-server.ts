/**
 * An MCP server over an engine: `cortexis/http` serves the Model Context Protocol (Streamable
 * HTTP) at `/mcp` with the endpoint of `cortexis/mcp`, and the official SDK's client calls its tools `search` and `ask` and reads a
 * document resource — offline, with the extractive model. Needs `@modelcontextprotocol/sdk`.
 * Run: node --import tsx examples/mcp-server.ts
 *
 * For a desktop MCP client over stdio, no code is needed: `npx cortexis mcp ./docs` (docs/mcp.md).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createChatEngine } from 'cortexis';
import { createChatHandler, toNodeListener } from 'cortexis/http';
import { createMcpEndpoint } from 'cortexis/mcp';

const documents = [
  {
    id: 'refunds',
    title: 'Refunds',
    text: 'Refunds are issued within 14 days of the request. Gift cards are never refunded.',
  },
  {
    id: 'shipping',
    title: 'Shipping',
    text: 'Orders ship within 2 business days. International shipping takes up to 10 business days.',
  },
];
const engine = createChatEngine();
await engine.ingest(documents);

const handler = createChatHandler(engine, {
  // A real server verifies a token here; the MCP client sends it as `Authorization`.
  authenticate: (request) =>
    request.headers.get('authorization') === 'Bearer demo-token' ? { id: 'demo-user' } : null,
  mcp: createMcpEndpoint({ documents }),
});
const server = createServer(toNodeListener(handler));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);

const client = new Client({ name: 'example', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: 'Bearer demo-token' } },
  }),
);
const { tools } = await client.listTools();
console.log('tools:', tools.map((tool) => tool.name).join(', '));

const found = await client.callTool({ name: 'search', arguments: { query: 'gift cards', k: 1 } });
console.log('search:', (found.content as { text: string }[])[0]?.text.split('\n')[0]);

const answered = await client.callTool({
  name: 'ask',
  arguments: { question: 'How long does international shipping take?' },
});
const answer = answered.structuredContent as { answer: string; refusal: boolean };
console.log(`ask: ${answer.answer}${answer.refusal ? ' (refusal)' : ''}`);

const { resources } = await client.listResources();
console.log('resources:', resources.map((resource) => resource.uri).join(', '));

await client.close();
server.close();
