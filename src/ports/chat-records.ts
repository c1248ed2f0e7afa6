import type { Metadata } from './common.js';

/** How a source was found. */
export type SourceType = 'vector' | 'keyword' | 'graph' | 'hybrid';

/** A retrieved chunk as an answer cites it, and as it is stored with the message. */
export interface Source {
  /** The label the answer cites: `S1`..`Sn`, in rank order. */
  readonly id: string;
  /** The chunk's id in the stores. */
  readonly chunkId: string;
  /** The document the chunk belongs to. */
  readonly documentId: string;
  /** Document title, when known. */
  readonly title: string | null;
  /** Where the document came from (path or URL), when known. */
  readonly uri: string | null;
  /**
   * The headings the chunk sits under, outermost first, joined with ` › ` (its
   * `metadata.section`); absent when it sits under none.
   */
  readonly section?: string | undefined;
  /** The start of the chunk text for display, without its leading headings and code fences. */
  readonly snippet: string;
  /** Relevance to the query in [0, 1]; the guard threshold applies to the best one. */
  readonly score: number;
  /** Cosine similarity of the vector search, when the vector search found it. */
  readonly vectorScore: number | null;
  /** Keyword coverage in [0, 1], when the keyword search found it. */
  readonly keywordScore: number | null;
  /** Reciprocal-rank-fusion score the ranking used. */
  readonly fusedScore: number;
  /** Which searches found it. */
  readonly type: SourceType;
  /** Multiplier from the knowledge graph in [0, 2] (1 = neutral). */
  readonly graphBoost: number;
  /** Multiplier learned from feedback in [0.5, 2] (1 = neutral). */
  readonly learnedBoost: number;
  /** Where the source sits in the knowledge graph, when the graph was used. */
  readonly graphContext: {
    /** Graph node of the chunk. */
    readonly nodeId: string;
    /** Number of related nodes found around it. */
    readonly relatedNodeCount: number;
    /** Path length from the nearest search hit (0 = a hit itself). */
    readonly pathDepth: number;
  } | null;
  /** The chunk's metadata (document metadata plus chunk position). */
  readonly metadata: Metadata;
}

/** Confidence level bands: low < 0.4 ≤ medium < 0.7 ≤ high. */
export type ConfidenceLevel = 'low' | 'medium' | 'high';

/** The five confidence factors, each in [0, 1], or null where there was no signal. */
export interface ConfidenceFactors {
  /** How relevant the best sources are. */
  readonly sourceQuality: number;
  /** How many distinct documents support the answer. */
  readonly sourceDiversity: number;
  /** How strongly further sources corroborate the best one. */
  readonly semanticCohesion: number;
  /** Support from knowledge-graph relationships; null without graph signal. */
  readonly graphContext: number | null;
  /** The model's certainty; null when the provider gives none. */
  readonly llmCertainty: number | null;
}

/** A confidence score with its breakdown. */
export interface Confidence extends ConfidenceFactors {
  /** The score in [0, 1], computed as `mode` says (recomputable from the other fields). */
  readonly overall: number;
  /** Band of `overall`. */
  readonly level: ConfidenceLevel;
  /**
   * The weights applied: in `weighted` mode factors without signal get 0 and the rest are
   * rescaled (`overall` = Σ weight·factor); in `seed-000` mode the weights as given; in
   * `fitted` mode the model's own factor weights (see `fitted`).
   */
  readonly weights: Readonly<Record<keyof ConfidenceFactors, number>>;
  /** Why `overall` was lowered below what the factors give, when it was (absent otherwise). */
  readonly capped?: readonly ConfidenceCap[] | undefined;
  /** How `overall` was computed (absent on answers stored before the field existed). */
  readonly mode?: 'fitted' | 'weighted' | 'seed-000' | undefined;
  /**
   * `fitted` mode: what `overall` is computed from, so it can be recomputed:
   * `probability` = σ(bias + Σ weights[f]·(factor f, or 0.5 when null) + topScoreWeight·topScore),
   * then `overall` = the `value` of the first `calibration` pair whose `upTo` ≥ `probability`
   * (the last value above it; `probability` itself without calibration), then `cappedAt`,
   * rounded to three places. Without sources `overall` and `probability` are 0.
   */
  readonly fitted?: ConfidenceFitted | undefined;
  /** The cap applied to `overall` (an answer mostly unsupported by its sources), or null. */
  readonly cappedAt?: number | null | undefined;
}

