/**
 * `cortexis/mcp`: a Model Context Protocol server over a chat engine, on the official
 * `@modelcontextprotocol/sdk` (an optional peer dependency, installed next to cortexis and loaded
 * on first use). Tools `search` and `ask`, the documents as resources. Serve it over Streamable
 * HTTP from `cortexis/http` with {@link createMcpEndpoint}, over stdio with the `cortexis mcp`
 * command, or over any transport of the SDK with {@link createMcpServer}. See `docs/mcp.md`.
 *
 * @example
 * ```ts
 * import { createChatHandler } from 'cortexis/http';
 * import { createMcpEndpoint } from 'cortexis/mcp';
 *
 * const handler = createChatHandler(engine, {
 *   authenticate,
 *   mcp: createMcpEndpoint({ documents }), // POST {basePath}/mcp
 * });
 * ```
 * @module
 */
export { createMcpEndpoint, type McpEndpointSettings } from './endpoint.js';
export {
  createMcpServer,
  type McpDocument,
  type McpLibrary,
  type McpServerHandle,
  type McpServerSettings,
} from './server.js';
export type { McpEndpoint, McpRequestContext } from '../../http/mcp-route.js';
