/**
 * The OpenAI-compatible routes of `cortexis/http` (opt-in with `openaiCompatible`): `POST
 * /v1/chat/completions` (JSON, or Server-Sent Events ending with `data: [DONE]`), `POST
 * /v1/responses` (the Responses API, JSON or its typed events) and `GET /v1/models`, so the
 * official `openai` client and the UIs built on it talk to an engine.
 * Answers keep their `[source: Sn]` citations in the text; sources, confidence and grounding
 * travel in the `cortexis` extension field of the completion (of the chunk carrying
 * `finish_reason` when streaming).
 *
 * A conversation is stateless by default — the `messages` array is the history: the last user
 * message is the question, earlier user and assistant turns are given to the engine as history
 * (`ChatRequest.history`), so a follow-up is rewritten into a standalone query before retrieval
 * and nothing is stored. The header `x-cortexis-conversation-id` names a stored conversation of
 * the caller instead (`new` starts one): only the last user message is new, the server keeps
 * the rest.
 *
 *
 * The parts live next to this file: `openai-request.ts` (body validation), `openai-response.ts`
 * (the JSON completion, the model list, usage), `openai-stream.ts` (the SSE writer) and
 * `openai-error.ts` (OpenAI's error body), `openai-fields.ts` (the fields honoured or refused),
 * `openai-responses.ts` and `openai-responses-stream.ts` (the Responses API).
 * @example
 * ```ts
 * import OpenAI from 'openai';
 *
 * // Server: createChatHandler(engine, { authenticate, openaiCompatible: true }) at /api
 * const client = new OpenAI({ baseURL: 'https://example.com/api/v1', apiKey: userToken });
 * const completion = await client.chat.completions.create({
 *   model: 'cortexis',
 *   messages: [{ role: 'user', content: 'What is the refund policy?' }],
 * });
 * completion.choices[0]?.message.content; // "Refunds are issued within 14 days [source: S1]."
 * ```
 * @module
 */
import type { ChatEngine } from '../engine.js';
import { createGptTokenizer } from '../adapters/tokenizer/gpt-tokenizer.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import type { ChatRequest } from '../types.js';
import { ulid } from '../util/ids.js';
import { errorJson } from './openai-error.js';
import { parseCompletionRequest } from './openai-request.js';
import {
  completionResponse,
  JSON_HEADERS,
  modelListResponse,
  type TokenCounter,
} from './openai-response.js';
import { parseResponsesRequest, responseObject } from './openai-responses.js';
import { responseFrames } from './openai-responses-stream.js';
import { completionFrames } from './openai-stream.js';
import { checkTurnInput } from './turn-input.js';
import { HttpError, readJson, type LimitBudget, type LimitedUser } from './request.js';

export type { CortexisCompletionExtension } from './openai-response.js';

/** Settings of the OpenAI-compatible routes (`ChatHandlerSettings.openaiCompatible`). */
export interface OpenAICompatibleSettings {
  /**
   * Model ids `GET /v1/models` lists and `model` must name (default `['cortexis']`); any of them
   * is answered by the engine's own model and echoed in the completion's `model`. Another id
   * is 404 `model_not_found`, as OpenAI answers.
   */
  readonly models?: readonly string[] | undefined;
  /** `owned_by` of the listed models (default `cortexis`). */
  readonly ownedBy?: string | undefined;
  /**
   * Request header naming a stored conversation of the caller to continue (default
   * `x-cortexis-conversation-id`); the value `new` starts one. The answer names it in the same
   * response header. Without it a conversation is stateless.
   */
  readonly conversationHeader?: string | undefined;
  /**
   * Largest accepted body of `/v1/chat/completions` in bytes (default: the handler's
   * `maxBodyBytes`). OpenAI clients send the whole conversation each time: raise it for long
   * stateless conversations.
   */
  readonly maxBodyBytes?: number | undefined;
}

