/**
 * The schema the SQLite and Postgres stores share (seed 000 §4 plus what cortexis records
 * need), as an ordered list of versioned migrations. Each migration is applied once, in a
 * transaction, and recorded in the `migrations` table. No driver imports here.
 */

/** Which SQL database a statement is written for. */
export type Dialect = 'sqlite' | 'postgres';

/** One schema change. */
export interface Migration {
  /** 1, 2, 3, … in the order they apply. */
  readonly version: number;
  /** Short name, recorded with the version. */
  readonly name: string;
  /** The statements for a dialect; `table` qualifies a table name (Postgres schema). */
  statements(dialect: Dialect, table: (name: string) => string): string[];
}

/** Column types per dialect. */
function types(dialect: Dialect) {
  const postgres = dialect === 'postgres';
  return {
    /** JSON document: `jsonb` in Postgres, text holding JSON in SQLite. */
    json: postgres ? 'JSONB' : 'TEXT',
    /** 64-bit float (SQLite REAL is 64-bit; Postgres `real` is not). */
    real: postgres ? 'DOUBLE PRECISION' : 'REAL',
    /** A text field of the JSON `settings` column, as a generated column. */
    settingText: (key: string) =>
      postgres
        ? `TEXT GENERATED ALWAYS AS (settings ->> '${key}') STORED`
        : `TEXT GENERATED ALWAYS AS (json_extract(settings, '$.${key}')) VIRTUAL`,
    /** A boolean field of the JSON `settings` column, as a generated column (SQLite: 0 / 1). */
    settingBoolean: (key: string) =>
      postgres
        ? `BOOLEAN GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(settings -> '${key}') = 'boolean' THEN (settings ->> '${key}')::boolean END) STORED`
        : `INTEGER GENERATED ALWAYS AS (json_extract(settings, '$.${key}')) VIRTUAL`,
    /** A numeric field of the JSON `settings` column, as a generated column. */
    settingNumber: (key: string) =>
      postgres
        ? `DOUBLE PRECISION GENERATED ALWAYS AS (CASE WHEN jsonb_typeof(settings -> '${key}') = 'number' THEN (settings ->> '${key}')::double precision END) STORED`
        : `REAL GENERATED ALWAYS AS (json_extract(settings, '$.${key}')) VIRTUAL`,
  };
}

