/**
 * The AI SDK UI message stream protocol (version 1, what `useChat` / `DefaultChatTransport` and
 * `readUIMessageStream` read): a streamed turn as Server-Sent Events whose `data:` is one JSON
 * chunk each, ending with `data: [DONE]`. Pure and runtime-neutral: `ChatStream` uses it for
 * `toUIMessageStream()` and the HTTP handler for its `/ui/chat` route.
 * @module
 */
import { CortexisError } from './errors/index.js';
import type { CitationReport } from './pipeline/cite.js';
import type { ClaimGrounding, Grounding } from './pipeline/judge.js';
import type { Confidence, MessageStatus, Source } from './ports/chat-records.js';
import type { LLMUsage } from './ports/llm-provider.js';
import type { ChatResponse, ChatStreamPart, Refusal, SerializedError } from './types.js';
import { ulid } from './util/ids.js';
import { clientError, publicMessage, type ErrorBody } from './errors/client.js';

/** The response headers of a UI message stream (`x-vercel-ai-ui-message-stream: v1`). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

/**
 * The data parts a cortexis answer carries, by name: the UI message part `data-confidence` has
 * `data: Confidence`, and so on. The `DATA_PARTS` type argument of the AI SDK's `UIMessage`.
 */
export type CortexisUIDataTypes = {
  /** How the question was routed and how many sources were asked for (first part). */
  route: { readonly route: string; readonly k: number };
  /** Citation tags the answer made, which are valid, and which were removed. */
  citations: CitationReport;
  /** Confidence of the answer, with its breakdown. */
  confidence: Confidence;
  /**
   * Per-claim grounding. `text` is the final answer: it differs from the streamed text when the
   * judge policy removed claims (`removed`) or blocked the answer (`blocked`); render it then.
   */
  grounding: {
    /** Per-claim grounding. */
    readonly grounding: Grounding;
    /** The final answer text. */
    readonly text: string;
    /** Claims removed by policy `remove`. */
    readonly removed: readonly ClaimGrounding[];
    /** True when policy `block` replaced the answer with the guard answer. */
    readonly blocked: boolean;
  };
  /** Whether guard mode answered (no sufficiently relevant source, or the judge blocked). */
  guard: { readonly active: boolean };
};

/** Where a `source-document` part came from: its `providerMetadata.cortexis`. */
export type CortexisSourceMetadata = {
  /** The document the chunk belongs to. */
  readonly documentId: string;
  /** The chunk's id in the stores. */
  readonly chunkId: string;
  /** Where the document came from (path or URL), or null. */
  readonly uri: string | null;
  /** The start of the chunk text, for display. */
  readonly snippet: string;
  /** Relevance to the question in [0, 1]. */
  readonly score: number;
  /** The headings above the chunk (`Guide › Install`), or null. */
  readonly section: string | null;
};

/** The `metadata` of a cortexis answer's UI message (sent with the `finish` chunk). */
export type CortexisUIMessageMetadata =
  | {
      /** How the answer is stored. */
      readonly status: MessageStatus;
      /** Id of the stored assistant message: `POST /messages/:id/feedback` takes it. */
      readonly messageId: string;
      /** The conversation, or null in query mode. */
      readonly sessionId: string | null;
      /** Id of the stored user message, or null in query mode. */
      readonly userMessageId: string | null;
      /** Model that answered. */
      readonly model: string;
      /** Token usage, when the model reported it. */
      readonly usage: LLMUsage | null;
      /** True when the message was the quit word and the conversation has ended. */
      readonly ended: boolean;
      /** Which stage refused to answer (guard, model, judge) and why; null when it answered. */
      readonly refused: Refusal | null;
      /** ISO-8601 UTC. */
      readonly createdAt: string;
    }
  | {
      /** The turn failed. */
      readonly status: 'error';
      /** Stable error code (`rate_limited`, `provider_error`, …). */
      readonly code: string;
      /** Whether retrying may succeed. */
      readonly retryable: boolean;
      /** How long to wait before trying again, ms, for `rate_limited`. */
      readonly retryAfterMs?: number;
      /** Id of the partial answer stored as `incomplete`, when text had been produced. */
      readonly partialMessageId: string | null;
    };

