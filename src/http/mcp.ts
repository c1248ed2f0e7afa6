/**
 * The Model Context Protocol endpoint of `cortexis/http` (opt-in with `mcp`): `POST
 * {basePath}/mcp` speaks MCP's Streamable HTTP transport, statelessly — every request gets a
 * server of its own for the authenticated user, so any instance can answer it. The tools and
 * resources are those of `createMcpServer`; the SDK (`@modelcontextprotocol/sdk`, an optional
 * peer) is loaded on the first request.
 * @module
 */
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { ChatEngine } from '../engine.js';
import { createMcpServer, type McpDocument, type McpLibrary } from '../integrations/mcp/server.js';
import { importOptional, type LibrarySource } from '../util/optional-import.js';
import { json, readJson, type LimitBudget, type LimitedUser } from './request.js';

/** Settings of the MCP endpoint (`ChatHandlerSettings.mcp`). */
export interface McpRouteSettings {
  /** The documents listed as resources, or a function loading them (default: none). */
  readonly documents?: readonly McpDocument[] | (() => Promise<readonly McpDocument[]>) | undefined;
  /** The server's name in `initialize` (default `cortexis`). */
  readonly name?: string | undefined;
  /** The server's version in `initialize`. */
  readonly version?: string | undefined;
  /** The SDK's server modules, or a function loading them (default: imported on first use). */
  readonly library?: LibrarySource<McpLibrary> | undefined;
}

/** What the endpoint needs from the handler that mounts it. */
export interface McpRouteContext {
  readonly limit: (request: Request, user: LimitedUser, budget: LimitBudget) => Promise<void>;
  readonly maxBodyBytes: number;
}

type TransportClass = typeof WebStandardStreamableHTTPServerTransport;

/** Serves one MCP request of an authenticated user. */
export type McpRoute = (request: Request, user: LimitedUser, method: string) => Promise<Response>;

/** Creates the MCP endpoint; `createChatHandler` mounts it at `{basePath}/mcp` when `mcp` is set. */
export function createMcpRoute(
  engine: ChatEngine,
  settings: McpRouteSettings,
  context: McpRouteContext,
): McpRoute {
  let transportClass: Promise<TransportClass> | undefined;
  const loadTransport = () =>
    (transportClass ??= importOptional<{
      WebStandardStreamableHTTPServerTransport: TransportClass;
    }>({
      name: '@modelcontextprotocol/sdk',
      load: () => import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      exportName: 'WebStandardStreamableHTTPServerTransport',
      neededBy: 'cortexis/http (mcp)',
      setting: 'mcp.library',
    }).then((module) => module.WebStandardStreamableHTTPServerTransport));
  return async (request, user, method) => {
    // Stateless: no session to resume (GET) or end (DELETE).
    if (method !== 'POST') {
      const response = json(405, { code: 'method_not_allowed', message: 'Use POST' });
      response.headers.set('allow', 'POST');
      return response;
    }
    const body = await readJson(request, context.maxBodyBytes);
    const Transport = await loadTransport();
    const server = await createMcpServer(engine, {
      userId: user.id,
      limit: (budget) => context.limit(request, user, budget),
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
}
