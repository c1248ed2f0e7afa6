/**
 * The Model Context Protocol over Streamable HTTP, for `cortexis/http`'s handler:
 * `createChatHandler(engine, { mcp: createMcpEndpoint({ documents }) })` serves `POST
 * {basePath}/mcp` statelessly — every request gets a server of its own for the authenticated
 * user, so any instance can answer it. The tools and resources are those of `createMcpServer`;
 * the SDK (`@modelcontextprotocol/sdk`, an optional peer) is loaded on the first request.
 * @module
 */
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { json, readJson } from '../../http/request.js';
import type { McpEndpoint } from '../../http/mcp-route.js';
import { importOptional, type LibrarySource } from '../../util/optional-import.js';
import { createMcpServer, type McpDocument, type McpLibrary } from './server.js';

/** Settings of {@link createMcpEndpoint}. */
export interface McpEndpointSettings {
  /** The documents listed as resources, or a function loading them (default: none). */
  readonly documents?: readonly McpDocument[] | (() => Promise<readonly McpDocument[]>) | undefined;
  /** The server's name in `initialize` (default `cortexis`). */
  readonly name?: string | undefined;
  /** The server's version in `initialize`. */
  readonly version?: string | undefined;
  /** The SDK's server modules, or a function loading them (default: imported on first use). */
  readonly library?: LibrarySource<McpLibrary> | undefined;
}

type TransportClass = typeof WebStandardStreamableHTTPServerTransport;

/**
 * The MCP endpoint for `ChatHandlerSettings.mcp` of `cortexis/http`: tools `search` and `ask`,
 * the given documents as resources.
 *
 * @example
 * ```ts
 * import { createChatHandler } from 'cortexis/http';
 * import { createMcpEndpoint } from 'cortexis/mcp';
 *
 * const handler = createChatHandler(engine, { authenticate, mcp: createMcpEndpoint({ documents }) });
 * ```
 */
export function createMcpEndpoint(settings: McpEndpointSettings = {}): McpEndpoint {
  let transportClass: Promise<TransportClass> | undefined;
  const loadTransport = () =>
    (transportClass ??= importOptional<{
      WebStandardStreamableHTTPServerTransport: TransportClass;
    }>({
      name: '@modelcontextprotocol/sdk',
      load: () => import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      exportName: 'WebStandardStreamableHTTPServerTransport',
      neededBy: 'cortexis/mcp',
      setting: 'mcp.library',
    }).then((module) => module.WebStandardStreamableHTTPServerTransport));
  const handle: McpEndpoint['handle'] = async (request, { engine, user, limit, maxBodyBytes }) => {
    // Stateless: no session to resume (GET) or end (DELETE).
    if (request.method.toUpperCase() !== 'POST') {
      const response = json(405, { code: 'method_not_allowed', message: 'Use POST' });
      response.headers.set('allow', 'POST');
      return response;
    }
    const body = await readJson(request, maxBodyBytes);
    const Transport = await loadTransport();
    const server = await createMcpServer(engine, {
      userId: user.id,
      limit,
      signal: request.signal,
      documents: settings.documents,
      name: settings.name,
      version: settings.version,
      library: settings.library,
    });
    const transport = new Transport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: body });
    } finally {
      await server.close();
    }
  };
  return { handle };
}
