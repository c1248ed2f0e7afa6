/**
 * Row ↔ record mapping shared by the SQLite and Postgres stores. Writers produce parameter
 * lists in the column order of the `*_COLUMNS` constants (JSON as text, booleans as 0/1);
 * readers accept what either driver returns (JSON as text or already parsed, numbers as
 * numbers or numeric strings).
 */
import type {
  Confidence,
  FeedbackRecord,
  MessageRecord,
  SessionRecord,
  Source,
  TrajectoryRecord,
  TrajectoryStep,
} from '../../ports/chat-records.js';
import type { Metadata } from '../../ports/common.js';
import type { GraphNode } from '../../ports/graph-store.js';

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

/** Columns of `sessions` written by `sessionValues`, in order. */
export const SESSION_COLUMNS = [
  'id',
  'user_id',
  'title',
  'status',
  'created_at',
  'updated_at',
  'ended_at',
  'trajectory_id',
  'settings',
  'metadata',
  'message_count',
  'total_search_time_ms',
  'total_generation_time_ms',
] as const;

/** Columns of `messages` written by `messageValues`, in order. */
export const MESSAGE_COLUMNS = [
  'id',
  'session_id',
  'seq',
  'user_id',
  'role',
  'content',
  'status',
  'created_at',
  'search_time_ms',
  'generation_time_ms',
  'total_time_ms',
  'confidence_overall',
  'confidence',
  'guard',
  'metadata',
  'request_id',
  'reply_to',
  'covered_by',
  'covers',
] as const;

/** Columns of `sources` written by `sourceValues`, in order. */
export const SOURCE_COLUMNS = [
  'message_id',
  'position',
  'label',
  'document_id',
  'chunk_id',
  'title',
  'uri',
  'snippet',
  'score',
  'vector_score',
  'keyword_score',
  'fused_score',
  'source_type',
  'graph_boost',
  'learned_boost',
  'graph_node_id',
  'graph_path_depth',
  'graph_related_count',
  'metadata',
] as const;

/** Columns of `trajectories` written by `trajectoryValues`, in order. */
export const TRAJECTORY_COLUMNS = [
  'id',
  'session_id',
  'user_id',
  'started_at',
  'ended_at',
  'initial_query',
  'final_quality',
  'route',
  'step_count',
  'total_reward',
  'status',
] as const;

/** Columns of `trajectory_steps` written by `stepValues`, in order. */
export const STEP_COLUMNS = [
  'id',
  'trajectory_id',
  'step_number',
  'message_id',
  'query_text',
  'chunk_ids',
  'reward',
  'created_at',
] as const;

/** Columns of `feedback` written by `feedbackValues`, in order. */
export const FEEDBACK_COLUMNS = [
  'id',
  'message_id',
  'session_id',
  'user_id',
  'rating',
  'source_helpfulness',
  'comment',
  'marked_as_factual',
  'corrected_content',
  'reward',
  'created_at',
] as const;

/** JSON text of a value (what JSON columns receive). */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/** A JSON column's value: parsed from text (SQLite) or as the driver parsed it (Postgres). */
export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function number(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

function numberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : number(value);
}

function textOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** Parameters for a `sessions` row. */
export function sessionValues(session: SessionRecord): unknown[] {
  return [
    session.id,
    session.userId,
    session.title ?? null,
    session.status,
    session.createdAt,
    session.updatedAt,
    session.endedAt ?? null,
    session.trajectoryId ?? null,
    toJson(session.settings ?? {}),
    toJson(session.metadata ?? {}),
    session.stats.messageCount,
    session.stats.totalSearchMs,
    session.stats.totalGenerationMs,
  ];
}

/** The session record of a `sessions` row. */
export function rowToSession(row: Row): SessionRecord {
  return {
    id: String(row['id']),
    userId: String(row['user_id']),
    title: textOrNull(row['title']),
    status: row['status'] as SessionRecord['status'],
    createdAt: String(row['created_at']),
    updatedAt: String(row['updated_at']),
    endedAt: textOrNull(row['ended_at']),
    trajectoryId: textOrNull(row['trajectory_id']),
    settings: fromJson(row['settings']),
    stats: {
      messageCount: number(row['message_count']),
      totalSearchMs: number(row['total_search_time_ms']),
      totalGenerationMs: number(row['total_generation_time_ms']),
    },
    metadata: fromJson(row['metadata']),
  };
}

