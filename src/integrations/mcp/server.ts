/**
 * A Model Context Protocol server over a chat engine, built on the official
 * `@modelcontextprotocol/sdk` (an optional peer dependency, loaded on first use with
 * `importOptional`, so importing `cortexis/http` or the CLI does not load it). Tools: `search`
 * (chunks with their sources and scores) and `ask` (an answer with sources, confidence and
 * whether it was a refusal); the documents the host names are resources. Every call runs as one
 * user (their conversations only) and counts in the host's rate limit. The transports are the
 * callers': `cortexis mcp` (stdio) and the Streamable HTTP route of `cortexis/http`.
 * @module
 */
import type { Server as SdkServer } from '@modelcontextprotocol/sdk/server/index.js';
import type * as SdkTypes from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import type { ChatEngine } from '../../engine.js';
import { clientError } from '../../errors/client.js';
import { CortexisError, ValidationError } from '../../errors/index.js';
import type { ChatRequest, SearchHit } from '../../types.js';
import { importOptional, type LibrarySource } from '../../util/optional-import.js';
import { intRange } from '../../util/schema.js';
import { chatRequestSchema, parseInput } from '../../validate.js';

/** A document the server lists and serves as a resource. */
export interface McpDocument {
  readonly id: string;
  readonly text: string;
  readonly title?: string | undefined;
  readonly uri?: string | undefined;
}

/**
 * The SDK modules the server needs, injectable (by a bundler or a test): `Server` from
 * `@modelcontextprotocol/sdk/server/index.js` and the module `@modelcontextprotocol/sdk/types.js`.
 * Typed loosely so that cortexis's declarations never name the SDK's.
 */
export interface McpLibrary {
  readonly Server: unknown;
  readonly types: unknown;
}

/** {@link McpLibrary} as the SDK types it. */
interface SdkLibrary {
  readonly Server: typeof SdkServer;
  readonly types: typeof SdkTypes;
}

/** Settings of {@link createMcpServer}. */
export interface McpServerSettings {
  /** The user every call runs as: `ask` continues only their conversations. */
  readonly userId: string;
  /**
   * Counts in the host's rate limit: every tool call in `message`, a conversation `ask` starts
   * in `create`; throws `RateLimitError` to refuse it (the call is then an error result naming
   * the limit).
   */
  readonly limit?: ((budget: 'message' | 'create') => Promise<void>) | undefined;
  /**
   * The documents listed as resources (`cortexis://document/<id>`), or a function loading
   * them on the first `resources/list` or `resources/read` (default: none).
   */
  readonly documents?: readonly McpDocument[] | (() => Promise<readonly McpDocument[]>) | undefined;
  /**
   * Aborts every call when it aborts, besides the client's own cancellation (the HTTP route
   * passes its request's signal: a client that disconnects stops its turn).
   */
  readonly signal?: AbortSignal | undefined;
  /** The server's name in `initialize` (default `cortexis`). */
  readonly name?: string | undefined;
  /** The server's version in `initialize` (default `0.0.0`). */
  readonly version?: string | undefined;
  /** The SDK, or a function loading it (default: imported on first use). */
  readonly library?: LibrarySource<McpLibrary> | undefined;
}

/** A connected-or-not MCP server (the SDK's `Server`): connect it to a transport. */
export interface McpServerHandle {
  connect(transport: unknown): Promise<void>;
  close(): Promise<void>;
}

/** Resources per page of `resources/list`. */
const PAGE_SIZE = 100;
/** Longest text of one search result sent to the client. */
const MAX_HIT_TEXT = 4000;
const RESOURCE_PREFIX = 'cortexis://document/';

/** Loads the SDK's server and protocol types, or throws a `ConfigError` naming the package. */
async function loadMcpLibrary(injected?: LibrarySource<McpLibrary>): Promise<SdkLibrary> {
  if (injected !== undefined) {
    return (typeof injected === 'function' ? await injected() : injected) as SdkLibrary;
  }
  const request = {
    name: '@modelcontextprotocol/sdk',
    neededBy: 'the cortexis MCP server',
    setting: 'mcp.library',
  };
  const [server, types] = await Promise.all([
    importOptional<{ Server: typeof SdkServer }>({
      ...request,
      load: () => import('@modelcontextprotocol/sdk/server/index.js'),
      exportName: 'Server',
    }),
    importOptional<typeof SdkTypes>({
      ...request,
      load: () => import('@modelcontextprotocol/sdk/types.js'),
      exportName: 'McpError',
    }),
  ]);
  return { Server: server.Server, types };
}

