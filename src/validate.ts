import { ValidationError } from './errors/index.js';
import type { MetadataFilter } from './ports/common.js';
import * as z from 'zod/mini';
import { describeIssues, intRange, lazySchema, range, safeParse } from './util/schema.js';
import { isAbortSignalLike, toLocalAbortSignal, type AbortSignalLike } from './util/realm.js';
import { RESERVED_METADATA_KEYS } from './util/reserved-keys.js';

/** Reserved chunk metadata keys the engine sets itself (see `util/reserved-keys.ts`). */
export { RESERVED_METADATA_KEYS };

// Characters no store can hold: U+0000 (Postgres text rejects it, C strings end at it) and
// lone UTF-16 surrogates (encoded as UTF-8 they become U+FFFD, so the stored text would differ
// from the accepted one). Other controls are content (a form feed between PDF pages) and pass.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// In an id also every control (C0, DEL, C1) and the line and paragraph separators.
const NOT_IN_ID = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;
// Whitespace of `String.prototype.trim` (including U+00A0, U+3000, U+FEFF).
const BLANK = /^\s+$/;

// `String.prototype.isWellFormed` (ES2024; Node 20, current browsers): a native scan for lone
// surrogates, 4–8× faster than the pattern on SciFact's 7.8 MB. Absent, the pattern decides.
const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean })
  .isWellFormed;

/** Why `text` cannot be stored as it is, or undefined when it can. */
export function unstorableReason(text: string): string | undefined {
  // The common case, storable text, without the pattern; the pattern finds the offset.
  if (isWellFormed !== undefined && !text.includes('\u0000') && isWellFormed.call(text)) {
    return undefined;
  }
  const found = UNSTORABLE.exec(text);
  if (found === null) return undefined;
  const what = found[0] === '\u0000' ? 'U+0000 (NUL)' : 'a lone UTF-16 surrogate';
  return `must not contain ${what} (at offset ${found.index})`;
}

// Ids are opaque and compared exactly: never trimmed or normalised, so 'alice\u00a0' is not
// 'alice'. Whitespace-only ids and ids with control or separator characters are rejected.
/** Why `value` cannot be an id, or undefined (emptiness and length are checked apart). */
function idProblem(value: string): string | undefined {
  if (BLANK.test(value)) return 'must not be only whitespace';
  if (NOT_IN_ID.test(value)) {
    return 'must not contain control characters or line/paragraph separators';
  }
  return unstorableReason(value);
}

/**
 * The pieces the schemas below share (free text, ids, metadata, filters, signals), built on
 * the first call rather than when the module loads.
 */
const pieces = lazySchema(() => {
  /** The check every free-text input gets: unstorable characters are rejected, never altered. */
  const storable = z.superRefine((text: string, context) => {
    const reason = unstorableReason(text);
    if (reason !== undefined) context.addIssue({ code: 'custom', message: reason, input: text });
  });

  /** A string that every store can hold as it is. */
  const text = () => z.string().check(storable);

  const id = z.string().check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(256, 'must be at most 256 characters'),
    z.superRefine((value: string, context) => {
      const problem = idProblem(value);
      if (problem !== undefined)
        context.addIssue({ code: 'custom', message: problem, input: value });
    }),
  );
  const nonBlank = (maxLength: number) =>
    text().check(
      z.refine((value) => value.trim().length > 0, 'must not be empty'),
      z.maxLength(maxLength, `must be at most ${maxLength} characters`),
    );
  /** Keys are checked on the record, so the issue names the key escaped rather than raw. */
  const storableKeys = z.superRefine((value: Record<string, unknown>, context) => {
    for (const key of Object.keys(value)) {
      const reason = unstorableReason(key);
      if (reason !== undefined) {
        context.addIssue({
          code: 'custom',
          message: `key ${JSON.stringify(key)} ${reason}`,
          input: value,
        });
      }
    }
  });
  /** A record with non-empty, storable keys. */
  const record = <V extends z.ZodMiniType>(values: V) =>
    z.record(z.string().check(z.minLength(1)), values).check(storableKeys);
  const metadataValue = z.union([text(), z.number(), z.boolean(), z.null()]);
  const metadata = record(metadataValue);
  // Duck-typed, not `instanceof AbortSignal`: a signal from another realm (an edge runtime's
  // `Request.signal`, a `node:vm` context, an iframe) is a signal too. It continues as a signal
  // of this realm that follows it, so every consumer gets a genuine one.
  const signal = z.pipe(
    z.custom<AbortSignalLike>(isAbortSignalLike, { message: 'expected an AbortSignal' }),
    z.transform(toLocalAbortSignal),
  );
  const bound = z.union([z.number(), text()]);
  const filterValue = z.union([
    metadataValue,
    z.strictObject({
      $eq: z.optional(metadataValue),
      $ne: z.optional(metadataValue),
      $in: z.optional(z.array(metadataValue)),
      $nin: z.optional(z.array(metadataValue)),
      $gt: z.optional(bound),
      $gte: z.optional(bound),
      $lt: z.optional(bound),
      $lte: z.optional(bound),
    }),
  ]);
  const filter = z.pipe(
    record(filterValue),
    z.transform((value) => value as MetadataFilter),
  );
  const topK = intRange(1, 50);
  const searchDepth = z.enum(['shallow', 'medium', 'deep']);
  const temperature = range(0, 2);
  return { text, id, nonBlank, record, metadata, signal, filter, topK, searchDepth, temperature };
});