/** What the OpenAI-compatible routes need from the handler that mounts them. */
export interface OpenAIRouteContext {
  /** The handler's `authenticate`. */
  readonly authenticate: (request: Request) => LimitedUser | null | Promise<LimitedUser | null>;
  /** The handler's per-user rate limit (the same budgets as the native routes). */
  readonly limit: (request: Request, user: LimitedUser, budget: LimitBudget) => Promise<void>;
  /** The handler's body limit, bytes. */
  readonly maxBodyBytes: number;
}

/** Serves one `/v1/…` request (`segments`: the path after the base path, starting at `v1`). */
export type OpenAIRoutes = (
  request: Request,
  segments: readonly string[],
  method: string,
) => Promise<Response>;

const DEFAULT_MODELS = ['cortexis'];
const DEFAULT_CONVERSATION_HEADER = 'x-cortexis-conversation-id';

/**
 * Creates the OpenAI-compatible routes of a handler. `createChatHandler` mounts them at
 * `{basePath}/v1` when `openaiCompatible` is set; use this directly only to mount them yourself.
 */
export function createOpenAIRoutes(
  engine: ChatEngine,
  settings: OpenAICompatibleSettings,
  context: OpenAIRouteContext,
): OpenAIRoutes {
  const models = settings.models && settings.models.length > 0 ? settings.models : DEFAULT_MODELS;
  const ownedBy = settings.ownedBy ?? 'cortexis';
  const header = (settings.conversationHeader ?? DEFAULT_CONVERSATION_HEADER).toLowerCase();
  const maxBodyBytes = settings.maxBodyBytes ?? context.maxBodyBytes;
  const created = Math.floor(Date.now() / 1000);
  let tokenizer: Promise<Tokenizer> | undefined;
  const loadTokenizer: TokenCounter = () =>
    (tokenizer ??= engine.config.tokenizer
      ? Promise.resolve(engine.config.tokenizer)
      : createGptTokenizer());

  const listModels = (): Response => modelListResponse(models, ownedBy, created);

  /** The conversation the header names (created for `new`), or null when stateless. */
  const conversation = async (
    request: Request,
    user: LimitedUser,
  ): Promise<{ id: string; holdText: boolean | undefined } | null> => {
    const named = request.headers.get(header)?.trim();
    if (named === undefined || named === '') return null;
    if (named === 'new') {
      await context.limit(request, user, 'create');
      const session = await engine.createSession({ userId: user.id });
      return { id: session.id, holdText: undefined };
    }
    // Another user's conversation is as unknown as a missing one (404), before any turn.
    const session = await engine.getSession({ sessionId: named, userId: user.id });
    const policy = session.settings.judgePolicy;
    return { id: session.id, holdText: policy === undefined ? undefined : policy !== 'annotate' };
  };

  /**
   * Runs a turn of either route: the request is checked as the engine will check it before
   * anything is written (a `new` conversation included), then answered as JSON or a stream.
   */
  const answer = async (
    request: Request,
    user: LimitedUser,
    route: 'chat' | 'responses',
  ): Promise<Response> => {
    const body = await readJson(request, maxBodyBytes);
    const limits = { models, maxMessageLength: engine.config.limits.maxMessageLength };
    const parsed =
      route === 'chat' ? parseCompletionRequest(body, limits) : parseResponsesRequest(body, limits);
    const turnOptions = {
      userId: user.id,
      message: parsed.question,
      signal: request.signal,
      ...(parsed.temperature === undefined ? {} : { temperature: parsed.temperature }),
      ...(parsed.maxTokens === undefined ? {} : { maxTokens: parsed.maxTokens }),
    };
    const stateless = {
      mode: 'query' as const,
      ...(parsed.history.length > 0 ? { history: parsed.history } : {}),
    };
    // What the engine would refuse is a 400 before a conversation is created or a turn counted.
    checkTurnInput(engine, { ...turnOptions, ...stateless });
    await context.limit(request, user, 'message');
    const named = await conversation(request, user);
    const chatRequest: ChatRequest = {
      ...turnOptions,
      ...(named ? { sessionId: named.id } : stateless),
    };
    const extraHeaders: Record<string, string> = named ? { [header]: named.id } : {};
    const responses =
      route === 'responses'
        ? {
            id: `resp_${ulid()}`,
            messageId: `msg_${ulid()}`,
            createdAt: Math.floor(Date.now() / 1000),
            parsed,
          }
        : undefined;
    const id = `chatcmpl-${ulid()}`;
    if (!parsed.stream) {
      const response = await engine.chat(chatRequest);
      if (!responses) return completionResponse(id, parsed, response, loadTokenizer, extraHeaders);
      const object = await responseObject(
        responses,
        { status: 'completed', response },
        loadTokenizer,
      );
      return new Response(JSON.stringify(object), {
        status: 200,
        headers: { ...JSON_HEADERS, ...extraHeaders },
      });
    }
    const stream = engine.stream(chatRequest);
    const iterator = stream[Symbol.asyncIterator]();
    // A turn refused before it starts (the engine's rate limit, validation) is an HTTP error
    // the client understands, not a stream that fails at once.
    const first = await iterator.next();
    if (!first.done && first.value.type === 'error') {
      await iterator.return?.();
      return errorJson(
        await stream.response.then(
          () => undefined,
          (caught: unknown) => caught,
        ),
      );
    }
    const judge = engine.config.judge;
    const holdText = judge.mode !== 'off' && (named?.holdText ?? judge.policy !== 'annotate');
    const frames = responses
      ? responseFrames(stream, iterator, first, {
          head: responses,
          holdText,
          tokenizer: loadTokenizer,
        })
      : completionFrames(stream, iterator, first, {
          head: { id, created: Math.floor(Date.now() / 1000), model: parsed.model },
          parsed,
          holdText,
          tokenizer: loadTokenizer,
        });
    return new Response(frames, {
      status: 200,
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        ...extraHeaders,
      },
    });
  };

  return async (request, segments, method) => {
    try {
      const user = await context.authenticate(request);
      if (!user) {
        return errorJson(new HttpError(401, 'invalid_api_key', 'Authentication required'));
      }
      const path = segments.join('/');
      if (path === 'v1/models' && method === 'GET') return listModels();
      if (path === 'v1/chat/completions' && method === 'POST') {
        return await answer(request, user, 'chat');
      }
      if (path === 'v1/responses' && method === 'POST') {
        return await answer(request, user, 'responses');
      }
      return errorJson(new HttpError(404, 'not_found', 'No such route'));
    } catch (error) {
      return errorJson(error);
    }
  };
}