/** A data chunk of the stream: `data-<name>` with that name's data. */
export type CortexisUIDataChunk = {
  [Name in keyof CortexisUIDataTypes]: {
    readonly type: `data-${Name}`;
    readonly data: CortexisUIDataTypes[Name];
  };
}[keyof CortexisUIDataTypes];

/** One chunk of a UI message stream, as cortexis sends them (a subset of the protocol). */
export type UIMessageStreamChunk =
  | { readonly type: 'start'; readonly messageId: string }
  | { readonly type: 'text-start'; readonly id: string }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly id: string }
  | {
      readonly type: 'source-document';
      /** The label the answer cites: `S1`…`Sn`. */
      readonly sourceId: string;
      readonly mediaType: string;
      readonly title: string;
      readonly providerMetadata: { readonly cortexis: CortexisSourceMetadata };
    }
  | {
      /** Sent after a source's `source-document` part when its `uri` is an http(s) URL. */
      readonly type: 'source-url';
      /** The label the answer cites: `S1`…`Sn` (the same as its `source-document` part's). */
      readonly sourceId: string;
      readonly url: string;
      readonly title: string;
      readonly providerMetadata: { readonly cortexis: CortexisSourceMetadata };
    }
  | CortexisUIDataChunk
  | { readonly type: 'error'; readonly errorText: string }
  | { readonly type: 'abort'; readonly reason?: string }
  | {
      readonly type: 'finish';
      readonly finishReason: 'stop' | 'error';
      readonly messageMetadata: CortexisUIMessageMetadata;
    };

/** Options of `ChatStream.toUIMessageStream()`. */
export interface UIMessageStreamOptions {
  /** Id of the UI message (the `start` chunk); default: a new ULID. */
  readonly messageId?: string | undefined;
  /** Send one `source-document` part per source (default true). */
  readonly sendSources?: boolean | undefined;
}

/** Options of `ChatStream.toUIMessageStreamResponse()`: the response's, and the stream's. */
export interface UIMessageStreamResponseInit extends ResponseInit, UIMessageStreamOptions {}

/** Settings of {@link uiMessageChunks}. */
export interface UIMessageChunksSettings extends UIMessageStreamOptions {
  /**
   * The turn's failure, for a client-safe `error` chunk with its details (resolves undefined
   * when the turn succeeded). Without it, the error part's own code decides the message.
   */
  readonly failure?: (() => Promise<unknown>) | undefined;
}

const TEXT_ID = 'text';

/** The client-safe body of a stream's `error` part: from the turn's failure when known. */
export function streamErrorBody(error: SerializedError, failure: unknown): ErrorBody {
  return CortexisError.isInstance(failure)
    ? clientError(failure)
    : { code: error.code, message: publicMessage(error.code, error.message) };
}

/**
 * The link of a source a front end may render: only an http(s) URL (a file path is not a link,
 * and a `javascript:` URI from an ingested document's metadata must never become one).
 */
