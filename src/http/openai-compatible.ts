/**
 * The OpenAI-compatible routes of `cortexis/http` (opt-in with `openaiCompatible`): `POST
 * /v1/chat/completions` (JSON, or Server-Sent Events ending with `data: [DONE]`) and `GET
 * /v1/models`, so the official `openai` client and the UIs built on it talk to an engine.
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
import { CortexisError, InternalError, ValidationError } from '../errors/index.js';
import { createGptTokenizer } from '../adapters/tokenizer/gpt-tokenizer.js';
import type { Confidence, MessageStatus, Source } from '../ports/chat-records.js';
import type { Tokenizer } from '../ports/tokenizer.js';
import type { ChatStream } from '../stream.js';
import type {
  ChatRequest,
  ChatResponse,
  ChatStreamPart,
  CitationReport,
  Grounding,
  HistoryTurn,
} from '../types.js';
import { ulid } from '../util/ids.js';
import { errorResponse } from './errors.js';
import { HttpError, readJson, type LimitBudget, type LimitedUser } from './request.js';

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

/**
 * The `cortexis` extension field of a completion (and of the streamed chunk carrying
 * `finish_reason`): what an OpenAI completion has no field for.
 */
export interface CortexisCompletionExtension {
  /** Id of the answer (stored in a named conversation; use it for `POST /messages/{id}/feedback`). */
  readonly messageId: string;
  /** The conversation continued or started, or null for a stateless one. */
  readonly conversationId: string | null;
  /** Sources the answer may cite, labelled S1..Sn as in its `[source: Sn]` tags. */
  readonly sources: readonly Source[];
  /** Confidence with its breakdown. */
  readonly confidence: Confidence;
  /** Per-claim grounding of the answer, or null (guard, small talk, judge off). */
  readonly grounding: Grounding | null;
  /** What the answer cited and which tags were removed. */
  readonly citations: CitationReport;
  /** True when guard mode answered (no sufficiently relevant sources). */
  readonly guard: boolean;
  /** `complete`, or `degraded` when retrieval failed and the answer has no context. */
  readonly status: MessageStatus;
  /** The model that answered behind the engine. */
  readonly model: string;
  /** Whether `usage` is the model's own count (`reported`) or counted by the handler. */
  readonly usage: 'reported' | 'estimated';
}

/** The OpenAI error body. */
interface OpenAIErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: string | null;
    readonly code: string | null;
  };
}

/** OpenAI's token usage. */
interface CompletionUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

/** A validated completion request, as the engine will run it. */
export interface CompletionRequest {
  /** The model id asked for (one of the listed ids). */
  readonly model: string;
  /** The last user message: the question. */
  readonly question: string;
  /** Earlier user and assistant turns, oldest first (system, developer and tool messages left out). */
  readonly history: readonly HistoryTurn[];
  /** Stream the answer. */
  readonly stream: boolean;
  /** Send a usage chunk before `[DONE]`. */
  readonly includeUsage: boolean;
  /** Temperature, when given. */
  readonly temperature: number | undefined;
}

const DEFAULT_MODELS = ['cortexis'];
const DEFAULT_CONVERSATION_HEADER = 'x-cortexis-conversation-id';
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
/** Most earlier turns given to the engine; its own context window keeps fewer. */
const MAX_HISTORY_TURNS = 100;
const encoder = new TextEncoder();

/** A 400 naming the request field (`param`) in OpenAI's notation (`messages[1].content`). */
function invalid(param: string, message: string): ValidationError {
  return new ValidationError(`Invalid body: ${param}: ${message}`, [{ path: param, message }]);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The text of a message's `content`: a string, or an array of `text` parts (joined with a
 * newline). Assistant messages may also have null content (tool calls) and `refusal` parts.
 */
