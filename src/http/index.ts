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
export { clientError, errorResponse, type ErrorBody } from './errors.js';
export { toNodeListener } from './node.js';
