import type { CitationReport } from './pipeline/cite.js';
import type { ClaimGrounding, Grounding } from './pipeline/judge.js';

export type { ClaimGrounding, Grounding };
import type {
  Confidence,
  FeedbackRecord,
  MessageRecord,
  MessageStatus,
  SessionRecord,
  Source,
  TurnTimings,
} from './ports/chat-records.js';
import type { LLMUsage } from './ports/llm-provider.js';
import type { MetadataFilter } from './ports/common.js';

export type { CitationReport };

/** A document to ingest. */
export interface IngestDocument {
  /** Stable id; ingesting the same id again replaces the document everywhere. */
  readonly id: string;
  /** The text (markdown structure is respected when chunking). */
  readonly text: string;
  /** Title shown with its sources. */
  readonly title?: string | undefined;
  /** Where it came from (path or URL). */
  readonly uri?: string | undefined;
  /** Metadata to filter on; keys `documentId`, `chunkIndex`, `revision`, `text`, `title`, `uri`, `section` are reserved. */
  readonly metadata?: Readonly<Record<string, string | number | boolean | null>> | undefined;
}

/** What an ingestion did. */
export interface IngestResult {
  /** Documents indexed. */
  readonly documents: number;
  /** Chunks indexed. */
  readonly chunks: number;
  /** Chunks of earlier versions removed. */
  readonly removedChunks: number;
  /** Duration, ms. */
  readonly durationMs: number;
  /** Documents left out (only with `partial: true`; otherwise an invalid one fails the batch). */
  readonly rejected: readonly RejectedDocument[];
}

/** A document `engine.ingest({ partial: true })` left out, and why. */
export interface RejectedDocument {
  /** Its position in the batch. */
  readonly index: number;
  /** Its id when it has a string one (at most its first 256 characters). */
  readonly id: string | undefined;
  /** Why, in words (the issues joined). */
  readonly reason: string;
  /** Every invalid field, paths relative to the batch (`3.text`). */
  readonly issues: readonly { readonly path: string; readonly message: string }[];
}

/** A chat turn request. */
export interface ChatRequest {
  /** Session to continue; with `mode: 'chat'` and none, a new one is created. */
  readonly sessionId?: string | undefined;
  /** The caller; must own the session when given. */
  readonly userId?: string | undefined;
  /** The user message. */
  readonly message: string;
  /**
   * Idempotency key of this message (needs `sessionId`): a retried request with the same key
   * returns the first answer instead of starting a second turn.
   */
  readonly messageId?: string | undefined;
  /**
   * `chat` persists the turn in a session (a new one without `sessionId`); `query` is
   * stateless. Absent: `chat` when `sessionId` is given, otherwise a stateless `query`
   * (seed 001's default), so a call naming neither stores nothing.
   */
  readonly mode?: 'chat' | 'query' | undefined;
  /** Overrides the temperature for this turn. */
  readonly temperature?: number | undefined;
  /** Overrides the number of sources for this turn. */
  readonly topK?: number | undefined;
  /** Caps the answer's length in tokens for this turn (the session's or engine's otherwise). */
  readonly maxTokens?: number | undefined;
  /** Overrides the route's search depth: `shallow` (fewer candidates, no graph), `medium`, `deep`. */
  readonly searchDepth?: 'shallow' | 'medium' | 'deep' | undefined;
  /**
   * Chat profile for this turn's history selection (seed 001 `chat_profile_id`): one of
   * `default`, `long_context`, `compact` or `compaction.profiles`; the session's profile
   * otherwise. A conversation the turn creates keeps it. An unknown name is a `ValidationError`.
   */
  readonly chatProfile?: string | undefined;
  /**
   * Seed 000's switch for graph rerank ("GNN boost": score propagation over graph
   * neighbours): `true` turns it on for this turn, `false` off; absent, the session's setting,
   * then the route's strategy decides.
   */
  readonly enableGNN?: boolean | undefined;
  /**
   * Seed 000's switch for graph traversal (expanding the candidates through the knowledge
   * graph, depth 2 over all edge types): `true` on for this turn, `false` off; absent, the
   * session's setting, then the route's strategy (`searchDepth: 'deep'` turns it on) decides.
   */
  readonly enableGraphTraversal?: boolean | undefined;
  /** Only sources whose metadata matches. */
  readonly filter?: MetadataFilter | undefined;
  /** Cancels the turn; the user message and any partial answer are kept. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Earlier turns of a conversation the client kept, oldest first. In `mode: 'query'` the model
   * sees them as history and a follow-up is rewritten from them before retrieval, as in a
   * session; nothing is stored. Clients that keep the conversation themselves (OpenAI-style
   * message arrays) send it here. With a session that has no messages yet (a chat the client
   * kept while the server lost it), they are stored as its first messages (marked
   * `metadata.clientHistory`) before the turn; a session that has messages keeps its own.
   */
  readonly history?: readonly HistoryTurn[] | undefined;
}