function messageText(content: unknown, role: string, param: string): string {
  if (typeof content === 'string') return content;
  if ((content === null || content === undefined) && role === 'assistant') return '';
  if (!Array.isArray(content)) {
    throw invalid(param, 'must be a string or an array of content parts');
  }
  const texts: string[] = [];
  content.forEach((part: unknown, index) => {
    const at = `${param}[${index}]`;
    if (!isObject(part)) throw invalid(at, 'must be a content part object');
    if (part.type === 'refusal' && role === 'assistant') return;
    if (part.type !== 'text') {
      throw invalid(`${at}.type`, "only 'text' content parts are supported");
    }
    if (typeof part.text !== 'string') throw invalid(`${at}.text`, 'must be a string');
    texts.push(part.text);
  });
  return texts.join('\n');
}

/**
 * Validates an OpenAI chat completion body (fields cortexis does not use are ignored, as
 * OpenAI clients send many) and turns it into the question and its history.
 */
export function parseCompletionRequest(
  body: Record<string, unknown>,
  limits: { readonly models: readonly string[]; readonly maxMessageLength: number },
): CompletionRequest {
  const { model, messages, stream, n, temperature } = body;
  const options = body.stream_options;
  if (typeof model !== 'string' || model.length === 0) {
    throw invalid('model', 'must be a non-empty string');
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalid('messages', 'must be a non-empty array');
  }
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') {
    throw invalid('stream', 'must be a boolean');
  }
  if (options !== undefined && options !== null && !isObject(options)) {
    throw invalid('stream_options', 'must be an object');
  }
  const includeUsage = isObject(options) ? options.include_usage : undefined;
  if (includeUsage !== undefined && includeUsage !== null && typeof includeUsage !== 'boolean') {
    throw invalid('stream_options.include_usage', 'must be a boolean');
  }
  if (n !== undefined && n !== null && n !== 1) throw invalid('n', 'only 1 is supported');
  if (
    temperature !== undefined &&
    temperature !== null &&
    (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))
  ) {
    throw invalid('temperature', 'must be a number between 0 and 2');
  }
  const turns = messages.map((message: unknown, index) => {
    const param = `messages[${index}]`;
    if (!isObject(message)) throw invalid(param, 'must be a message object');
    if (typeof message.role !== 'string' || !ROLES.has(message.role)) {
      throw invalid(`${param}.role`, `must be one of ${[...ROLES].join(', ')}`);
    }
    return {
      role: message.role,
      text: messageText(message.content, message.role, `${param}.content`),
    };
  });
  const lastIndex = turns.length - 1;
  const last = turns[lastIndex]!;
  if (last.role !== 'user') {
    throw invalid(`messages[${lastIndex}].role`, 'the last message must be a user message');
  }
  if (last.text.trim().length === 0) {
    throw invalid(`messages[${lastIndex}].content`, 'must not be empty');
  }
  if (last.text.length > limits.maxMessageLength) {
    throw invalid(
      `messages[${lastIndex}].content`,
      `must be at most ${limits.maxMessageLength} characters`,
    );
  }
  if (!limits.models.includes(model)) {
    throw new HttpError(404, 'model_not_found', `The model '${model}' does not exist`);
  }
  // The engine's own system prompt (citation rules, guard) stays in force: system and
  // developer messages are not given to it, nor tool traffic.
  const maxTurnLength = limits.maxMessageLength * 4;
  const history = turns
    .slice(0, lastIndex)
    .filter(
      (turn): turn is { role: 'user' | 'assistant'; text: string } =>
        (turn.role === 'user' || turn.role === 'assistant') && turn.text.trim().length > 0,
    )
    .slice(-MAX_HISTORY_TURNS)
    .map((turn) => ({ role: turn.role, content: turn.text.slice(0, maxTurnLength) }));
  return {
    model,
    question: last.text,
    history,
    stream: stream === true,
    includeUsage: includeUsage === true,
    temperature: typeof temperature === 'number' ? temperature : undefined,
  };
}