/** Parameters for a `messages` row at position `seq` of its session. */
export function messageValues(message: MessageRecord, seq: number): unknown[] {
  return [
    message.id,
    message.sessionId,
    seq,
    message.userId,
    message.role,
    message.content,
    message.status,
    message.createdAt,
    message.timings?.retrievalMs ?? null,
    message.timings?.generationMs ?? null,
    message.timings?.totalMs ?? null,
    message.confidence?.overall ?? null,
    message.confidence ? toJson(message.confidence) : null,
    message.guard ? 1 : 0,
    toJson(message.metadata ?? {}),
    message.requestId ?? null,
    message.replyTo ?? null,
    message.coveredBy ?? null,
    message.covers === undefined ? null : toJson(message.covers),
  ];
}

/**
 * The message record of a `messages` row and its sources. The optional fields
 * (`requestId`, `replyTo`, `covers`, `coveredBy`) are present only when set, so a record
 * written without them reads back equal.
 */
export function rowToMessage(row: Row, sources: readonly Source[]): MessageRecord {
  const totalMs = row['total_time_ms'];
  const message: {
    -readonly [Key in keyof MessageRecord]: MessageRecord[Key];
  } = {
    id: String(row['id']),
    sessionId: String(row['session_id']),
    userId: String(row['user_id']),
    role: row['role'] as MessageRecord['role'],
    content: String(row['content']),
    status: row['status'] as MessageRecord['status'],
    createdAt: String(row['created_at']),
    sources,
    confidence:
      row['confidence'] === null || row['confidence'] === undefined
        ? null
        : fromJson<Confidence>(row['confidence']),
    timings:
      totalMs === null || totalMs === undefined
        ? null
        : {
            retrievalMs: number(row['search_time_ms']),
            generationMs: number(row['generation_time_ms']),
            totalMs: number(totalMs),
          },
    guard: number(row['guard']) === 1 || row['guard'] === true,
    metadata: fromJson(row['metadata']),
  };
  if (row['request_id'] != null) message.requestId = String(row['request_id']);
  if (row['reply_to'] != null) message.replyTo = String(row['reply_to']);
  if (row['covered_by'] != null) message.coveredBy = String(row['covered_by']);
  if (row['covers'] != null) message.covers = fromJson<string[]>(row['covers']);
  return message;
}

/** Parameters for a `sources` row: the source at `position` of message `messageId`. */
export function sourceValues(messageId: string, position: number, source: Source): unknown[] {
  return [
    messageId,
    position,
    source.id,
    source.documentId,
    source.chunkId,
    source.title ?? null,
    source.uri ?? null,
    source.snippet,
    source.score,
    source.vectorScore ?? null,
    source.keywordScore ?? null,
    source.fusedScore,
    source.type,
    source.graphBoost ?? 1,
    source.learnedBoost ?? 1,
    source.graphContext?.nodeId ?? null,
    source.graphContext?.pathDepth ?? null,
    source.graphContext?.relatedNodeCount ?? null,
    toJson(source.metadata ?? {}),
  ];
}

/** The source of a `sources` row. */
export function rowToSource(row: Row): Source {
  const nodeId = textOrNull(row['graph_node_id']);
  const metadata = fromJson<Source['metadata']>(row['metadata']);
  // The heading path is the chunk's `section` metadata: no column of its own.
  const section = (metadata as Source['metadata'] | null)?.['section'];
  return {
    id: String(row['label']),
    chunkId: String(row['chunk_id']),
    documentId: String(row['document_id']),
    title: textOrNull(row['title']),
    uri: textOrNull(row['uri']),
    ...(typeof section === 'string' && section.trim() !== '' ? { section } : {}),
    snippet: String(row['snippet']),
    score: number(row['score']),
    vectorScore: numberOrNull(row['vector_score']),
    keywordScore: numberOrNull(row['keyword_score']),
    fusedScore: number(row['fused_score']),
    type: row['source_type'] as Source['type'],
    graphBoost: number(row['graph_boost']),
    learnedBoost: number(row['learned_boost']),
    graphContext:
      nodeId === null
        ? null
        : {
            nodeId,
            relatedNodeCount: number(row['graph_related_count'] ?? 0),
            pathDepth: number(row['graph_path_depth'] ?? 0),
          },
    metadata,
  };
}