/** A tool's arguments, by tool. */
function argumentSchemas(maxMessageLength: number) {
  const text = z.string().check(z.minLength(1), z.maxLength(maxMessageLength));
  return {
    search: z.strictObject({ query: text, k: z.optional(intRange(1, 50)) }),
    ask: z.strictObject({
      question: text,
      conversationId: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
      topK: z.optional(intRange(1, 50)),
    }),
  };
}

/** The tools, as `tools/list` describes them (JSON Schema of their arguments). */
function toolList(maxMessageLength: number) {
  return [
    {
      name: 'search',
      title: 'Search the documents',
      description:
        'Finds the passages of the indexed documents most relevant to a query, with their source (document, title, uri, section) and a relevance score in [0, 1]. No answer is generated.',
      inputSchema: {
        type: 'object' as const,
        properties: {
          query: { type: 'string', minLength: 1, maxLength: maxMessageLength },
          k: { type: 'integer', minimum: 1, maximum: 50, description: 'Results (default 5)' },
        },
        required: ['query'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: 'ask',
      title: 'Ask the documents',
      description:
        'Answers a question from the indexed documents only, citing them as [source: Sn]. Returns the answer, its sources, a confidence level and whether it was a refusal (refused: which stage declined and why). Pass conversationId to continue a conversation, or "new" to start one.',
      inputSchema: {
        type: 'object' as const,
        properties: {
          question: { type: 'string', minLength: 1, maxLength: maxMessageLength },
          conversationId: {
            type: 'string',
            description: 'A conversation to continue, or "new" to start one (default: none)',
          },
          topK: { type: 'integer', minimum: 1, maximum: 50 },
        },
        required: ['question'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
  ];
}

/** A search hit as the client sees it. */
function hitOf(hit: SearchHit) {
  const section = hit.metadata['section'];
  return {
    id: hit.id,
    documentId: hit.documentId,
    chunkId: hit.chunkId,
    title: hit.title,
    uri: hit.uri,
    section: typeof section === 'string' && section.length > 0 ? section : null,
    score: hit.score,
    text: hit.text.length > MAX_HIT_TEXT ? `${hit.text.slice(0, MAX_HIT_TEXT)}…` : hit.text,
  };
}

/** A tool result with its text and structured content. */
function result(text: string, structured: Record<string, unknown>) {
  return { content: [{ type: 'text' as const, text }], structuredContent: structured };
}

/** A failed tool call, with a client-safe message (never a provider's or database's own). */
function failure(error: unknown) {
  const body = clientError(error);
  const message = body.message.length > 400 ? `${body.message.slice(0, 399)}…` : body.message;
  return {
    content: [{ type: 'text' as const, text: `Error (${body.code}): ${message}` }],
    isError: true,
  };
}

/**
 * Creates the MCP server of an engine for one user (connect it to a transport). Loads the SDK
 * on first use; without it, a `ConfigError` names the package to install.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * const server = await createMcpServer(engine, { userId: 'local', documents });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export async function createMcpServer(
  engine: ChatEngine,
  settings: McpServerSettings,
): Promise<McpServerHandle> {
  const { Server, types } = await loadMcpLibrary(settings.library);
  const maxMessageLength = engine.config.limits.maxMessageLength;
  const schemas = argumentSchemas(maxMessageLength);
  const { userId } = settings;
  let documents: Promise<readonly McpDocument[]> | undefined;
  const loadDocuments = () =>
    (documents ??=
      typeof settings.documents === 'function'
        ? settings.documents()
        : Promise.resolve(settings.documents ?? []));

  const server = new Server(
    { name: settings.name ?? 'cortexis', version: settings.version ?? '0.0.0' },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Use `search` to find passages of the documents and `ask` for an answer that cites them.',
    },
  );

  server.setRequestHandler(types.ListToolsRequestSchema, () => ({
    tools: toolList(maxMessageLength),
  }));

  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const signal = settings.signal
      ? AbortSignal.any([extra.signal, settings.signal])
      : extra.signal;
    try {
      if (name !== 'search' && name !== 'ask') {
        throw new ValidationError(`Unknown tool: ${name.slice(0, 64)}`, [
          { path: 'name', message: 'unknown tool' },
        ]);
      }
      const args = request.params.arguments ?? {};
      if (name === 'search') {
        const input = parseInput(schemas.search, args, 'search arguments');
        await settings.limit?.('message');
        const hits = await engine.search(input.query, {
          k: input.k ?? 5,
          signal,
        });
        const results = hits.map(hitOf);
        const text =
          results.length === 0
            ? 'No passage matches.'
            : results
                .map(
                  (hit) =>
                    `[${hit.id}] ${hit.title ?? hit.documentId}${hit.section ? ` › ${hit.section}` : ''} (score ${hit.score.toFixed(2)})\n${hit.text}`,
                )
                .join('\n\n');
        return result(text, { results });
      }
      const input = parseInput(schemas.ask, args, 'ask arguments');
      const turn = {
        userId,
        message: input.question,
        signal,
        ...(input.topK === undefined ? {} : { topK: input.topK }),
      };
      // What the engine would refuse (a NUL, a lone surrogate) is refused before anything is
      // written: no conversation is started for it.
      parseInput(chatRequestSchema(maxMessageLength), { ...turn, mode: 'query' }, 'ask arguments');
      await settings.limit?.('message');
      let sessionId: string | undefined;
      if (input.conversationId === 'new') {
        await settings.limit?.('create');
        sessionId = (await engine.createSession({ userId })).id;
      } else if (input.conversationId !== undefined) {
        // Another user's conversation is as unknown as a missing one.
        sessionId = (await engine.getSession({ sessionId: input.conversationId, userId })).id;
      }
      const chatRequest: ChatRequest = {
        ...turn,
        ...(sessionId === undefined ? { mode: 'query' as const } : { sessionId }),
      };
      const response = await engine.chat(chatRequest);
      const sources = response.sources.map((source) => ({
        id: source.id,
        documentId: source.documentId,
        title: source.title,
        uri: source.uri,
        ...(source.section !== undefined ? { section: source.section } : {}),
        snippet: source.snippet,
        score: source.score,
      }));
      const structured = {
        answer: response.text,
        refusal: response.refused !== null,
        refused: response.refused,
        confidence: { level: response.confidence.level, overall: response.confidence.overall },
        sources,
        conversationId: response.sessionId,
        messageId: response.messageId,
      };
      const cited = sources
        .map((source) => `[${source.id}] ${source.title ?? source.documentId}`)
        .join('\n');
      return result(
        `${response.text}\n\nConfidence: ${response.confidence.level}${response.refused ? ` (refused by the ${response.refused.by}: ${response.refused.reason})` : ''}${cited ? `\nSources:\n${cited}` : ''}`,
        structured,
      );
    } catch (error) {
      if (!CortexisError.isInstance(error) && signal.aborted) throw error;
      return failure(error);
    }
  });

  server.setRequestHandler(types.ListResourcesRequestSchema, async (request) => {
    const all = await loadDocuments();
    const cursor = request.params?.cursor;
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isInteger(start) || start < 0 || start > all.length) {
      throw new types.McpError(types.ErrorCode.InvalidParams, 'Invalid cursor');
    }
    const page = all.slice(start, start + PAGE_SIZE);
    return {
      resources: page.map((doc) => ({
        uri: `${RESOURCE_PREFIX}${encodeURIComponent(doc.id)}`,
        name: doc.id,
        title: doc.title ?? doc.id,
        mimeType: 'text/markdown',
        ...(doc.uri === undefined ? {} : { description: doc.uri }),
      })),
      ...(start + PAGE_SIZE < all.length ? { nextCursor: String(start + PAGE_SIZE) } : {}),
    };
  });

  server.setRequestHandler(types.ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    let id: string | undefined;
    if (uri.startsWith(RESOURCE_PREFIX)) {
      try {
        id = decodeURIComponent(uri.slice(RESOURCE_PREFIX.length));
      } catch {
        id = undefined;
      }
    }
    const doc = id === undefined ? undefined : (await loadDocuments()).find((d) => d.id === id);
    if (!doc) throw new types.McpError(types.ErrorCode.InvalidParams, 'Resource not found');
    return { contents: [{ uri, mimeType: 'text/markdown', text: doc.text }] };
  });

  return server;
}
