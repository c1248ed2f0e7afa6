/**
 * `cortexis mcp <path…>`: the MCP server over stdio, spawned from the CLI bundled from the sources
 * for this run and driven by the
 * official SDK's own client (`StdioClientTransport`).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from './cli-command.js';

const root = join(import.meta.dirname, '../..');
let cacheDir = '';
let docs = '';
const clients: Client[] = [];

/** The environment of the spawned CLI: no provider keys (offline), its own cache folder. */
const env = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
  OLLAMA_HOST: '',
  CORTEXIS_CACHE_DIR: cacheDir,
});

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'cortexis-mcp-cache-'));
  docs = await mkdtemp(join(tmpdir(), 'cortexis-mcp-docs-'));
  await writeFile(
    join(docs, 'shipping.md'),
    '# Shipping\n\nOrders ship within 2 business days from Rotterdam. International shipping takes up to 10 business days.\n',
  );
  await writeFile(
    join(docs, 'refunds.md'),
    '# Refunds\n\nRefunds are issued within 14 days of the request.\n',
  );
  // Left out by the folder's ignore file: neither searched nor served as a resource.
  await writeFile(join(docs, 'internal.md'), '# Internal\n\nRefunds are secretly instant.\n');
  await writeFile(join(docs, '.cortexisignore'), 'internal.md\n');
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
});

async function connect(args: string[] = []): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: cliArgs(['mcp', docs, ...args]),
      cwd: root,
      env: env(),
      stderr: 'pipe',
    }),
  );
  clients.push(client);
  return client;
}

describe('cortexis mcp (stdio) with the SDK client', { timeout: 90_000 }, () => {
  it('serves search, ask and the documents as resources', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask', 'search']);

    const found = await client.callTool({
      name: 'search',
      arguments: { query: 'international shipping' },
    });
    const { results } = found.structuredContent as {
      results: { documentId: string; score: number; uri: string | null }[];
    };
    expect(results[0]!.documentId).toMatch(/shipping/);
    expect(results[0]!.score).toBeGreaterThan(0);

    const answered = await client.callTool({
      name: 'ask',
      arguments: { question: 'How long do refunds take?' },
    });
    const result = answered.structuredContent as {
      answer: string;
      refusal: boolean;
      sources: unknown[];
      confidence: { level: string };
    };
    expect(result.answer).toMatch(/14 days/);
    expect(result.refusal).toBe(false);
    expect(result.sources.length).toBeGreaterThan(0);

    const { resources } = await client.listResources();
    expect(resources).toHaveLength(2);
    expect(resources.map((resource) => resource.uri).join(' ')).not.toMatch(/internal/);
    const read = await client.readResource({ uri: resources[0]!.uri });
    expect((read.contents[0] as { text: string }).text.length).toBeGreaterThan(0);

    const hostile = await client.callTool({ name: 'ask', arguments: { question: 'a\u0000b' } });
    expect(hostile.isError).toBe(true);
  });

  it('continues a conversation of its user across calls', async () => {
    const client = await connect(['--user', 'desk']);
    const first = await client.callTool({
      name: 'ask',
      arguments: { question: 'Do you ship internationally?', conversationId: 'new' },
    });
    const conversationId = (first.structuredContent as { conversationId: string }).conversationId;
    const second = await client.callTool({
      name: 'ask',
      arguments: { question: 'How long does it take?', conversationId },
    });
    expect((second.structuredContent as { answer: string }).answer).toMatch(/10 business days/);
  });

  it('survives garbage on stdin and keeps stdout for the protocol', async () => {
    const child = spawn(process.execPath, cliArgs(['mcp', docs]), { cwd: root, env: env() });
    let stdout = '';
    const answered = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        if (stdout.includes('"id":7')) resolve();
      });
    });
    const exited = new Promise<number>((resolve) =>
      child.on('close', (code) => resolve(code ?? -1)),
    );
    child.stdin.write('not json at all\n{"jsonrpc":"2.0"\n\u0000\n');
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      })}\n`,
    );
    await answered;
    child.stdin.end();
    expect(await exited).toBe(0);
    // Every line on stdout is a JSON-RPC message: nothing else is printed there.
    for (const line of stdout.split('\n').filter(Boolean)) {
      expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    }
    expect(stdout).toMatch(/"serverInfo"/);
  });

  it('prints usage and exits 2 without a path or with an unknown flag', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number; stderr: string; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, cliArgs(['mcp', ...args]), { cwd: root, env: env() });
        let stderr = '';
        let stdout = '';
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.stdout.on('data', (chunk) => (stdout += chunk));
        child.on('close', (code) => resolve({ code: code ?? -1, stderr, stdout }));
        child.stdin.end();
      });
    const none = await run([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Usage: cortexis mcp/);
    const unknown = await run([docs, '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--user <id>/);
  });
});