/** One earlier turn of a stateless conversation (`ChatRequest.history`). */
export interface HistoryTurn {
  /** Who said it. */
  readonly role: 'user' | 'assistant';
  /** The text. */
  readonly content: string;
}

/** The answer of a turn. */
export interface ChatResponse {
  /** Id of the assistant message (stored in chat mode). */
  readonly messageId: string;
  /** Id of the stored user message, or null in query mode. */
  readonly userMessageId: string | null;
  /** Session id, or null in query mode. */
  readonly sessionId: string | null;
  /** The answer, with validated `[source: Sn]` citations. */
  readonly text: string;
  /** Sources the answer may cite, labelled S1..Sn. */
  readonly sources: Source[];
  /** Confidence with its breakdown. */
  readonly confidence: Confidence;
  /** What the answer cited and what was removed. */
  readonly citations: CitationReport;
  /** True when guard mode answered (no sufficiently relevant sources, or the judge blocked). */
  readonly guard: boolean;
  /**
   * Which stage refused to answer, and why; null when the turn answered. Set whichever stage
   * refused: the guard (too little evidence), the model (it wrote a refusal itself), or the
   * judge (policy `block`). An app that checks one field for "no answer" checks this one.
   */
  readonly refused: Refusal | null;
  /** Per-claim grounding of the answer; null for guard, small-talk and quit answers or judge `off`. */
  readonly grounding: Grounding | null;
  /** `complete`, or `degraded` when retrieval failed and the answer has no context. */
  readonly status: MessageStatus;
  /** True when the message was a quit word and the session has ended. */
  readonly ended: boolean;
  /** Timings, ms. */
  readonly timings: TurnTimings;
  /** Token usage of the model call, when reported. */
  readonly usage: LLMUsage | null;
  /** Model that answered. */
  readonly model: string;
  /**
   * The user's earlier messages recalled into this turn's prompt (seed 004 `sourceMessages`),
   * best first; empty when recall is off, found nothing, or the turn did not reach the model.
   */
  readonly recalled: readonly RecalledReference[];
  /**
   * The question's number in its session, 1 for the first (seed 001 `turn_number`: the
   * session's user messages up to this one); null for a turn without a session.
   */
  readonly turnNumber: number | null;
  /**
   * Whether the session's history was compacted (a summary written) since the previous
   * answer, so this turn saw the summary in place of older turns (seed 001
   * `history_compacted`). Compaction runs after a turn, off the reply path, so it is the turn
   * after the long one that reports it.
   */
  readonly historyCompacted: boolean;
  /** ISO-8601 UTC. */
  readonly createdAt: string;
}

/** A refusal to answer: which stage refused, and why (`ChatResponse.refused`). */
export interface Refusal {
  /** `guard`: too little evidence; `model`: the model wrote a refusal; `judge`: policy `block`. */
  readonly by: 'guard' | 'model' | 'judge';
  /**
   * Why: the guard's `no-sources`, `low-similarity` or `missing-focus` (a word or literal the
   * question is about occurs in no retrieved chunk; after generation too, when one such word is
   * missing, the best chunk is weak and the model is unsure: the answer is then kept and says
   * which words no source mentions), the model's `no-answer`, the judge's
   * `unsupported` (the answer's claims were not supported by its sources).
   */
  readonly reason: 'no-sources' | 'low-similarity' | 'missing-focus' | 'no-answer' | 'unsupported';
}

/** An earlier message recalled into a turn's prompt (its text is in that session's history). */
export interface RecalledReference {
  /** The stored message id. */
  readonly messageId: string;
  /** Its session. */
  readonly sessionId: string;
  /** Who said it. */
  readonly role: 'user' | 'assistant';
  /** Calibrated similarity to the query in [0, 1]. */
  readonly score: number;
  /** When it was said (ISO-8601 UTC). */
  readonly createdAt: string;
}

/** A serialisable error, as stream parts carry it. */
export interface SerializedError {
  /** Stable error code. */
  readonly code: string;
  /** Message. */
  readonly message: string;
  /** Whether retrying may succeed. */
  readonly retryable: boolean;
}

/** A part of a streamed turn. `sources` arrives before the first `text-delta`. */
export type ChatStreamPart =
  | { readonly type: 'route'; readonly route: string; readonly k: number }
  | { readonly type: 'sources'; readonly sources: Source[] }
  | { readonly type: 'text-delta'; readonly text: string }
  | ({ readonly type: 'citations' } & CitationReport)
  | { readonly type: 'confidence'; readonly confidence: Confidence }
  | {
      readonly type: 'grounding';
      /** Per-claim grounding. */
      readonly grounding: Grounding;
      /** The final answer text (differs from the streamed text when the policy removed or blocked). */
      readonly text: string;
      /** Claims removed by policy `remove`. */
      readonly removed: readonly ClaimGrounding[];
      /** True when policy `block` replaced the answer with the guard answer. */
      readonly blocked: boolean;
    }
  | { readonly type: 'done'; readonly response: ChatResponse }
  | {
      readonly type: 'error';
      readonly error: SerializedError;
      /** Id of the partial answer stored as `incomplete`, when text had been produced. */
      readonly partialMessageId: string | null;
    };

