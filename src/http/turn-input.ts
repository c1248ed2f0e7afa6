/**
 * The check every chat route runs before it writes anything (a conversation created on first
 * use, a `new` conversation of the OpenAI routes): the turn request as the engine will parse it,
 * so what the engine would refuse (a NUL, a lone surrogate, `topK` or `temperature` out of
 * range, a malformed id) is a 400 with nothing created.
 */
import type { ChatEngine } from '../engine.js';
import type { ChatRequest } from '../types.js';
import { chatRequestSchema, parseInput } from '../validate.js';

/** Throws the `ValidationError` the engine's turn would throw for `request`; else returns it. */
export function checkTurnInput<R extends ChatRequest>(engine: ChatEngine, request: R): R {
  parseInput(chatRequestSchema(engine.config.limits.maxMessageLength), request, 'chat request');
  return request;
}