/** The settings of `openaiCompatible` (`true`: the defaults), or undefined when off. */
export function resolveOpenAISettings(
  value: boolean | OpenAICompatibleSettings | undefined,
): OpenAICompatibleSettings | undefined {
  if (value === true) return {};
  return value === false || value === undefined ? undefined : value;
}

/**
 * Adds what an OpenAI client in a browser sends and reads to a handler's CORS headers (its
 * `x-stainless-*` headers and the conversation header); a no-op when CORS is off.
 */
export function addOpenAICorsHeaders(
  headers: Record<string, string>,
  settings: OpenAICompatibleSettings,
): void {
  const allow = headers['access-control-allow-headers'];
  const expose = headers['access-control-expose-headers'];
  if (allow === undefined) return;
  const conversation = (settings.conversationHeader ?? DEFAULT_CONVERSATION_HEADER).toLowerCase();
  headers['access-control-allow-headers'] = [allow, conversation, ...CLIENT_HEADERS].join(', ');
  headers['access-control-expose-headers'] = [expose ?? '', conversation, 'x-request-id']
    .filter(Boolean)
    .join(', ');
}

/** Headers the official `openai` client sends with every request. */
const CLIENT_HEADERS = [
  'openai-organization',
  'openai-project',
  'x-stainless-arch',
  'x-stainless-lang',
  'x-stainless-os',
  'x-stainless-package-version',
  'x-stainless-retry-count',
  'x-stainless-runtime',
  'x-stainless-runtime-version',
  'x-stainless-timeout',
];
