/**
 * The check every chat route runs before it writes anything (a conversation created on first
 * use, a `new` conversation of the OpenAI routes): the turn request as the engine will parse it,
 * so what the engine would refuse (a NUL, a lone surrogate, `topK` or `temperature` out of
 * range, a malformed id) is a 400 with nothing created.
 */
import type { ChatEngine } from '../engine.js';
import { ValidationError } from '../errors/index.js';
import type { ChatRequest } from '../types.js';
import { chatRequestSchema, parseInput } from '../validate.js';

/**
 * Throws the `ValidationError` the engine's turn would throw for `request`, its issue paths
 * renamed to the client's fields (`rename`: engine field → client field, e.g. `sessionId` →
 * `id`); else returns the request.
 */
export function checkTurnInput<R extends ChatRequest>(
  engine: ChatEngine,
  request: R,
  rename: Readonly<Record<string, string>> = {},
): R {
  try {
    parseInput(chatRequestSchema(engine.config.limits.maxMessageLength), request, 'chat request');
  } catch (error) {
    if (!ValidationError.isInstance(error) || Object.keys(rename).length === 0) throw error;
    const issues = error.issues.map((issue) => {
      const [head = '', ...rest] = issue.path.split('.');
      const renamed = rename[head];
      return renamed === undefined ? issue : { ...issue, path: [renamed, ...rest].join('.') };
    });
    const described = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    throw new ValidationError(`Invalid body: ${described}`, issues);
  }
  return request;
}