/** OpenAI's `param` for an issue of ours (`messages.2.content` → `messages[2].content`). */
function toParam(path: string): string | null {
  if (path === '' || path === '(body)' || path === '(root)') return null;
  // Engine-level issues name the engine's request; the client only knows `messages`.
  if (path === 'message' || path === 'history' || path.startsWith('history.')) return 'messages';
  return path.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

/** OpenAI's error `type` for an HTTP status. */
function errorType(status: number): string {
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** The OpenAI error body and headers of any thrown value; generic for server failures. */
export function openAIError(error: unknown): {
  status: number;
  body: OpenAIErrorBody;
  headers: Headers;
} {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      headers: new Headers({ 'content-type': 'application/json; charset=utf-8' }),
      body: {
        error: {
          message: error.message,
          type: errorType(error.status),
          param: error.code === 'model_not_found' ? 'model' : null,
          code: error.code,
        },
      },
    };
  }
  if (!CortexisError.isInstance(error) && error instanceof SyntaxError) {
    return openAIError(
      new ValidationError('Invalid body: not JSON', [{ path: '(body)', message: 'must be JSON' }]),
    );
  }
  const { status, body, headers } = errorResponse(error);
  const code =
    status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_api_key' : body.code;
  return {
    status,
    headers,
    body: {
      error: {
        message: body.message,
        type: errorType(status),
        param: toParam(body.issues?.[0]?.path ?? ''),
        code,
      },
    },
  };
}

/** A JSON response with OpenAI's error body. */
function errorJson(error: unknown): Response {
  const { status, body, headers } = openAIError(error);
  return new Response(JSON.stringify(body), { status, headers });
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

/** Counts tokens for `usage` when the model reports none. */
type TokenCounter = () => Promise<Tokenizer>;

/** The completion's `usage`: the model's own count, else counted from the conversation. */
async function usageOf(
  response: ChatResponse,
  parsed: CompletionRequest,
  tokenizer: TokenCounter,
): Promise<{ usage: CompletionUsage; kind: 'reported' | 'estimated' }> {
  if (response.usage) {
    const { inputTokens, outputTokens } = response.usage;
    return {
      kind: 'reported',
      usage: {
        prompt_tokens: inputTokens,
        completion_tokens: outputTokens,
        total_tokens: inputTokens + outputTokens,
      },
    };
  }
  const counter = await tokenizer();
  const prompt =
    counter.count(parsed.question) +
    parsed.history.reduce((sum, turn) => sum + counter.count(turn.content), 0);
  const completion = counter.count(response.text);
  return {
    kind: 'estimated',
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    },
  };
}

/** The extension field of a finished turn. */
function extensionOf(
  response: ChatResponse,
  usage: 'reported' | 'estimated',
): CortexisCompletionExtension {
  return {
    messageId: response.messageId,
    conversationId: response.sessionId,
    sources: response.sources,
    confidence: response.confidence,
    grounding: response.grounding,
    citations: response.citations,
    guard: response.guard,
    status: response.status,
    model: response.model,
    usage,
  };
}

/** One SSE frame of a JSON value (or the literal `[DONE]`). */
const frame = (data: unknown): Uint8Array =>
  encoder.encode(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);

/** What every chunk of one streamed completion shares. */
interface ChunkHead {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

/** A `chat.completion.chunk` with one choice. */
function chunk(
  head: ChunkHead,
  delta: { role?: 'assistant'; content?: string },
  finishReason: 'stop' | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
    model: head.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...extra,
  };
}

/** Settings of one streamed completion. */
interface StreamPlan {
  readonly head: ChunkHead;
  readonly parsed: CompletionRequest;
  /**
   * Hold the text until the turn ends: the judge may remove sentences or block the answer
   * after they streamed, and an OpenAI stream cannot take text back.
   */
  readonly holdText: boolean;
  readonly tokenizer: TokenCounter;
}

/**
 * The turn's parts as OpenAI `chat.completion.chunk` frames: the role, the text in pieces, a
 * chunk with `finish_reason` and the `cortexis` field, a usage chunk when asked for, then
 * `[DONE]`. A failure mid-stream becomes an OpenAI error frame with a client-safe message.
 */
