/**
 * How `cortexis/http` mounts an MCP endpoint without loading the MCP SDK: `ChatHandlerSettings.mcp`
 * takes an {@link McpEndpoint} made by `createMcpEndpoint` from `cortexis/mcp` (the subpath that
 * exists for the SDK), and the handler calls it for `{basePath}/mcp` after authenticating, with
 * its rate limit and body limit. Types only: nothing here imports the SDK.
 * @module
 */
import type { ChatEngine } from '../engine.js';
import type { LimitBudget, LimitedUser } from './request.js';

/** What a handler gives the MCP endpoint for one request. */
export interface McpRequestContext {
  /** The engine the handler serves. */
  readonly engine: ChatEngine;
  /** The authenticated caller: tools run as this user. */
  readonly user: LimitedUser;
  /** The handler's per-user rate limit (the same budgets as every other route). */
  readonly limit: (budget: LimitBudget) => Promise<void>;
  /** The handler's body limit, bytes. */
  readonly maxBodyBytes: number;
}

/** An MCP endpoint a handler mounts at `{basePath}/mcp` (see `createMcpEndpoint`). */
export interface McpEndpoint {
  /** Answers one request to `{basePath}/mcp` of an authenticated caller. */
  readonly handle: (request: Request, context: McpRequestContext) => Promise<Response>;
}