/** Per-session settings a caller may set. */
export const sessionSettingsSchema = lazySchema(() => {
  const { text, temperature, topK } = pieces();
  return z.strictObject({
    model: z.optional(text().check(z.minLength(1), z.maxLength(100))),
    systemPrompt: z.optional(text().check(z.minLength(1), z.maxLength(20_000))),
    temperature: z.optional(temperature),
    maxTokens: z.optional(intRange(1, 200_000)),
    topK: z.optional(topK),
    minSimilarity: z.optional(range(0, 1)),
    threshold: z.optional(range(0, 1)),
    rag: z.optional(z.boolean()),
    judgePolicy: z.optional(z.enum(['annotate', 'remove', 'block'])),
    includeCitations: z.optional(z.boolean()),
    searchDepth: z.optional(z.enum(['shallow', 'medium', 'deep'])),
    enableGNN: z.optional(z.boolean()),
    enableGraphTraversal: z.optional(z.boolean()),
    chatProfile: z.optional(text().check(z.minLength(1), z.maxLength(100))),
  });
});

/** `engine.createSession(params)`. */
export const createSessionSchema = lazySchema(() => {
  const { text, id, metadata } = pieces();
  return z.strictObject({
    userId: id,
    id: z.optional(id),
    title: z.optional(text().check(z.maxLength(200))),
    settings: z.optional(sessionSettingsSchema()),
    metadata: z.optional(metadata),
  });
});

/** Identifies a session and its owner. */
export const sessionRefSchema = lazySchema(() => {
  const { id } = pieces();
  return z.strictObject({ sessionId: id, userId: id });
});

/** Identifies a user (`engine.deleteUser`). */
export const userRefSchema = lazySchema(() => {
  const { id } = pieces();
  return z.strictObject({ userId: id });
});

/** A session id alone (the key of a session's turn lease). */
export const sessionIdSchema = lazySchema(() => pieces().id);

/** `engine.listSessions(params)`. */
export const listSessionsSchema = lazySchema(() => {
  const { text, id } = pieces();
  return z.strictObject({
    userId: id,
    limit: z._default(intRange(1, 200), 20),
    cursor: z.optional(text().check(z.minLength(1))),
  });
});

/** `engine.history(params)`. */
export const historySchema = lazySchema(() => {
  const { id } = pieces();
  return z.strictObject({
    sessionId: id,
    userId: id,
    limit: z._default(intRange(1, 1000), 50),
    offset: z._default(intRange(0), 0),
    /** Continues after the page that returned it (`nextCursor`); replaces `offset`. */
    cursor: z.optional(z.string().check(z.regex(/^h\d+$/, 'is not a history cursor'))),
    includeSources: z._default(z.boolean(), true),
    includeFeedback: z._default(z.boolean(), false),
  });
});

const chatRequestSchemas = new Map<number, ReturnType<typeof buildChatRequestSchema>>();

/**
 * `engine.chat(request)` / `engine.stream(request)`, given the engine's message limit. Built
 * once per limit: zod compiles a schema on its first parse, so a schema per turn is slow.
 */
export function chatRequestSchema(maxMessageLength: number) {
  let schema = chatRequestSchemas.get(maxMessageLength);
  if (!schema)
    chatRequestSchemas.set(maxMessageLength, (schema = buildChatRequestSchema(maxMessageLength)));
  return schema;
}

function buildChatRequestSchema(maxMessageLength: number) {
  const { text, id, nonBlank, filter, signal, topK, searchDepth, temperature } = pieces();
  return z.strictObject({
    /** Session to continue; with `mode: 'chat'` and none, a new one is created. */
    sessionId: z.optional(id),
    /** The caller; must own the session when given. */
    userId: z.optional(id),
    /** The user message. */
    message: nonBlank(maxMessageLength),
    /**
     * `chat` persists the turn; `query` is stateless. Absent: `chat` with a `sessionId`, a
     * stateless `query` without one (seed 001's default; the turn resolves it).
     */
    mode: z.optional(z.enum(['chat', 'query'])),
    /** Overrides the session's temperature for this turn. */
    temperature: z.optional(temperature),
    /** Overrides the number of sources for this turn. */
    topK: z.optional(topK),
    /** Caps the answer's length in tokens for this turn. */
    maxTokens: z.optional(intRange(1, 200_000)),
    /** Idempotency key of the message (with a sessionId). */
    messageId: z.optional(id),
    /** Overrides the route's search depth for this turn. */
    searchDepth: z.optional(searchDepth),
    /** Chat profile of this turn's history selection (seed 001); a new session keeps it. */
    chatProfile: z.optional(text().check(z.minLength(1), z.maxLength(100))),
    /** Graph rerank on or off for this turn (seed 000). */
    enableGNN: z.optional(z.boolean()),
    /** Graph traversal on or off for this turn (seed 000). */
    enableGraphTraversal: z.optional(z.boolean()),
    /** Only sources whose metadata matches. */
    filter: z.optional(filter),
    /** Cancels the turn. */
    signal: z.optional(signal),
    /** Earlier turns the client kept (stateless history, or the first messages of an empty session). */
    history: z.optional(chatHistory(maxMessageLength)),
  });
}

