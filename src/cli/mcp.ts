/**
 * `cortexis mcp <path…>`: a Model Context Protocol server over stdio for desktop MCP clients
 * (Claude Desktop, editors, agents). Indexes the paths as `ask` does (reusing the cached index),
 * then serves the tools `search` and `ask` and the documents as resources until stdin closes.
 * stdout carries only the protocol; progress and errors go to stderr. Needs
 * `@modelcontextprotocol/sdk` installed next to cortexis.
 */
import { parseArgs } from 'node:util';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMemoryRateLimiter } from '../adapters/memory/rate-limiter.js';
import { RateLimitError } from '../errors/index.js';
import { createMcpServer, type McpDocument } from '../integrations/mcp/server.js';
import { loadDocuments } from '../loaders/index.js';
import { importOptional } from '../util/optional-import.js';
import { rateLimitKey } from '../util/rate-limit-key.js';
import { EXIT, PROVIDERS, ignorePatterns, type ProviderName } from './args.js';
import type { CliIO } from './io.js';
import { openIndex, readOptions } from './open-index.js';
import { counted } from './render.js';

export const MCP_USAGE = `Usage: cortexis mcp <path...> [options]

Serves the files and folders given to an MCP client over stdio: the tools 'search' (passages
with sources and scores) and 'ask' (an answer with sources, confidence and refusal), and the
documents as resources. The index is built or updated first, as for 'ask'. Needs
@modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk). See docs/mcp.md.

Options:
  --user <id>        the user the calls run as (default: cli, whose sessions 'sessions' lists)
  --no-rate-limit    do not limit tool calls (default: 60 per 5 minutes, as the HTTP routes)
  --provider <name>  openai | anthropic | ollama | extractive (default: from the environment)
  --model <id>       the provider's model
  --no-cache         rebuild the index from scratch instead of updating it
  --text-field <f>   JSON/JSONL records: the field holding the text (default: text)
  --title-field <f>  JSON/JSONL records: the field holding the title (default: title)
  --ignore <pattern> leave out matching files and folders (repeatable; also read from a
                     folder's .cortexisignore)
  -h, --help         show this help`;

/** Runs `cortexis mcp` with its arguments (after `mcp`); resolves with the exit code. */
export async function runMcp(argv: readonly string[], io: CliIO): Promise<number> {
  let values: ReturnType<typeof parse>['values'];
  let paths: string[];
  let ignore: string[] | undefined;
  try {
    ({ values, positionals: paths } = parse(argv));
    ignore = ignorePatterns(values, 'mcp');
  } catch (error) {
    io.stderr.write(`cortexis: ${(error as Error).message}\n${MCP_USAGE}\n`);
    return EXIT.usage;
  }
  if (values.help) {
    io.stdout.write(`${MCP_USAGE}\n`);
    return EXIT.ok;
  }
  const provider = values.provider;
  if (provider !== undefined && !(PROVIDERS as readonly string[]).includes(provider)) {
    io.stderr.write(`cortexis: --provider must be one of ${PROVIDERS.join(', ')}\n`);
    return EXIT.usage;
  }
  const userId = values.user ?? 'cli';
  if (paths.length === 0 || userId.length === 0 || userId.length > 256) {
    io.stderr.write(
      `cortexis: ${paths.length === 0 ? 'give at least one path' : '--user must be 1-256 characters'}\n${MCP_USAGE}\n`,
    );
    return EXIT.usage;
  }
  const fields = {
    ...(values['text-field'] === undefined ? {} : { textField: values['text-field'] }),
    ...(values['title-field'] === undefined ? {} : { titleField: values['title-field'] }),
    ...(ignore === undefined ? {} : { ignore }),
  };
  const { StdioServerTransport: Transport } = await importOptional<{
    StdioServerTransport: typeof StdioServerTransport;
  }>({
    name: '@modelcontextprotocol/sdk',
    load: () => import('@modelcontextprotocol/sdk/server/stdio.js'),
    exportName: 'StdioServerTransport',
    neededBy: 'cortexis mcp',
  });
  // Progress and the model line go to stderr: stdout is the protocol's.
  const opened = await openIndex(
    { ...io, stdout: io.stderr },
    {
      paths,
      noCache: values['no-cache'] === true,
      progress: false,
      persist: true,
      ...(provider === undefined ? {} : { provider: provider as ProviderName }),
      ...(values.model === undefined ? {} : { model: values.model }),
      ...fields,
    },
  );
  const limiter = values['no-rate-limit'] ? undefined : createMemoryRateLimiter();
  const server = await createMcpServer(opened.engine, {
    userId,
    limit: async (budget) => {
      if (!limiter) return;
      const decision = await limiter.hit(rateLimitKey(budget, 'user', userId), Date.now());
      if (!decision.allowed) {
        throw new RateLimitError(
          budget === 'create' ? 'Too many new conversations' : 'Too many calls',
          decision.retryAfterMs,
        );
      }
    },
    // Read again on first use: the index keeps chunks, the resources serve whole documents.
    documents: async (): Promise<McpDocument[]> =>
      (await loadDocuments(paths, readOptions(fields))).documents.map((doc) => ({
        id: doc.id,
        text: doc.text,
        ...(doc.title === undefined ? {} : { title: doc.title }),
        ...(doc.uri === undefined ? {} : { uri: doc.uri }),
      })),
  });
  const closed = new Promise<void>((resolve) => {
    io.stdin.once('end', resolve);
    io.stdin.once('close', resolve);
    io.onInterrupt?.(resolve);
  });
  await server.connect(
    new Transport(io.stdin as NodeJS.ReadStream, io.stdout as NodeJS.WriteStream),
  );
  io.stderr.write(
    `MCP server ready on stdio (${counted(opened.documents, 'document')}, user ${userId})\n`,
  );
  await closed;
  await server.close();
  return EXIT.ok;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      user: { type: 'string' },
      'no-rate-limit': { type: 'boolean' },
      provider: { type: 'string' },
      model: { type: 'string' },
      'no-cache': { type: 'boolean' },
      'text-field': { type: 'string' },
      'title-field': { type: 'string' },
      ignore: { type: 'string', multiple: true },
    },
  });
}