function linkOf(uri: string | null): string | undefined {
  if (uri === null || !/^https?:\/\//i.test(uri)) return undefined;
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A source's `source-document` part, and its `source-url` part when it has a link. */
function* sourceChunks(source: Source): Generator<UIMessageStreamChunk> {
  const title = source.title ?? source.documentId;
  const section = source.metadata['section'];
  const cortexis: CortexisSourceMetadata = {
    documentId: source.documentId,
    chunkId: source.chunkId,
    uri: source.uri,
    snippet: source.snippet,
    score: source.score,
    section: typeof section === 'string' && section.length > 0 ? section : null,
  };
  yield {
    type: 'source-document',
    sourceId: source.id,
    mediaType: 'text/plain',
    title,
    providerMetadata: { cortexis },
  };
  const url = linkOf(source.uri);
  if (url !== undefined) {
    yield { type: 'source-url', sourceId: source.id, url, title, providerMetadata: { cortexis } };
  }
}

function answerMetadata(response: ChatResponse): CortexisUIMessageMetadata {
  return {
    status: response.status,
    messageId: response.messageId,
    sessionId: response.sessionId,
    userMessageId: response.userMessageId,
    model: response.model,
    usage: response.usage,
    ended: response.ended,
    refused: response.refused,
    createdAt: response.createdAt,
  };
}

/**
 * The UI message chunks of a streamed turn: `start`, `data-route`, one `source-document` per
 * source (followed by a `source-url` when its `uri` is an http(s) URL), `text-start` / `text-delta`… / `text-end`, `data-citations`, `data-confidence`,
 * `data-grounding` (when judged), `data-guard`, then `finish` with the stored ids as message
 * metadata. A failed turn ends with an `error` chunk carrying a client-safe message (never a
 * provider's or database's own) and `finish` with `finishReason: 'error'`; an aborted one with
 * `abort`.
 */
export async function* uiMessageChunks(
  parts: AsyncIterable<ChatStreamPart>,
  settings: UIMessageChunksSettings = {},
): AsyncGenerator<UIMessageStreamChunk> {
  const sendSources = settings.sendSources ?? true;
  yield { type: 'start', messageId: settings.messageId ?? ulid() };
  let textOpen = false;
  const sent = new Set<string>();
  const endText = function* (): Generator<UIMessageStreamChunk> {
    if (textOpen) yield { type: 'text-end', id: TEXT_ID };
    textOpen = false;
  };
  for await (const part of parts) {
    switch (part.type) {
      case 'route':
        yield { type: 'data-route', data: { route: part.route, k: part.k } };
        break;
      case 'sources':
        sent.add('sources');
        if (sendSources) for (const source of part.sources) yield* sourceChunks(source);
        break;
      case 'text-delta':
        if (part.text === '') break;
        if (!textOpen) yield { type: 'text-start', id: TEXT_ID };
        textOpen = true;
        yield { type: 'text-delta', id: TEXT_ID, delta: part.text };
        break;
      case 'citations': {
        sent.add('citations');
        const { type: _type, ...citations } = part;
        yield { type: 'data-citations', data: citations };
        break;
      }
      case 'confidence':
        sent.add('confidence');
        yield { type: 'data-confidence', data: part.confidence };
        break;
      case 'grounding': {
        sent.add('grounding');
        const { type: _type, ...grounding } = part;
        yield { type: 'data-grounding', data: grounding };
        break;
      }
      case 'done': {
        yield* endText();
        const response = part.response;
        // A replayed (idempotent) answer streams only its sources, text and response.
        if (!sent.has('sources') && sendSources)
          for (const s of response.sources) yield* sourceChunks(s);
        if (!response.ended) {
          if (!sent.has('citations')) yield { type: 'data-citations', data: response.citations };
          if (!sent.has('confidence')) yield { type: 'data-confidence', data: response.confidence };
        }
        yield { type: 'data-guard', data: { active: response.guard } };
        yield { type: 'finish', finishReason: 'stop', messageMetadata: answerMetadata(response) };
        return;
      }
      case 'error': {
        yield* endText();
        if (part.error.code === 'aborted') {
          yield { type: 'abort', reason: 'aborted' };
          return;
        }
        const failure = settings.failure ? await settings.failure() : undefined;
        yield* failed(
          streamErrorBody(part.error, failure),
          part.error.retryable,
          part.partialMessageId,
        );
        return;
      }
    }
  }
  // The turn ended without a final part: it failed before it started (or the stream was cut).
  yield* endText();
  const failure = settings.failure ? await settings.failure() : undefined;
  yield* failed(clientError(failure), CortexisError.isInstance(failure) && failure.retryable, null);
}

function* failed(
  body: ErrorBody,
  retryable: boolean,
  partialMessageId: string | null,
): Generator<UIMessageStreamChunk> {
  yield { type: 'error', errorText: body.message };
  yield {
    type: 'finish',
    finishReason: 'error',
    messageMetadata: {
      status: 'error',
      code: body.code,
      retryable,
      ...(body.retryAfterMs === undefined ? {} : { retryAfterMs: body.retryAfterMs }),
      partialMessageId,
    },
  };
}

const encoder = new TextEncoder();

/** One Server-Sent Event of the protocol: `data: <json>` and a blank line. */
export function uiMessageFrame(chunk: UIMessageStreamChunk | '[DONE]'): string {
  return `data: ${chunk === '[DONE]' ? chunk : JSON.stringify(chunk)}\n\n`;
}

/** The chunks as the bytes of a UI message stream, ending with `data: [DONE]`. */
export function encodeUIMessageStream(
  chunks: AsyncIterable<UIMessageStreamChunk>,
): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) {
        controller.enqueue(encoder.encode(uiMessageFrame('[DONE]')));
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(uiMessageFrame(next.value)));
    },
    async cancel() {
      await iterator.return?.(undefined);
    },
  });
}

