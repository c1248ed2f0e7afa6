/**
 * The index the `cortexis` command answers from: reads the documents of the given paths,
 * restores the index kept in the cache folder, re-ingests only what changed and saves it
 * again; opens the SQLite file that keeps chat sessions when better-sqlite3 is installed.
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createChatEngine, type ChatEngine } from '../engine.js';
import { resolveConfig } from '../engine/resolve-config.js';
import { ConfigError } from '../errors/index.js';
import type { LearningSink } from '../ports/learning-sink.js';
import type { SessionStore } from '../ports/session-store.js';
import type { IngestDocument } from '../types.js';
import { createHashingEmbedder } from '../adapters/hashing/embedder.js';
import { createMemoryGraphStore } from '../adapters/memory/graph-store.js';
import { createMemoryKeywordIndex } from '../adapters/memory/keyword-index.js';
import { createMemoryVectorStore } from '../adapters/memory/vector-store.js';
import type { ProviderName } from './args.js';
import type { SkippedFile } from '../loaders/walk.js';
import { chooseProvider, describeModel } from './choose-provider.js';
import { describeChanges, diffDocuments, hashDocuments, type IndexChanges } from './incremental.js';
import { NoDocumentsError, type CliIO, type Env } from './io.js';
import { progressWriter } from './progress.js';
import { packageVersion } from './package-version.js';
import { loadSnapshot, restoreStores, saveSnapshot, saveSnapshotSources } from './snapshot.js';
import { readOptions, type ReadFlags } from './read-options.js';
import { stampSources, type SourceRecord } from './source-stamp.js';
import { counted } from './render.js';

export { NoDocumentsError } from './io.js';
export { CLI_IGNORE_FILE, readOptions } from './read-options.js';

/** The cache folder: `CORTEXIS_CACHE_DIR`, else `$XDG_CACHE_HOME/cortexis`, else `~/.cache/cortexis`. */
export function cacheRoot(env: Env): string {
  const explicit = env['CORTEXIS_CACHE_DIR']?.trim();
  if (explicit) return resolve(explicit);
  return join(env['XDG_CACHE_HOME']?.trim() || join(homedir(), '.cache'), 'cortexis');
}

/** The index folder of a set of input paths: `<cache>/index/<hash of the absolute paths>`. */
export function indexDir(root: string, paths: readonly string[]): string {
  const key = createHash('sha256')
    .update(JSON.stringify([...new Set(paths.map((path) => resolve(path)))].sort()))
    .digest('hex')
    .slice(0, 16);
  return join(root, 'index', key);
}

/**
 * Opens the SQLite file that keeps chat sessions across runs, when the optional
 * better-sqlite3 is installed; otherwise undefined (sessions live in memory).
 */
export async function openSessionDatabase(
  dir: string,
  io: CliIO,
): Promise<{ sessionStore: SessionStore; learningSink: LearningSink } | undefined> {
  try {
    const { createSqliteStores } = await import('../adapters/sqlite/index.js');
    await mkdir(dir, { recursive: true });
    const path = join(dir, 'sessions.db');
    const stores = await createSqliteStores({ path });
    process.once('exit', () => stores.close());
    io.stderr.write(`Sessions: ${path}\n`);
    return stores;
  } catch (error) {
    if (ConfigError.isInstance(error)) return undefined; // better-sqlite3 is not installed
    throw error;
  }
}

/** Skipped files listed on stderr; the rest are counted (`index --json` lists them all). */
const SKIPPED_SHOWN = 20;

/** Lists the skipped files on stderr (the first few; the rest are counted). */
function reportSkipped(io: CliIO, skipped: readonly SkippedFile[]): void {
  for (const file of skipped.slice(0, SKIPPED_SHOWN)) {
    io.stderr.write(`Skipped ${file.path}: ${file.reason}\n`);
  }
  if (skipped.length > SKIPPED_SHOWN) {
    io.stderr.write(
      `Skipped ${skipped.length - SKIPPED_SHOWN} more files (index --json lists them)\n`,
    );
  }
}

