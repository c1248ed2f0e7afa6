/**
 * `cortexis/http`: serve a chat engine over HTTP from any framework — a web-standard
 * `(Request) => Promise<Response>` handler, and `toNodeListener` for `node:http`.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createChatEngine } from 'cortexis';
 * import { createChatHandler, toNodeListener } from 'cortexis/http';
 *
 * const engine = createChatEngine();
 * const handler = createChatHandler(engine, {
 *   authenticate: (request) => {
 *     const user = request.headers.get('x-user-id');
 *     return user ? { id: user } : null;
 *   },
 * });
 * createServer(toNodeListener(handler)).listen(3000);
 * ```
 * @module
 */
export {
  createChatHandler,
  type ChatHandler,
  type ChatHandlerSettings,
  type HttpUser,
} from './handler.js';
export { clientError, type ErrorBody } from '../errors/client.js';
export { errorResponse } from './errors.js';
export { openUIChat, parseUIChatRequest, type UIChatTurn } from './ui-chat.js';
export {
  encodeUIMessageStream,
  uiMessageChunks,
  UI_MESSAGE_STREAM_HEADERS,
  type CortexisSourceMetadata,
  type CortexisUIDataChunk,
  type CortexisUIDataTypes,
  type CortexisUIMessageMetadata,
  type UIMessageChunksSettings,
  type UIMessageStreamChunk,
  type UIMessageStreamOptions,
  type UIMessageStreamResponseInit,
} from '../ui-message-stream.js';
export {
  cortexisSources,
  readSourceMetadata,
  type CortexisUISource,
  type UIPartLike,
} from '../ui-message-stream.js';
export { toNodeListener, type NodeRequestLike, type NodeResponseLike } from './node.js';
export type { CortexisCompletionExtension, OpenAICompatibleSettings } from './openai-compatible.js';
export type { McpEndpoint, McpRequestContext } from './mcp-route.js';
export type { LimitBudget, LimitedUser } from './request.js';