/** Parameters of `engine.createSession`. */
export interface CreateSessionParams {
  /** Owner. */
  readonly userId: string;
  /**
   * Id of the new session (default: a new ULID), e.g. a chat id chosen by a client; an id that
   * is already taken, by any user, is a `ConflictError`.
   */
  readonly id?: string | undefined;
  /** Display title. */
  readonly title?: string | undefined;
  /** Per-session settings. */
  readonly settings?: SessionRecord['settings'] | undefined;
  /** Host-app data. */
  readonly metadata?: Readonly<Record<string, string | number | boolean | null>> | undefined;
}

/** Parameters of `engine.history`. */
export interface HistoryParams {
  /** Session. */
  readonly sessionId: string;
  /** Caller; must own the session. */
  readonly userId: string;
  /** Page size (default 50). */
  readonly limit?: number | undefined;
  /** Messages to skip (default 0). */
  readonly offset?: number | undefined;
  /** Include sources of assistant messages (default true). */
  readonly includeSources?: boolean | undefined;
  /** `nextCursor` of the previous page; continues after it (instead of `offset`). */
  readonly cursor?: string | undefined;
  /** Include the feedback given on the page's messages (default false). */
  readonly includeFeedback?: boolean | undefined;
}

/** A page of a session's history. */
export interface HistoryPage {
  /** The session. */
  readonly session: SessionRecord;
  /** Messages, oldest first. */
  readonly messages: MessageRecord[];
  /** Messages in the session. */
  readonly total: number;
  /** Page size used. */
  readonly limit: number;
  /** Offset used. */
  readonly offset: number;
  /** Cursor of the next page, or null on the last one. */
  readonly nextCursor: string | null;
  /** Feedback on the page's messages, when asked for (`includeFeedback`). */
  readonly feedback?: FeedbackRecord[] | undefined;
}

/**
 * A result of `engine.search`: a ranked source plus the whole text of its chunk, for callers
 * that hand the context to another framework (a LangChain retriever, their own prompt).
 * Chat responses and stream parts carry plain {@link Source}s, without `text`, to keep their
 * payloads small.
 */
export interface SearchHit extends Source {
  /** The whole chunk text, as indexed (`snippet` is its start, for display). */
  readonly text: string;
}

/** Options of `engine.search`. */
/** Options of `engine.findPatterns`. */
export interface FindPatternsOptions {
  /** Trajectories to return, 1–100 (default 5). */
  readonly k?: number | undefined;
  /**
   * Only this user's trajectories. Trajectories hold users' first questions: pass the
   * caller's id whenever the result reaches a user (the HTTP route always does).
   */
  readonly userId?: string | undefined;
  /** Cancels the lookup. */
  readonly signal?: AbortSignal | undefined;
}

export interface SearchOptions {
  /** Sources to return (default: the route's k). */
  readonly k?: number | undefined;
  /** Overrides the route's search depth. */
  readonly searchDepth?: 'shallow' | 'medium' | 'deep' | undefined;
  /** Only sources whose metadata matches. */
  readonly filter?: MetadataFilter | undefined;
  /** The user searching: their own ingested corrections are included (never another user's). */
  readonly userId?: string | undefined;
  /** Cancels the search. */
  readonly signal?: AbortSignal | undefined;
}

/** Parameters of `engine.feedback`. */
export interface FeedbackParams {
  /** The assistant message rated. */
  readonly messageId: string;
  /** The caller; must own the message's session. */
  readonly userId: string;
  /** The rating. */
  readonly rating: 'good' | 'neutral' | 'bad';
  /** Helpfulness of each source by label (`S1`…), in [0, 1]. */
  readonly sourceHelpfulness?: Readonly<Record<string, number>> | undefined;
  /** Free text. */
  readonly comment?: string | undefined;
  /** Whether the answer was factual. */
  readonly markedAsFactual?: boolean | undefined;
  /** The user's correction of the answer. */
  readonly correctedContent?: string | undefined;
  /**
   * Also ingest the correction as a document, linked to the message in the graph. It is the
   * author's: it reaches only their answers, unless `publishCorrection` is set.
   */
  readonly ingestCorrection?: boolean | undefined;
  /**
   * The host publishes the ingested correction: every user's answers may use it. Never set it
   * from a client's request (the HTTP handler does not accept it).
   */
  readonly publishCorrection?: boolean | undefined;
}
