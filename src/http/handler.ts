import type { ChatEngine } from '../engine.js';
import { createMemoryRateLimiter } from '../adapters/memory/rate-limiter.js';
import { CortexisError, ValidationError } from '../errors/index.js';
import type { RateLimitEvent } from '../events.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { FeedbackParams } from '../types.js';
import { createSessionSchema, parseInput } from '../validate.js';
import {
  booleanParam,
  createRequestLimit,
  decodeSegments,
  fail,
  HttpError,
  integerParam,
  json,
  readJson,
} from './request.js';
import type { McpEndpoint } from './mcp-route.js';
import { checkTurnInput } from './turn-input.js';
import { openUIChat, parseUIChatRequest } from './ui-chat.js';
import {
  addOpenAICorsHeaders,
  createOpenAIRoutes,
  resolveOpenAISettings,
  type OpenAICompatibleSettings,
} from './openai-compatible.js';
import { trimTrailing } from '../util/trim-trailing.js';

/** The caller of a request, as `authenticate` returns it. */
export interface HttpUser {
  /** Stable user id; conversations belong to it. */
  readonly id: string;
  /**
   * True for a guest without an account (a shared or throwaway id): rate limits then count per
   * client IP (`clientIp`) instead of per id, so a new guest id does not get a new budget.
   */
  readonly anonymous?: boolean | undefined;
}

/** Settings of {@link createChatHandler}. */
export interface ChatHandlerSettings {
  /** Returns the caller, or null for 401. Runs before anything else on every route but `/health`. */
  readonly authenticate: (request: Request) => HttpUser | null | Promise<HttpUser | null>;
  /** Path prefix of every route, e.g. `/api/chat` (default ''). */
  readonly basePath?: string | undefined;
  /** Largest accepted request body in bytes (default 64 KiB); larger is 413. */
  readonly maxBodyBytes?: number | undefined;
  /**
   * Largest accepted body of the AI SDK route `POST {basePath}/ui/chat` in bytes (default 1 MiB,
   * at least `maxBodyBytes`): `useChat` sends the whole chat every time, although only its last
   * message is read. Larger is 413.
   */
  readonly maxUIChatBodyBytes?: number | undefined;
  /** CORS: the allowed origin (`*` or one origin); omitted: no CORS headers. */
  readonly cors?: { readonly origin: string } | undefined;
  /**
   * Limits messages per user across all of their conversations, and conversation creation
   * per user in a budget of its own (429 with `Retry-After`); anonymous users count per client
   * IP. On by default — a public endpoint needs it: 60 per 5 minutes and flood detection, per
   * budget. `false` turns it off.
   */
  readonly rateLimiter?: RateLimiter | false | undefined;
  /**
   * The client's IP address, for the rate limits of anonymous users and the `ip` of
   * `onRateLimit` events (default: unknown, so every anonymous user shares one budget). Return
   * what your platform vouches for (the socket's address, Cloudflare's `cf-connecting-ip`): a
   * client can send any header, so read `x-forwarded-for` only behind a proxy of yours that
   * overwrites it, and then its last entry (the one your proxy added).
   */
  readonly clientIp?: ((request: Request) => string | null | undefined) | undefined;
  /** Called when the handler's limiter refuses a request (a throwing listener is ignored). */
  readonly onRateLimit?: ((event: RateLimitEvent) => void) | undefined;
  /**
   * Serves `POST {basePath}/v1/chat/completions` and `GET {basePath}/v1/models` for the official
   * `openai` client and the tools built on it (`true`: the defaults). Off by default (404). Same
   * authentication, rate limits and body limit as the other routes; see `docs/openai-compatible.md`.
   */
  readonly openaiCompatible?: boolean | OpenAICompatibleSettings | undefined;
  /**
   * Serves the Model Context Protocol at `{basePath}/mcp` (Streamable HTTP, stateless): the
   * endpoint `createMcpEndpoint({ documents })` from `cortexis/mcp` makes (tools `search` and
   * `ask`, the documents as resources). Off by default (404). Same authentication, rate limits
   * and body limit as the other routes. See `docs/mcp.md`.
   */
  readonly mcp?: McpEndpoint | undefined;
}