// Reading a cortexis answer's sources back out of an AI SDK `UIMessage`, typed, without casts:
// the AI SDK types `providerMetadata` only as JSON. What does not have the expected shape is left out.

/** A UI message part as these helpers read it (any part of the AI SDK's `UIMessage` fits). */
export interface UIPartLike {
  readonly type: string;
}

/** One source of an answer, as a front end renders it. */
export interface CortexisUISource extends CortexisSourceMetadata {
  /** The label the answer cites: `S1`…`Sn`. */
  readonly sourceId: string;
  /** The document's title (its id when it has none). */
  readonly title: string;
  /** The link to show: the `source-url` part's URL (an http(s) `uri`), or null. */
  readonly url: string | null;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
}

const nullableString = (value: unknown): value is string | null =>
  value === null || typeof value === 'string';

/**
 * The cortexis metadata of a `source-document` or `source-url` part (its
 * `providerMetadata.cortexis`), or undefined when the part has none or it is malformed.
 *
 * @example
 * ```tsx
 * message.parts.map((part) => {
 *   const source = part.type === 'source-document' ? readSourceMetadata(part) : undefined;
 *   return source && <li key={source.chunkId}>{source.snippet} ({source.score.toFixed(2)})</li>;
 * });
 * ```
 */
export function readSourceMetadata(part: UIPartLike): CortexisSourceMetadata | undefined {
  if (part.type !== 'source-document' && part.type !== 'source-url') return undefined;
  const meta = field(field(part, 'providerMetadata'), 'cortexis');
  const documentId = field(meta, 'documentId');
  const chunkId = field(meta, 'chunkId');
  const uri = field(meta, 'uri');
  const snippet = field(meta, 'snippet');
  const score = field(meta, 'score');
  const section = field(meta, 'section') ?? null;
  if (
    typeof documentId !== 'string' ||
    typeof chunkId !== 'string' ||
    !nullableString(uri) ||
    typeof snippet !== 'string' ||
    typeof score !== 'number' ||
    !Number.isFinite(score) ||
    !nullableString(section)
  ) {
    return undefined;
  }
  return { documentId, chunkId, uri, snippet, score, section };
}

/**
 * The sources of a cortexis answer's UI message, in the order sent (`S1` first), each with its
 * link when the answer sent a `source-url` part for it.
 *
 * @example
 * ```tsx
 * for (const source of cortexisSources(message)) {
 *   render(source.sourceId, source.title, source.url, source.section, source.snippet);
 * }
 * ```
 */
export function cortexisSources(message: {
  readonly parts: readonly UIPartLike[];
}): CortexisUISource[] {
  const sources = new Map<string, CortexisUISource>();
  for (const part of message.parts) {
    const meta = readSourceMetadata(part);
    const sourceId = field(part, 'sourceId');
    const title = field(part, 'title');
    if (meta === undefined || typeof sourceId !== 'string') continue;
    const known = sources.get(sourceId);
    const url = part.type === 'source-url' ? field(part, 'url') : undefined;
    sources.set(sourceId, {
      ...meta,
      sourceId,
      title: known?.title ?? (typeof title === 'string' ? title : meta.documentId),
      url: typeof url === 'string' ? url : (known?.url ?? null),
    });
  }
  return [...sources.values()];
}