/** Reads the documents under `paths` and reports every file skipped, with the reason. */
async function readCorpus(
  paths: readonly string[],
  io: CliIO,
  showProgress: boolean,
  flags: ReadFlags,
): Promise<{ documents: IngestDocument[]; skipped: SkippedFile[] }> {
  // The parsers (marked, yaml, htmlparser2) load only when files are read.
  const { FILE_TYPES, loadDocuments } = await import('../loaders/index.js');
  const progress = progressWriter(io, showProgress, 'Reading', 'files');
  const { documents, skipped } = await loadDocuments(paths, {
    ...readOptions(flags),
    onProgress: ({ filesDone, filesTotal }) => progress(filesDone, filesTotal),
  });
  reportSkipped(io, skipped);
  if (documents.length === 0) {
    throw new NoDocumentsError(
      `no documents found in ${paths.join(', ')} (readable: ${Object.keys(FILE_TYPES).join(' ')})`,
    );
  }
  return { documents, skipped };
}

export interface OpenOptions extends ReadFlags {
  readonly paths: readonly string[];
  readonly noCache: boolean;
  readonly progress: boolean;
  readonly provider?: ProviderName | undefined;
  readonly model?: string | undefined;
  /** Keep sessions in the SQLite file of the cache folder. */
  readonly persist?: boolean;
  /** Only index: no model, and the summary is the caller's to print. */
  readonly indexOnly?: boolean;
}

export interface OpenedIndex {
  readonly engine: ChatEngine;
  readonly changes: IndexChanges;
  readonly dir: string;
  readonly documents: number;
  /** Files (or records) not loaded, with the reason (documents `ingest` refused among them). */
  readonly skipped: readonly SkippedFile[];
  /** Why the index could not be saved to the cache folder, when it could not. */
  readonly saveError: string | undefined;
  /** Sessions are kept in the SQLite file. */
  readonly persisted: boolean;
}

/**
 * What a file becomes in the index, between releases: bump it with any change to the loaders'
 * text, the chunking or the keyword analysis, so that an index saved before it is rebuilt
 * rather than searched with terms it was not built with (a release changes the version too).
 * 2: a line that only looks like a heading is escaped (`\#`).
 * 3: every chunk of the built-in chunkers carries its exact `tokenCount`.
 */
export const INDEX_REVISION = 3;

/** What besides the documents shapes the index; a saved index with another one is rebuilt. */
export function indexFingerprint(embedderId: string, version: string): string {
  const { chunking } = resolveConfig({});
  return createHash('sha256')
    .update(
      JSON.stringify({
        embedderId,
        chunkSize: chunking.chunkSize,
        chunkOverlap: chunking.chunkOverlap,
        version,
        revision: INDEX_REVISION,
      }),
    )
    .digest('hex');
}

/** Empty in-memory stores for the index. */
function freshStores() {
  return {
    vectors: createMemoryVectorStore(),
    keywords: createMemoryKeywordIndex(),
    graph: createMemoryGraphStore(),
  };
}

/**
 * Builds the engine over the index of `paths`: restores the stored index, then re-ingests
 * only the documents added or changed since and removes those whose files are gone.
 */