/** The fitted model's terms of one confidence score (`Confidence.fitted`). */
export interface ConfidenceFitted {
  /** Intercept. */
  readonly bias: number;
  /** Weight of the best source's score. */
  readonly topScoreWeight: number;
  /** The best source's score in [0, 1] (0 without sources). */
  readonly topScore: number;
  /** The logistic probability before calibration. */
  readonly probability: number;
  /** The isotonic calibration applied, `[upTo, value]` pairs, or null. */
  readonly calibration: readonly (readonly [number, number])[] | null;
}

/**
 * Why an answer's confidence was capped: mostly unsupported claims (never `high`), an answer
 * lacking what the question asks for or a word the question is about (never `high`), one only
 * restating the question, or whose sources miss a word the question is about (`low`).
 */
export type ConfidenceCap =
  | 'unsupported-claims'
  | 'answer-lacks-asked-for'
  | 'answer-restates-question'
  | 'question-focus-missing'
  | 'answer-lacks-focus'
  | 'answer-below-top-source'
  | 'answer-close-runner-up';

/** Role of a stored message. `system-summary` replaces older turns in the context. */
export type MessageRole = 'user' | 'assistant' | 'system' | 'system-summary';

/** Whether a stored message is whole. */
export type MessageStatus = 'complete' | 'incomplete' | 'degraded';

/** Per-session settings; every field overrides the engine default for that session. */
export interface SessionSettings {
  /**
   * The model answering this session's turns: a name of the engine's `models` registry
   * (seed 000's per-session model); absent, the engine's `llm`. Stored in SQL as `model`.
   */
  readonly model?: string | undefined;
  /** System prompt used instead of the engine's. */
  readonly systemPrompt?: string | undefined;
  /** Sampling temperature. */
  readonly temperature?: number | undefined;
  /** Most answer tokens. */
  readonly maxTokens?: number | undefined;
  /** Number of sources to retrieve. */
  readonly topK?: number | undefined;
  /** Guard threshold on the best source score. */
  readonly minSimilarity?: number | undefined;
  /**
   * Per-chunk relevance threshold in [0, 1] (seed 003 `threshold`): sources scoring under it
   * are dropped for this session's turns (the engine's `retrieval.threshold` and the route's
   * still apply when higher).
   */
  readonly threshold?: number | undefined;
  /** Use retrieval at all (false: plain chat with history). */
  readonly rag?: boolean | undefined;
  /** Append a standard "Sources: S1, S2" line to answers. */
  readonly includeCitations?: boolean | undefined;
  /** Route search depth for this session's turns. */
  readonly searchDepth?: 'shallow' | 'medium' | 'deep' | undefined;
  /** Graph rerank ("GNN boost") on or off for this session's turns (seed 000 `enableGNN`). */
  readonly enableGNN?: boolean | undefined;
  /** Graph traversal on or off for this session's turns (seed 000 `enableGraphTraversal`). */
  readonly enableGraphTraversal?: boolean | undefined;
  /** Chat profile (compaction thresholds) of this session. */
  readonly chatProfile?: string | undefined;
  /** What the grounding judge does with unsupported claims in this session. */
  readonly judgePolicy?: 'annotate' | 'remove' | 'block' | undefined;
}

/** Running totals of a session. */
export interface SessionStats {
  /** Messages stored, all roles. */
  readonly messageCount: number;
  /** Total retrieval time in ms. */
  readonly totalSearchMs: number;
  /** Total generation time in ms. */
  readonly totalGenerationMs: number;
}

/** A conversation. */
export interface SessionRecord {
  /** ULID. */
  readonly id: string;
  /** Owner; nobody else sees the session. */
  readonly userId: string;
  /** Display title. */
  readonly title: string | null;
  /** `active` until ended (quit word or `endSession`) or archived (`archiveSession`). */
  readonly status: 'active' | 'ended' | 'archived';
  /** ISO-8601 UTC. */
  readonly createdAt: string;
  /** ISO-8601 UTC of the last change. */
  readonly updatedAt: string;
  /** ISO-8601 UTC when ended. */
  readonly endedAt: string | null;
  /** The learning trajectory of this session, once begun. */
  readonly trajectoryId: string | null;
  /** Per-session settings. */
  readonly settings: SessionSettings;
  /** Running totals. */
  readonly stats: SessionStats;
  /** Host-app data. */
  readonly metadata: Metadata;
}