/**
 * The migrations, oldest first. Never edit one that has shipped: add the next version.
 *
 * Differences from seed 000 §4: ids are ULID text (trajectories too); `conversation_id` is
 * `session_id`; durations are 64-bit floats (turn timings are fractional ms); JSON columns
 * hold what the records nest (settings, metadata, confidence, covers); the seed's session
 * configuration columns (`model`, `system_prompt`, `temperature`, `max_tokens`,
 * `search_depth`) are generated from `settings`, so SQL readers see them and they never
 * disagree with the record. Trajectories, steps and (from version 5) feedback have no
 * foreign key to sessions and messages: a learning sink may be used with another session
 * store, or alone.
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, messages, sources, feedback, trajectories',
    statements(dialect, t) {
      const { json, real, settingText, settingNumber } = types(dialect);
      return [
        `CREATE TABLE ${t('sessions')} (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  title TEXT,
  status TEXT NOT NULL DEFAULT 'active',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  ended_at TEXT,
  trajectory_id TEXT,
  settings ${json} NOT NULL DEFAULT '{}',
  metadata ${json} NOT NULL DEFAULT '{}',
  message_count INTEGER NOT NULL DEFAULT 0,
  total_search_time_ms ${real} NOT NULL DEFAULT 0,
  total_generation_time_ms ${real} NOT NULL DEFAULT 0,
  model ${settingText('model')},
  system_prompt ${settingText('systemPrompt')},
  temperature ${settingNumber('temperature')},
  max_tokens ${settingNumber('maxTokens')},
  search_depth ${settingText('searchDepth')}
)`,
        `CREATE TABLE ${t('messages')} (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES ${t('sessions')}(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  user_id TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'system-summary')),
  content TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('complete', 'incomplete', 'degraded')),
  created_at TEXT NOT NULL,
  search_time_ms ${real},
  generation_time_ms ${real},
  total_time_ms ${real},
  confidence_overall ${real},
  confidence ${json},
  guard INTEGER NOT NULL DEFAULT 0,
  metadata ${json} NOT NULL DEFAULT '{}',
  UNIQUE (session_id, seq)
)`,
        `CREATE TABLE ${t('sources')} (
  message_id TEXT NOT NULL REFERENCES ${t('messages')}(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  label TEXT NOT NULL,
  document_id TEXT NOT NULL,
  chunk_id TEXT NOT NULL,
  title TEXT,
  uri TEXT,
  snippet TEXT NOT NULL,
  score ${real} NOT NULL,
  vector_score ${real},
  keyword_score ${real},
  fused_score ${real} NOT NULL,
  source_type TEXT NOT NULL CHECK (source_type IN ('vector', 'keyword', 'graph', 'hybrid')),
  graph_boost ${real} NOT NULL DEFAULT 1,
  learned_boost ${real} NOT NULL DEFAULT 1,
  graph_node_id TEXT,
  graph_path_depth INTEGER,
  graph_related_count INTEGER,
  metadata ${json} NOT NULL DEFAULT '{}',
  PRIMARY KEY (message_id, position)
)`,
        `CREATE TABLE ${t('feedback')} (
  id TEXT PRIMARY KEY,
  message_id TEXT NOT NULL REFERENCES ${t('messages')}(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  rating TEXT NOT NULL CHECK (rating IN ('good', 'neutral', 'bad')),
  source_helpfulness ${json},
  comment TEXT,
  marked_as_factual INTEGER,
  corrected_content TEXT,
  created_at TEXT NOT NULL
)`,
        `CREATE TABLE ${t('trajectories')} (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  initial_query TEXT NOT NULL,
  final_quality ${real},
  route TEXT NOT NULL,
  step_count INTEGER NOT NULL DEFAULT 0,
  total_reward ${real} NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed', 'abandoned'))
)`,
        `CREATE TABLE ${t('trajectory_steps')} (
  id TEXT PRIMARY KEY,
  trajectory_id TEXT NOT NULL REFERENCES ${t('trajectories')}(id) ON DELETE CASCADE,
  step_number INTEGER NOT NULL,
  message_id TEXT NOT NULL,
  query_text TEXT NOT NULL,
  chunk_ids ${json} NOT NULL,
  reward ${real} NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (trajectory_id, step_number)
)`,
        // The seed's indices (sources, messages and steps by parent are covered by the
        // primary keys and unique constraints above), plus listSessions' order.
        `CREATE INDEX idx_sessions_user_id ON ${t('sessions')} (user_id, created_at, id)`,
        `CREATE INDEX idx_sessions_created_at ON ${t('sessions')} (created_at)`,
        `CREATE INDEX idx_messages_created_at ON ${t('messages')} (created_at)`,
        `CREATE INDEX idx_messages_user_id ON ${t('messages')} (user_id, created_at)`,
        `CREATE INDEX idx_sources_chunk_id ON ${t('sources')} (chunk_id)`,
        `CREATE INDEX idx_feedback_message_id ON ${t('feedback')} (message_id)`,
        `CREATE INDEX idx_trajectories_session_id ON ${t('trajectories')} (session_id)`,
      ];
    },
  },
  {
    version: 2,
    name: 'idempotency keys and compaction',
    statements(dialect, t) {
      const { json } = types(dialect);
      return [
        `ALTER TABLE ${t('messages')} ADD COLUMN request_id TEXT`,
        `ALTER TABLE ${t('messages')} ADD COLUMN reply_to TEXT`,
        `ALTER TABLE ${t('messages')} ADD COLUMN covered_by TEXT`,
        `ALTER TABLE ${t('messages')} ADD COLUMN covers ${json}`,
        `CREATE INDEX idx_messages_request_id ON ${t('messages')} (session_id, request_id) WHERE request_id IS NOT NULL`,
        `CREATE INDEX idx_messages_reply_to ON ${t('messages')} (session_id, reply_to) WHERE reply_to IS NOT NULL`,
      ];
    },
  },
  {
    version: 3,
    name: 'knowledge graph',
    statements(dialect, t) {
      const { json, real } = types(dialect);
      return [
        `CREATE TABLE ${t('nodes')} (
  namespace TEXT NOT NULL,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  properties ${json} NOT NULL DEFAULT '{}',
  PRIMARY KEY (namespace, id)
)`,
        `CREATE TABLE ${t('edges')} (
  namespace TEXT NOT NULL,
  from_id TEXT NOT NULL,
  to_id TEXT NOT NULL,
  type TEXT NOT NULL,
  weight ${real} NOT NULL,
  PRIMARY KEY (namespace, from_id, to_id, type)
)`,
        `CREATE INDEX idx_edges_to ON ${t('edges')} (namespace, to_id)`,
      ];
    },
  },
  {
    version: 4,
    name: 'keyword index',
    statements(dialect, t) {
      // Postgres gets its own keyword tables in version 6: here it records the version only.
      if (dialect === 'postgres') return [];
      return [
        `CREATE TABLE ${t('keyword_records')} (
  doc INTEGER PRIMARY KEY,
  namespace TEXT NOT NULL,
  id TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  UNIQUE (namespace, id)
)`,
        // `terms` holds the record's index terms (the same tokenizer as the in-memory BM25
        // index), space-separated; the FTS5 rowid is keyword_records.doc.
        `CREATE VIRTUAL TABLE ${t('keyword_fts')} USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0')`,
      ];
    },
  },
  {
    version: 5,
    name: 'feedback rewards',
    statements(dialect, t) {
      const reward = feedbackRewardSql(dialect);
      const shared = [
        `CREATE UNIQUE INDEX idx_feedback_message_id ON ${t('feedback')} (message_id)`,
        `CREATE INDEX idx_feedback_session_id ON ${t('feedback')} (session_id, created_at, id)`,
        `CREATE INDEX idx_trajectory_steps_message_id ON ${t('trajectory_steps')} (message_id)`,
      ];
      if (dialect === 'postgres') {
        return [
          `ALTER TABLE ${t('feedback')} DROP CONSTRAINT feedback_message_id_fkey`,
          `ALTER TABLE ${t('feedback')} ADD COLUMN session_id TEXT, ADD COLUMN reward DOUBLE PRECISION`,
          `UPDATE ${t('feedback')} AS f SET session_id = m.session_id FROM ${t('messages')} AS m WHERE m.id = f.message_id`,
          `UPDATE ${t('feedback')} SET session_id = '' WHERE session_id IS NULL`,
          `UPDATE ${t('feedback')} SET reward = ${reward}`,
          // Latest feedback per message wins.
          `DELETE FROM ${t('feedback')} AS f USING ${t('feedback')} AS newer
WHERE newer.message_id = f.message_id AND (newer.created_at, newer.id) > (f.created_at, f.id)`,
          `ALTER TABLE ${t('feedback')} ALTER COLUMN session_id SET NOT NULL, ALTER COLUMN reward SET NOT NULL,
ADD CONSTRAINT feedback_reward_range CHECK (reward BETWEEN -1 AND 1)`,
          `DROP INDEX ${t('idx_feedback_message_id')}`,
          ...shared,
        ];
      }
      // SQLite cannot drop a foreign key: rebuild the table (dropping it drops its index).
      return [
        `CREATE TABLE ${t('feedback_v5')} (
  id TEXT PRIMARY KEY,
  message_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  rating TEXT NOT NULL CHECK (rating IN ('good', 'neutral', 'bad')),
  source_helpfulness TEXT,
  comment TEXT,
  marked_as_factual INTEGER,
  corrected_content TEXT,
  reward REAL NOT NULL CHECK (reward BETWEEN -1 AND 1),
  created_at TEXT NOT NULL
)`,
        `INSERT INTO ${t('feedback_v5')} (id, message_id, session_id, user_id, rating, source_helpfulness, comment, marked_as_factual, corrected_content, reward, created_at)
SELECT f.id, f.message_id, COALESCE(m.session_id, ''), f.user_id, f.rating, f.source_helpfulness, f.comment, f.marked_as_factual, f.corrected_content, 0, f.created_at
FROM ${t('feedback')} AS f LEFT JOIN ${t('messages')} AS m ON m.id = f.message_id
WHERE NOT EXISTS (SELECT 1 FROM ${t('feedback')} AS newer WHERE newer.message_id = f.message_id
  AND (newer.created_at > f.created_at OR (newer.created_at = f.created_at AND newer.id > f.id)))`,
        `DROP TABLE ${t('feedback')}`,
        `ALTER TABLE ${t('feedback_v5')} RENAME TO feedback`,
        `UPDATE ${t('feedback')} SET reward = ${reward}`,
        ...shared,
      ];
    },
  },
  {
    version: 6,
    name: 'postgres keyword index',
    statements(dialect, t) {
      // SQLite keeps its FTS5 tables of version 4: the version is recorded, nothing changes.
      if (dialect === 'sqlite') return [];
      return [
        // One row per namespace: its number in the postings, and the BM25 statistics kept in
        // step with every write (the row is also the namespace's write lock).
        `CREATE TABLE ${t('keyword_namespaces')} (
  namespace TEXT PRIMARY KEY,
  space INTEGER GENERATED ALWAYS AS IDENTITY UNIQUE,
  documents BIGINT NOT NULL DEFAULT 0,
  total_length BIGINT NOT NULL DEFAULT 0
)`,
        // `length` is the number of index terms (the tokenizer of the in-memory BM25 index).
        `CREATE TABLE ${t('keyword_records')} (
  doc BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  namespace TEXT NOT NULL,
  id TEXT NOT NULL,
  text TEXT NOT NULL,
  metadata JSONB NOT NULL DEFAULT '{}',
  length INTEGER NOT NULL,
  UNIQUE (namespace, id)
)`,
        // The inverted index: one row per record and distinct term; the primary key serves
        // document frequencies and scoring by index-only scans.
        `CREATE TABLE ${t('keyword_postings')} (
  space INTEGER NOT NULL,
  term TEXT NOT NULL,
  doc BIGINT NOT NULL,
  frequency INTEGER NOT NULL,
  length INTEGER NOT NULL,
  PRIMARY KEY (space, term, doc) INCLUDE (frequency, length)
)`,
        `CREATE INDEX idx_keyword_postings_doc ON ${t('keyword_postings')} (doc)`,
      ];
    },
  },
  {
    version: 7,
    name: 'one user message per idempotency key',
    statements(_dialect, t) {
      // A later user message with the key of an earlier one in the same session (two
      // instances both stored it before this version): keep the first, point the later one's
      // answers at it, and clear the later one's key. No message is deleted.
      const later = (alias: string) =>
        `${alias}.role = 'user' AND ${alias}.request_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM ${t('messages')} AS kept WHERE kept.session_id = ${alias}.session_id
    AND kept.role = 'user' AND kept.request_id = ${alias}.request_id AND kept.seq < ${alias}.seq)`;
      return [
        `UPDATE ${t('messages')} AS answer SET reply_to = (
  SELECT kept.id FROM ${t('messages')} AS duplicate JOIN ${t('messages')} AS kept
    ON kept.session_id = duplicate.session_id AND kept.role = 'user'
    AND kept.request_id = duplicate.request_id
  WHERE duplicate.id = answer.reply_to ORDER BY kept.seq LIMIT 1)
WHERE answer.reply_to IN (SELECT duplicate.id FROM ${t('messages')} AS duplicate WHERE ${later('duplicate')})`,
        `UPDATE ${t('messages')} AS duplicate SET request_id = NULL WHERE ${later('duplicate')}`,
        `DROP INDEX ${t('idx_messages_request_id')}`,
        `CREATE UNIQUE INDEX idx_messages_request_id ON ${t('messages')} (session_id, request_id) WHERE request_id IS NOT NULL AND role = 'user'`,
      ];
    },
  },
  {
    version: 8,
    name: "seed 000's session switches as columns",
    statements(dialect, t) {
      const { settingBoolean } = types(dialect);
      // Generated from `settings`, like `model` and `search_depth`: SQL readers see the
      // seed's columns, and they never disagree with the record.
      return [
        `ALTER TABLE ${t('sessions')} ADD COLUMN enable_gnn ${settingBoolean('enableGNN')}`,
        `ALTER TABLE ${t('sessions')} ADD COLUMN enable_graph_traversal ${settingBoolean('enableGraphTraversal')}`,
      ];
    },
  },
  {
    version: 9,
    name: 'turn leases: one turn at a time per session across engines',
    statements(_dialect, t) {
      // No foreign key: a turn may take the lease of a session it is about to create.
      return [
        `CREATE TABLE ${t('turn_leases')} (
  session_id TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at BIGINT NOT NULL
)`,
      ];
    },
  },
];

/**
 * `calculateFeedbackReward` (src/learning/feedback.ts) as a SQL expression over a `feedback`
 * row, to give rows written before version 5 their reward.
 */