/** Groups `sources` rows (ordered by message, position) by message id. */
export function groupSources(rows: readonly Row[]): Map<string, Source[]> {
  const byMessage = new Map<string, Source[]>();
  for (const row of rows) {
    const id = String(row['message_id']);
    let list = byMessage.get(id);
    if (!list) byMessage.set(id, (list = []));
    list.push(rowToSource(row));
  }
  return byMessage;
}

/** Parameters for a `trajectories` row. */
export function trajectoryValues(trajectory: TrajectoryRecord): unknown[] {
  return [
    trajectory.id,
    trajectory.sessionId,
    trajectory.userId,
    trajectory.startedAt,
    trajectory.endedAt,
    trajectory.initialQuery,
    trajectory.finalQuality,
    trajectory.route,
    trajectory.stepCount,
    trajectory.totalReward,
    trajectory.status,
  ];
}

/** The trajectory of a `trajectories` row. */
export function rowToTrajectory(row: Row): TrajectoryRecord {
  return {
    id: String(row['id']),
    sessionId: String(row['session_id']),
    userId: String(row['user_id']),
    initialQuery: String(row['initial_query']),
    route: String(row['route']),
    status: row['status'] as TrajectoryRecord['status'],
    startedAt: String(row['started_at']),
    endedAt: textOrNull(row['ended_at']),
    stepCount: number(row['step_count']),
    totalReward: number(row['total_reward']),
    finalQuality: numberOrNull(row['final_quality']),
  };
}

/** Parameters for a `trajectory_steps` row. */
export function stepValues(step: TrajectoryStep): unknown[] {
  return [
    step.id,
    step.trajectoryId,
    step.stepNumber,
    step.messageId,
    step.query,
    toJson(step.chunkIds),
    step.reward,
    step.createdAt,
  ];
}

/** The step of a `trajectory_steps` row. */
export function rowToStep(row: Row): TrajectoryStep {
  return {
    id: String(row['id']),
    trajectoryId: String(row['trajectory_id']),
    stepNumber: number(row['step_number']),
    messageId: String(row['message_id']),
    query: String(row['query_text']),
    chunkIds: fromJson<string[]>(row['chunk_ids']),
    reward: number(row['reward']),
    createdAt: String(row['created_at']),
  };
}

/** Parameters for a `feedback` row. */
export function feedbackValues(feedback: FeedbackRecord): unknown[] {
  return [
    feedback.id,
    feedback.messageId,
    feedback.sessionId,
    feedback.userId,
    feedback.rating,
    feedback.sourceHelpfulness ? toJson(feedback.sourceHelpfulness) : null,
    feedback.comment ?? null,
    feedback.markedAsFactual === null || feedback.markedAsFactual === undefined
      ? null
      : Number(feedback.markedAsFactual),
    feedback.correctedContent ?? null,
    feedback.reward,
    feedback.createdAt,
  ];
}

/** The feedback of a `feedback` row. */
export function rowToFeedback(row: Row): FeedbackRecord {
  const factual = numberOrNull(row['marked_as_factual']);
  const helpfulness = row['source_helpfulness'];
  return {
    id: String(row['id']),
    messageId: String(row['message_id']),
    sessionId: String(row['session_id']),
    userId: String(row['user_id']),
    rating: row['rating'] as FeedbackRecord['rating'],
    sourceHelpfulness:
      helpfulness === null || helpfulness === undefined
        ? null
        : fromJson<Record<string, number> | null>(helpfulness),
    comment: textOrNull(row['comment']),
    markedAsFactual: factual === null ? null : factual !== 0,
    correctedContent: textOrNull(row['corrected_content']),
    reward: number(row['reward']),
    createdAt: String(row['created_at']),
  };
}

/** The graph node of a `nodes` row. */
export function rowToNode(row: Row): GraphNode {
  return {
    id: String(row['id']),
    type: String(row['type']),
    properties: fromJson<Metadata>(row['properties']),
  };
}

/** `?, ?, …` (SQLite) or `$start, $start+1, …` (Postgres) for `count` parameters. */
export function placeholders(dialect: 'sqlite' | 'postgres', count: number, start = 1): string {
  return Array.from({ length: count }, (_, index) =>
    dialect === 'sqlite' ? '?' : `$${start + index}`,
  ).join(', ');
}