/** A web-standard request handler: works in Node (via `toNodeListener`), Bun, Deno, workers. */
export type ChatHandler = (request: Request) => Promise<Response>;

/** Only the fields a client may send with feedback. */
const FEEDBACK_FIELDS = new Set([
  'rating',
  'sourceHelpfulness',
  'comment',
  'markedAsFactual',
  'correctedContent',
]);

/** Only the fields a client may send in a chat message. */
const MESSAGE_FIELDS = new Set([
  'content',
  'mode',
  'searchDepth',
  'enableGNN',
  'enableGraphTraversal',
  'chatProfile',
  'temperature',
  'topK',
  'messageId',
]);

/**
 * Serves an engine over HTTP: conversations, messages (JSON or Server-Sent Events when the
 * client sends `Accept: text/event-stream`), the AI SDK's `useChat` at `POST /ui/chat` (UI
 * message stream protocol; see `docs/ai-sdk.md`) and health. Every conversation route is scoped to
 * the authenticated user: another user's conversation is 404, never its data.
 */
export function createChatHandler(engine: ChatEngine, settings: ChatHandlerSettings): ChatHandler {
  const basePath = trimTrailing(settings.basePath ?? '', '/');
  const limiter =
    settings.rateLimiter === false
      ? undefined
      : (settings.rateLimiter ?? createMemoryRateLimiter());
  const maxBodyBytes = settings.maxBodyBytes ?? 64 * 1024;
  const maxUIChatBodyBytes = settings.maxUIChatBodyBytes ?? Math.max(maxBodyBytes, 1024 * 1024);
  const corsHeaders: Record<string, string> = settings.cors
    ? {
        'access-control-allow-origin': settings.cors.origin,
        'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type, accept',
        'access-control-expose-headers': 'retry-after',
      }
    : {};

  const limit = createRequestLimit(limiter, settings);
  const openaiSettings = resolveOpenAISettings(settings.openaiCompatible);
  if (openaiSettings) addOpenAICorsHeaders(corsHeaders, openaiSettings);
  const openai = openaiSettings
    ? createOpenAIRoutes(engine, openaiSettings, {
        authenticate: settings.authenticate,
        limit,
        maxBodyBytes,
      })
    : undefined;

  // What a browser MCP client sends with every request.
  if (settings.mcp && corsHeaders['access-control-allow-headers']) {
    corsHeaders['access-control-allow-headers'] += ', mcp-protocol-version, mcp-session-id';
  }
  const withCors = (response: Response): Response => {
    for (const [name, value] of Object.entries(corsHeaders)) response.headers.set(name, value);
    return response;
  };

  const route = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    // The base path ends at a segment boundary: `/api` serves `/api/…`, never `/apiconversations`.
    if (basePath !== '' && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`))
      return json(404, { code: 'not_found', message: 'No such route' });
    const path = trimTrailing(url.pathname.slice(basePath.length), '/') || '/';
    const segments = decodeSegments(path);
    if (segments === null) return json(404, { code: 'not_found', message: 'No such route' });
    const method = request.method.toUpperCase();

    if (method === 'OPTIONS' && settings.cors) return new Response(null, { status: 204 });
    if (method === 'GET' && path === '/health') return json(200, { status: 'ok' });
    // OpenAI-compatible routes answer in OpenAI's shapes, their 401 included.
    if (openai && segments[0] === 'v1') return openai(request, segments, method);

    const user = await settings.authenticate(request);
    if (!user) return json(401, { code: 'unauthorized', message: 'Authentication required' });
    const userId = user.id;

    if (settings.mcp && segments[0] === 'mcp' && segments.length === 1) {
      return settings.mcp.handle(request, {
        engine,
        user,
        limit: (budget) => limit(request, user, budget),
        maxBodyBytes,
      });
    }

    // The AI SDK's `useChat` (`DefaultChatTransport`): the chat id is the conversation id.
    if (segments[0] === 'ui' && segments[1] === 'chat') {
      if (segments.length === 2 && method === 'POST') {
        const turn = parseUIChatRequest(await readJson(request, maxUIChatBodyBytes), {
          maxMessageLength: engine.config.limits.maxMessageLength,
        });
        const chatRequest = {
          sessionId: turn.chatId,
          userId,
          message: turn.message,
          ...(turn.messageId === undefined ? {} : { messageId: turn.messageId }),
          ...(turn.searchDepth === undefined ? {} : { searchDepth: turn.searchDepth }),
          ...(turn.temperature === undefined ? {} : { temperature: turn.temperature }),
          ...(turn.topK === undefined ? {} : { topK: turn.topK }),
          signal: request.signal,
        };
        // The client's earlier messages seed a chat the server has no messages for (see
        // `parseUIChatRequest`); checked with the turn before anything is written.
        const history = turn.history.length === 0 ? {} : { history: turn.history };
        checkTurnInput(
          engine,
          { ...chatRequest, ...history },
          {
            sessionId: 'id',
            messageId: `${turn.lastPath}.id`,
            message: `${turn.lastPath}.parts`,
            history: 'messages',
          },
        );
        await limit(request, user, 'message');
        // Created on first use (in the `create` budget); another user's chat id is 404.
        const session = await openUIChat(engine, turn.chatId, userId, () =>
          limit(request, user, 'create'),
        );
        const seed = session.stats.messageCount === 0 ? history : {};
        return engine.stream({ ...chatRequest, ...seed }).toUIMessageStreamResponse();
      }
      // `useChat({ resume: true })` asks for a stream still running: none is kept.
      if (segments.length === 4 && segments[3] === 'stream' && method === 'GET')
        return new Response(null, { status: 204 });
    }

    // Erasure of the caller: every conversation, feedback, correction and learned record.
    // A guest's id may be shared, so a guest cannot erase it.
    if (segments[0] === 'me' && segments.length === 1 && method === 'DELETE') {
      if (user.anonymous) {
        return json(403, { code: 'forbidden', message: 'Guests cannot be erased' });
      }
      await limit(request, user, 'message');
      return json(200, { erased: await engine.deleteUser({ userId }) });
    }

    if (segments[0] === 'conversations') {
      if (segments.length === 1 && method === 'POST') {
        const body = await readJson(request, maxBodyBytes);
        // Nothing a client sends is dropped without a word: unknown fields are a 400, and
        // `title` and `settings` are validated by `engine.createSession` (400 naming the field).
        const unknown = Object.keys(body).filter((key) => key !== 'title' && key !== 'settings');
        if (unknown.length > 0) {
          throw new ValidationError(
            `Invalid body: unknown fields ${unknown.join(', ')}`,
            unknown.map((key) => ({ path: key, message: 'unknown field' })),
          );
        }
        const params = parseInput(
          createSessionSchema(),
          {
            userId,
            ...(body.title === undefined ? {} : { title: body.title }),
            ...(body.settings === undefined ? {} : { settings: body.settings }),
          },
          'conversation',
        );
        await limit(request, user, 'create');
        const session = await engine.createSession(params);
        return json(201, { id: session.id, session });
      }
      if (segments.length === 1 && method === 'GET') {
        const limit = integerParam(url, 'limit');
        const cursor = url.searchParams.get('cursor') ?? undefined;
        const page = await engine.listSessions({
          userId,
          ...(limit === undefined ? {} : { limit }),
          ...(cursor === undefined ? {} : { cursor }),
        });
        return json(200, page);
      }
      const sessionId = segments[1];
      if (sessionId !== undefined && segments.length === 2 && method === 'GET') {
        const limit = integerParam(url, 'limit');
        const offset = integerParam(url, 'offset');
        const includeSources = booleanParam(url, 'includeSources');
        const includeFeedback = booleanParam(url, 'includeFeedback');
        const cursor = url.searchParams.get('cursor') ?? undefined;
        const page = await engine.history({
          sessionId,
          userId,
          ...(limit === undefined ? {} : { limit }),
          ...(offset === undefined ? {} : { offset }),
          ...(includeSources === undefined ? {} : { includeSources }),
          ...(includeFeedback === undefined ? {} : { includeFeedback }),
          ...(cursor === undefined ? {} : { cursor }),
        });
        return json(200, page);
      }
      if (sessionId !== undefined && segments.length === 2 && method === 'DELETE') {
        await engine.deleteSession({ sessionId, userId });
        return new Response(null, { status: 204 });
      }
      if (
        sessionId !== undefined &&
        segments.length === 3 &&
        segments[2] === 'messages' &&
        method === 'POST'
      ) {
        const body = await readJson(request, maxBodyBytes);
        const maxLength = engine.config.limits.maxMessageLength;
        if (
          typeof body.content !== 'string' ||
          body.content.trim().length === 0 ||
          body.content.length > maxLength
        ) {
          const message =
            typeof body.content !== 'string'
              ? 'must be a string'
              : body.content.trim().length === 0
                ? 'must not be empty'
                : `must be at most ${maxLength} characters`;
          throw new ValidationError(`Invalid body: content: ${message}`, [
            { path: 'content', message },
          ]);
        }
        const unknown = Object.keys(body).filter((key) => !MESSAGE_FIELDS.has(key));
        if (unknown.length > 0) {
          throw new ValidationError(
            `Invalid body: unknown fields ${unknown.join(', ')}`,
            unknown.map((key) => ({ path: key, message: 'unknown field' })),
          );
        }
        const chatRequest = {
          sessionId,
          userId,
          message: body.content,
          ...(body.mode === undefined ? {} : { mode: body.mode as 'chat' | 'query' }),
          ...(body.temperature === undefined ? {} : { temperature: body.temperature as number }),
          ...(body.topK === undefined ? {} : { topK: body.topK as number }),
          ...(body.searchDepth === undefined
            ? {}
            : { searchDepth: body.searchDepth as 'shallow' | 'medium' | 'deep' }),
          ...(body.chatProfile === undefined ? {} : { chatProfile: body.chatProfile as string }),
          ...(body.enableGNN === undefined ? {} : { enableGNN: body.enableGNN as boolean }),
          ...(body.enableGraphTraversal === undefined
            ? {}
            : { enableGraphTraversal: body.enableGraphTraversal as boolean }),
          ...(body.messageId === undefined ? {} : { messageId: body.messageId as string }),
          signal: request.signal,
        };
        // One budget per user across conversations: a new or made-up id gains nothing.
        await limit(request, user, 'message');
        if ((request.headers.get('accept') ?? '').includes('text/event-stream')) {
          // Validate ownership before the stream starts, so a foreign id is a plain 404 (the
          // engine checks it for JSON answers, `mode: 'query'` included).
          await engine.getSession({ sessionId, userId });
          return engine.stream(chatRequest).toResponse();
        }
        return json(200, await engine.chat(chatRequest));
      }
    }
    // Learning patterns (seed 000 `findPatterns`): the caller's own past conversations like a
    // query — never another user's, since a trajectory holds its user's first question.
    if (
      segments[0] === 'learning' &&
      segments[1] === 'patterns' &&
      segments.length === 2 &&
      method === 'GET'
    ) {
      const query = url.searchParams.get('q') ?? '';
      const k = integerParam(url, 'k');
      const patterns = await engine.findPatterns(query, {
        userId,
        signal: request.signal,
        ...(k === undefined ? {} : { k }),
      });
      return json(200, { patterns });
    }
    if (
      segments[0] === 'messages' &&
      segments[1] !== undefined &&
      segments[2] === 'feedback' &&
      segments.length === 3 &&
      method === 'POST'
    ) {
      const body = await readJson(request, maxBodyBytes);
      // Corrections are not ingested from a public endpoint: that would let anyone write to
      // the knowledge base.
      const unknown = Object.keys(body).filter((key) => !FEEDBACK_FIELDS.has(key));
      if (unknown.length > 0) {
        throw new ValidationError(
          `Invalid body: unknown fields ${unknown.join(', ')}`,
          unknown.map((key) => ({ path: key, message: 'unknown field' })),
        );
      }
      const feedback = await engine.feedback({
        ...(body as Omit<FeedbackParams, 'messageId' | 'userId'>),
        messageId: segments[1],
        userId,
      });
      return json(201, { feedback });
    }
    return json(404, { code: 'not_found', message: 'No such route' });
  };

  return async (request) => {
    try {
      return withCors(await route(request));
    } catch (error) {
      if (error instanceof HttpError)
        return withCors(json(error.status, { code: error.code, message: error.message }));
      if (!CortexisError.isInstance(error) && error instanceof SyntaxError) {
        return withCors(json(400, { code: 'validation_error', message: 'Invalid body' }));
      }
      return withCors(fail(error));
    }
  };
}