/** Earlier turns given to a stateless turn: an answer may be longer than a question. */
function chatHistory(maxMessageLength: number) {
  const { text } = pieces();
  const turn = z.strictObject({
    role: z.enum(['user', 'assistant']),
    content: text().check(z.maxLength(maxMessageLength * 4)),
  });
  return z.array(turn).check(z.maxLength(200, 'must have at most 200 turns'));
}

/** `engine.search(query, options)`. */
export const searchOptionsSchema = lazySchema(() => {
  const { searchDepth, filter, signal, id } = pieces();
  return z.strictObject({
    k: z.optional(intRange(1, 1000)),
    searchDepth: z.optional(searchDepth),
    filter: z.optional(filter),
    userId: z.optional(id),
    signal: z.optional(signal),
  });
});

/** `engine.findPatterns(query, options)`. */
export const findPatternsOptionsSchema = lazySchema(() => {
  const { id, signal } = pieces();
  return z.strictObject({
    k: z._default(intRange(1, 100), 5),
    userId: z.optional(id),
    signal: z.optional(signal),
  });
});

/** A search query. */
export const queryTextSchema = lazySchema(() => {
  const { nonBlank } = pieces();
  return nonBlank(16_000);
});

/** One document given to `engine.ingest`. */
export const documentSchema = lazySchema(() => {
  const { text, id, metadata } = pieces();
  return z.strictObject({
    id,
    text: text().check(z.refine((value) => value.trim().length > 0, 'must not be empty')),
    title: z.optional(text().check(z.maxLength(1000))),
    uri: z.optional(text().check(z.maxLength(4000))),
    metadata: z.optional(
      metadata.check(
        z.refine(
          (value) => !RESERVED_METADATA_KEYS.some((key) => key in value),
          `keys ${RESERVED_METADATA_KEYS.join(', ')} are reserved`,
        ),
      ),
    ),
  });
});

/** A batch of documents. */
export const documentsSchema = lazySchema(() =>
  z.array(documentSchema()).check(z.minLength(1, 'must contain at least one document')),
);

/** Document ids to delete. */
export const documentIdsSchema = lazySchema(() => {
  const { id } = pieces();
  return z.array(id);
});

/** Options of `engine.ingest`. */
export const ingestOptionsSchema = lazySchema(() => {
  const { signal } = pieces();
  return z.strictObject({
    onProgress: z.optional(
      z.custom<(progress: IngestProgress) => void>((value) => typeof value === 'function', {
        message: 'expected a function',
      }),
    ),
    signal: z.optional(signal),
    partial: z.optional(z.boolean()),
    concurrency: z.optional(z.int().check(z.minimum(1), z.maximum(256))),
  });
});

/** `engine.feedback(params)`. */
export const feedbackSchema = lazySchema(() => {
  const { text, id, record } = pieces();
  return z.strictObject({
    /** The assistant message rated. */
    messageId: id,
    /** The caller; must own the message's session. */
    userId: id,
    /** The rating. */
    rating: z.enum(['good', 'neutral', 'bad']),
    /** Helpfulness of each source by label (`S1`…), in [0, 1]. */
    sourceHelpfulness: z.optional(record(range(0, 1))),
    /** Free text. */
    comment: z.optional(text().check(z.maxLength(4000))),
    /** Whether the answer was factual. */
    markedAsFactual: z.optional(z.boolean()),
    /** The user's correction of the answer. */
    correctedContent: z.optional(text().check(z.minLength(1), z.maxLength(20_000))),
    /** Also ingest the correction as a document (linked to the message in the graph). */
    ingestCorrection: z.optional(z.boolean()),
    /** Make the ingested correction visible to every user (default: its author's only). */
    publishCorrection: z.optional(z.boolean()),
  });
});

/** Progress of an ingestion. */
export interface IngestProgress {
  /** Documents fully indexed so far. */
  readonly documentsDone: number;
  /** Documents in the call. */
  readonly documentsTotal: number;
  /** Chunks indexed so far. */
  readonly chunksDone: number;
}

/** Parses input with a schema, throwing a `ValidationError` that names every bad field. */
export function parseInput<S extends z.ZodMiniType>(
  schema: S,
  input: unknown,
  what: string,
): z.output<S> {
  const parsed = safeParse(schema, input);
  if (parsed.success) return parsed.data;
  throw new ValidationError(`Invalid ${what}: ${describeIssues(parsed.issues)}`, parsed.issues);
}