function feedbackRewardSql(dialect: Dialect): string {
  const postgres = dialect === 'postgres';
  const min = postgres ? 'LEAST' : 'MIN';
  const max = postgres ? 'GREATEST' : 'MAX';
  const mean = postgres
    ? `(CASE WHEN jsonb_typeof(source_helpfulness) = 'object' THEN (SELECT AVG(value::double precision) FROM jsonb_each_text(source_helpfulness)) END)`
    : `(CASE WHEN json_valid(source_helpfulness) AND json_type(source_helpfulness) = 'object' THEN (SELECT AVG(value) FROM json_each(source_helpfulness)) END)`;
  const base = `(CASE rating WHEN 'good' THEN 1.0 WHEN 'neutral' THEN 0.5 ELSE -0.5 END)`;
  const blended = `(CASE WHEN ${mean} IS NULL THEN ${base} ELSE ${base} * 0.7 + (${mean} - 0.5) * 0.3 END)`;
  const corrected = `(CASE WHEN marked_as_factual = 0 AND corrected_content <> '' THEN ${min}(${blended}, -0.3) ELSE ${blended} END)`;
  return `${max}(-1.0, ${min}(1.0, ${corrected}))`;
}

/** The newest schema version. */
export const LATEST_SCHEMA_VERSION: number = migrations[migrations.length - 1]!.version;

/** The statement creating the migrations table, if missing. */
export function migrationsTable(table: (name: string) => string): string {
  return `CREATE TABLE IF NOT EXISTS ${table('migrations')} (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;
}