function completionFrames(
  stream: ChatStream,
  iterator: AsyncIterator<ChatStreamPart>,
  first: IteratorResult<ChatStreamPart>,
  plan: StreamPlan,
): ReadableStream<Uint8Array> {
  const { head, parsed } = plan;
  const usageField = parsed.includeUsage ? { usage: null } : {};
  async function* frames(): AsyncGenerator<Uint8Array> {
    yield frame(chunk(head, { role: 'assistant', content: '' }, null, usageField));
    let next = first;
    for (; !next.done; next = await iterator.next()) {
      const part = next.value;
      if (part.type === 'text-delta' && !plan.holdText && part.text.length > 0) {
        yield frame(chunk(head, { content: part.text }, null, usageField));
      } else if (part.type === 'error') {
        break;
      } else if (part.type === 'done') {
        const response = part.response;
        if (plan.holdText && response.text.length > 0) {
          yield frame(chunk(head, { content: response.text }, null, usageField));
        }
        const { usage, kind } = await usageOf(response, parsed, plan.tokenizer);
        yield frame(
          chunk(head, {}, 'stop', { ...usageField, cortexis: extensionOf(response, kind) }),
        );
        if (parsed.includeUsage) {
          yield frame({
            id: head.id,
            object: 'chat.completion.chunk',
            created: head.created,
            model: head.model,
            choices: [],
            usage,
          });
        }
        yield frame('[DONE]');
        return;
      }
    }
    // No `done`: the turn failed (its error part, or a failure before the turn started).
    const failure = await stream.response.then(
      () => new InternalError('The turn ended without an answer'),
      (caught: unknown) => caught,
    );
    yield frame(openAIError(failure).body);
  }
  const output = frames();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await output.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        // Never a torn stream: whatever failed is reported as an error event.
        controller.enqueue(frame(openAIError(error).body));
        controller.close();
      }
    },
    async cancel() {
      await output.return(undefined);
      await iterator.return?.();
    },
  });
}

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

  const listModels = (): Response =>
    new Response(
      JSON.stringify({
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created, owned_by: ownedBy })),
      }),
      { status: 200, headers: JSON_HEADERS },
    );

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

  const completions = async (request: Request, user: LimitedUser): Promise<Response> => {
    const body = await readJson(request, maxBodyBytes);
    const parsed = parseCompletionRequest(body, {
      models,
      maxMessageLength: engine.config.limits.maxMessageLength,
    });
    await context.limit(request, user, 'message');
    const named = await conversation(request, user);
    const chatRequest: ChatRequest = {
      userId: user.id,
      message: parsed.question,
      signal: request.signal,
      ...(named
        ? { sessionId: named.id }
        : {
            mode: 'query' as const,
            ...(parsed.history.length > 0 ? { history: parsed.history } : {}),
          }),
      ...(parsed.temperature === undefined ? {} : { temperature: parsed.temperature }),
    };
    const id = `chatcmpl-${ulid()}`;
    const extraHeaders: Record<string, string> = named ? { [header]: named.id } : {};
    if (!parsed.stream) {
      const response = await engine.chat(chatRequest);
      const { usage, kind } = await usageOf(response, parsed, loadTokenizer);
      return new Response(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created: Math.floor(Date.parse(response.createdAt) / 1000),
          model: parsed.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: response.text, refusal: null },
              logprobs: null,
              finish_reason: 'stop',
            },
          ],
          usage,
          cortexis: extensionOf(response, kind),
        }),
        { status: 200, headers: { ...JSON_HEADERS, ...extraHeaders } },
      );
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
    return new Response(
      completionFrames(stream, iterator, first, {
        head: { id, created: Math.floor(Date.now() / 1000), model: parsed.model },
        parsed,
        holdText,
        tokenizer: loadTokenizer,
      }),
      {
        status: 200,
        headers: {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
          ...extraHeaders,
        },
      },
    );
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
        return await completions(request, user);
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