export async function openIndex(io: CliIO, options: OpenOptions): Promise<OpenedIndex> {
  const env = io.env ?? {};
  const provider = options.indexOnly ? null : chooseProvider(env, options.provider, options.model);
  const embedder = createHashingEmbedder();
  const settings = indexFingerprint(embedder.id, await packageVersion());
  const root = cacheRoot(env);
  const dir = indexDir(root, options.paths);
  const loaded = options.noCache ? null : await loadSnapshot(dir, settings).catch(() => null);
  let stores = freshStores();
  let previous: Readonly<Record<string, string>> | undefined;
  if (loaded?.documents) {
    try {
      restoreStores(stores, loaded);
      previous = loaded.documents;
    } catch {
      // A damaged index: build it again in fresh stores.
      stores = freshStores();
    }
  }
  // Files untouched since the index was saved are not read again (see source-stamp.ts).
  const stamp = options.noCache ? undefined : await stampSources(options.paths, options);
  const untouched =
    stamp !== undefined && previous !== undefined && loaded?.sources?.stamp === stamp
      ? loaded.sources
      : undefined;
  let docs: IngestDocument[] = [];
  // Mutable: documents `ingest` refuses join it, and the saved stamp lists them too.
  let skipped: SkippedFile[];
  let hashes: Record<string, string>;
  if (untouched) {
    reportSkipped(io, untouched.skipped);
    skipped = [...untouched.skipped];
    hashes = { ...previous };
  } else {
    ({ documents: docs, skipped } = await readCorpus(options.paths, io, options.progress, options));
    hashes = hashDocuments(docs);
  }
  const documentCount = untouched ? untouched.documents : docs.length;
  const sources: SourceRecord | undefined =
    stamp === undefined ? undefined : { stamp, documents: documentCount, skipped };

  const { vectors, keywords, graph } = stores;
  const sessions = options.persist ? await openSessionDatabase(root, io) : undefined;
  const engine = createChatEngine({
    embedder,
    vectorStore: vectors,
    keywordIndex: keywords,
    graphStore: graph,
    ...(provider ? { llm: provider.llm } : {}),
    ...(sessions
      ? { sessionStore: sessions.sessionStore, learningSink: sessions.learningSink }
      : {}),
  });
  if (!options.indexOnly) {
    io.stderr.write(`Model: ${describeModel(provider, options.provider)}\n`);
  }

  const changes = diffDocuments(previous, hashes);
  const stale = new Set([...changes.added, ...changes.changed]);
  const toIngest = docs.filter((doc) => stale.has(doc.id));
  if (changes.removed.length > 0) await engine.deleteDocuments(changes.removed);
  if (toIngest.length > 0) {
    const progress = progressWriter(io, options.progress, 'Indexing', 'documents');
    // The good documents are indexed; one `ingest` refuses is listed with the skipped files.
    const result = await engine.ingest(toIngest, {
      partial: true,
      onProgress: ({ documentsDone, documentsTotal }) => progress(documentsDone, documentsTotal),
    });
    const refused = new Set<string>();
    for (const rejected of result.rejected) {
      const doc = toIngest[rejected.index]!;
      const file = { path: doc.uri ?? doc.id, code: 'invalid' as const, reason: rejected.reason };
      io.stderr.write(`Skipped ${file.path}: ${file.reason}\n`);
      skipped.push(file);
      refused.add(doc.id);
    }
    // The manifest lists only what the index holds.
    if (refused.size > 0) {
      hashes = Object.fromEntries(Object.entries(hashes).filter(([id]) => !refused.has(id)));
    }
    io.stderr.write(
      `Indexed ${counted(result.documents, 'document')} (${counted(result.chunks, 'chunk')}) in ${Math.round(result.durationMs)} ms\n`,
    );
  } else {
    io.stderr.write(
      `Loaded the index of ${counted(changes.unchanged, 'unchanged document')} from ${dir}${untouched ? ' (no file touched since it was saved)' : ''}\n`,
    );
  }
  if (!options.indexOnly) io.stderr.write(`${describeChanges(changes)}\n\n`);
  let saveError: string | undefined;
  if (previous === undefined || toIngest.length > 0 || changes.removed.length > 0) {
    await saveSnapshot(dir, { vectors, keywords, graph }, settings, hashes, sources).catch(
      (error: unknown) => {
        // Reported, and the exit code says so (1); an answer is still printed.
        saveError = error instanceof Error ? error.message : String(error);
        io.stderr.write(`Error: could not save the index: ${saveError}\n`);
      },
    );
  } else if (sources && !untouched) {
    // Files were touched but not changed: keep their new stamp, so the next run reads none.
    await saveSnapshotSources(dir, sources).catch(() => undefined);
  }
  return {
    engine,
    changes,
    dir,
    documents: documentCount,
    skipped,
    saveError,
    persisted: sessions !== undefined,
  };
}