/** Timings of one turn in ms. */
export interface TurnTimings {
  /** Retrieval (embedding, searches, fusion). */
  readonly retrievalMs: number;
  /** Generation. */
  readonly generationMs: number;
  /** Whole turn. */
  readonly totalMs: number;
}

/** A stored message. */
export interface MessageRecord {
  /** ULID. */
  readonly id: string;
  /** The session it belongs to. */
  readonly sessionId: string;
  /** The session owner. */
  readonly userId: string;
  /** Who said it. */
  readonly role: MessageRole;
  /** The text. */
  readonly content: string;
  /** Whether it is whole. */
  readonly status: MessageStatus;
  /** ISO-8601 UTC. */
  readonly createdAt: string;
  /** Sources of an assistant message (validated citations refer to them). */
  readonly sources: readonly Source[];
  /** Confidence of an assistant message. */
  readonly confidence: Confidence | null;
  /** Timings of an assistant message. */
  readonly timings: TurnTimings | null;
  /** True when the answer is the guard answer (no relevant sources). */
  readonly guard: boolean;
  /** Host-app data. */
  readonly metadata: Metadata;
  /** Client-supplied idempotency key of a user message (absent: none). */
  readonly requestId?: string | null | undefined;
  /** The user message an assistant message answers (absent: unknown). */
  readonly replyTo?: string | null | undefined;
  /** Ids of the messages a `system-summary` replaces in the context. */
  readonly covers?: readonly string[] | undefined;
  /** The summary that replaced this message in the context (absent: not covered). */
  readonly coveredBy?: string | null | undefined;
}

/** A change to a session's running totals, applied with the messages of a turn. */
export interface SessionStatsDelta {
  /** Retrieval time to add, ms. */
  readonly searchMs: number;
  /** Generation time to add, ms. */
  readonly generationMs: number;
}

/** A learning trajectory: one per session, a step per turn. */
export interface TrajectoryRecord {
  /** Trajectory id. */
  readonly id: string;
  /** The session it follows. */
  readonly sessionId: string;
  /** The session owner. */
  readonly userId: string;
  /** The first query. */
  readonly initialQuery: string;
  /** Route of the first turn. */
  readonly route: string;
  /** `active` until the session ends (`completed`) or goes idle (`abandoned`). */
  readonly status: 'active' | 'completed' | 'abandoned';
  /** ISO-8601 UTC. */
  readonly startedAt: string;
  /** ISO-8601 UTC. */
  readonly endedAt: string | null;
  /** Steps recorded. */
  readonly stepCount: number;
  /** Sum of step rewards. */
  readonly totalReward: number;
  /** Session quality in [0, 1] when ended. */
  readonly finalQuality: number | null;
}

/** One turn of a trajectory. */
export interface TrajectoryStep {
  /** Step id. */
  readonly id: string;
  /** The trajectory. */
  readonly trajectoryId: string;
  /** 1-based position. */
  readonly stepNumber: number;
  /** The assistant message of the turn. */
  readonly messageId: string;
  /** The search query of the turn. */
  readonly query: string;
  /** Chunk ids of the sources used. */
  readonly chunkIds: readonly string[];
  /** Reward in [-1, 1]: the confidence until feedback arrives. */
  readonly reward: number;
  /** ISO-8601 UTC. */
  readonly createdAt: string;
}

/** A user's rating of an answer. */
export type FeedbackRating = 'good' | 'neutral' | 'bad';

/** User feedback on an assistant message, as stored. */
export interface FeedbackRecord {
  /** Feedback id. */
  readonly id: string;
  /** The assistant message rated. */
  readonly messageId: string;
  /** Its session. */
  readonly sessionId: string;
  /** The user who gave it (the session owner). */
  readonly userId: string;
  /** The rating. */
  readonly rating: FeedbackRating;
  /** Helpfulness of each source by label (`S1`…), in [0, 1]; null when not given. */
  readonly sourceHelpfulness: Readonly<Record<string, number>> | null;
  /** Free text. */
  readonly comment: string | null;
  /** Whether the user judged the answer factual; null when not said. */
  readonly markedAsFactual: boolean | null;
  /** The user's correction of the answer. */
  readonly correctedContent: string | null;
  /** Reward in [-1, 1] computed from the feedback (seed 000 `calculateFeedbackReward`). */
  readonly reward: number;
  /** ISO-8601 UTC. */
  readonly createdAt: string;
}
