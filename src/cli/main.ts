/**
 * The `cortexis` command: `index`, `ask`, `chat` and `sessions` (see `cortexis --help` and
 * docs/cli.md). Reads documents from files and folders, keeps an incremental index and the
 * chat sessions in the cache folder, and answers with sources and confidence.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChatEngine, type ChatEngine } from '../engine.js';
import { resolveConfig } from '../config.js';
import { ConfigError, CortexisError } from '../errors/index.js';
import type { LearningSink } from '../ports/learning-sink.js';
import type { SessionStore } from '../ports/session-store.js';
import type { ChatStream } from '../stream.js';
import type { IngestDocument } from '../types.js';
import { createHashingEmbedder } from '../adapters/hashing/embedder.js';
import { createMemoryGraphStore } from '../adapters/memory/graph-store.js';
import { createMemoryKeywordIndex } from '../adapters/memory/keyword-index.js';
import { createMemoryVectorStore } from '../adapters/memory/vector-store.js';
import { providerFromEnv, type EnvironmentProvider } from '../adapters/providers/index.js';
import { EXIT, parseCommandLine, USAGE, UsageError, type ProviderName } from './args.js';
import { FILE_TYPES, loadDocuments, type SkippedFile } from '../loaders/index.js';
import { describeChanges, diffDocuments, hashDocuments, type IndexChanges } from './incremental.js';
import { loadSnapshot, restoreStores, saveSnapshot } from './snapshot.js';
import { answerJson, progressLine, renderConfidence, renderSources } from './render.js';
import { runRepl } from './repl.js';

/** Where the CLI reads and writes; tests pass their own. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  /** Environment variables (provider keys, cache folder). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Subscribes to Ctrl-C arriving as a signal (stdin not a terminal); returns the
   * unsubscribe function. On a terminal, the REPL's readline reports Ctrl-C itself.
   */
  readonly onInterrupt?: (handler: () => void) => () => void;
}

/** No documents in the given paths (exit code 3). */
class NoDocumentsError extends Error {
  override readonly name = 'NoDocumentsError';
}

/** The user who owns the CLI's sessions. */
const CLI_USER = 'cli';

type Env = Readonly<Record<string, string | undefined>>;

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

/** The package version, from the package.json next to the sources or the build. */
async function packageVersion(): Promise<string> {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth += 1) {
    try {
      const parsed: unknown = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
      if (
        typeof parsed === 'object' &&
        parsed !== null &&
        (parsed as { name?: unknown }).name === 'cortexis' &&
        typeof (parsed as { version?: unknown }).version === 'string'
      ) {
        return (parsed as { version: string }).version;
      }
    } catch {
      // not here: look one folder up
    }
    dir = dirname(dir);
  }
  return 'unknown';
}

/**
 * The model the flags or the environment name; null for the offline extractive model. The
 * CLI is the one place in cortexis that detects a provider from environment variables (the
 * library leaves that to its caller); it prints which one it uses and why.
 */
function chooseProvider(
  env: Env,
  provider: ProviderName | undefined,
  model: string | undefined,
): EnvironmentProvider | null {
  if (provider === 'extractive') {
    if (model !== undefined) throw modelWithoutProvider();
    return null;
  }
  const bundle = providerFromEnv(env, { type: provider, model });
  if (bundle === null && model !== undefined) throw modelWithoutProvider();
  return bundle;
}

/** The `Model:` line: what answers, and why (a flag or the variables that chose it). */
function describeModel(
  provider: EnvironmentProvider | null,
  flag: ProviderName | undefined,
): string {
  if (provider === null) {
    return flag === 'extractive'
      ? 'extractive (offline; --provider extractive)'
      : 'extractive (offline, no API key needed; no provider variable is set)';
  }
  return `${provider.description}; ${flag ? `--provider ${flag}` : provider.reason}`;
}

function modelWithoutProvider(): ConfigError {
  return new ConfigError(`--model needs a provider: the offline extractive model has one model`, [
    { path: 'model', message: 'needs --provider or a provider key in the environment' },
  ]);
}

/**
 * Opens the SQLite file that keeps chat sessions across runs, when the optional
 * better-sqlite3 is installed; otherwise undefined (sessions live in memory).
 */
async function openSessionDatabase(
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

/** Reads the documents under `paths` and reports every file skipped, with the reason. */
async function readCorpus(
  paths: readonly string[],
  io: CliIO,
  showProgress: boolean,
  fields: { readonly textField?: string | undefined; readonly titleField?: string | undefined },
): Promise<{ documents: IngestDocument[]; skipped: SkippedFile[] }> {
  const progress = progressWriter(io, showProgress, 'Reading', 'files');
  const { documents, skipped } = await loadDocuments(paths, {
    ...(fields.textField === undefined ? {} : { textField: fields.textField }),
    ...(fields.titleField === undefined ? {} : { titleField: fields.titleField }),
    onProgress: ({ filesDone, filesTotal }) => progress(filesDone, filesTotal),
  });
  for (const file of skipped.slice(0, SKIPPED_SHOWN)) {
    io.stderr.write(`Skipped ${file.path}: ${file.reason}\n`);
  }
  if (skipped.length > SKIPPED_SHOWN) {
    io.stderr.write(
      `Skipped ${skipped.length - SKIPPED_SHOWN} more files (index --json lists them)\n`,
    );
  }
  if (documents.length === 0) {
    throw new NoDocumentsError(
      `no documents found in ${paths.join(', ')} (readable: ${Object.keys(FILE_TYPES).join(' ')})`,
    );
  }
  return { documents, skipped };
}

interface OpenOptions {
  readonly paths: readonly string[];
  readonly noCache: boolean;
  readonly progress: boolean;
  readonly textField?: string | undefined;
  readonly titleField?: string | undefined;
  readonly provider?: ProviderName | undefined;
  readonly model?: string | undefined;
  /** Keep sessions in the SQLite file of the cache folder. */
  readonly persist?: boolean;
  /** Only index: no model, and the summary is the caller's to print. */
  readonly indexOnly?: boolean;
}

interface OpenedIndex {
  readonly engine: ChatEngine;
  readonly changes: IndexChanges;
  readonly dir: string;
  readonly documents: number;
  /** Files (or records) not loaded, with the reason. */
  readonly skipped: readonly SkippedFile[];
  /** Sessions are kept in the SQLite file. */
  readonly persisted: boolean;
}

/** Empty in-memory stores for the index. */
function freshStores() {
  return {
    vectors: createMemoryVectorStore(),
    keywords: createMemoryKeywordIndex(),
    graph: createMemoryGraphStore(),
  };
}

function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/**
 * A progress reporter for stderr (when it is a terminal, or when `forced`): one line
 * rewritten in place on a terminal, else a line per update; at most 5 updates a second,
 * and always the last one.
 */
function progressWriter(
  io: CliIO,
  forced: boolean,
  label: string,
  unit: string,
): (done: number, total: number) => void {
  const terminal = isTerminal(io.stderr);
  if (!forced && !terminal) return () => undefined;
  const started = Date.now();
  let lastWrite = 0;
  return (done, total) => {
    const now = Date.now();
    const last = done >= total;
    if (!last && now - lastWrite < 200) return;
    lastWrite = now;
    const line = `${label} ${progressLine(done, total, now - started, unit)}`;
    io.stderr.write(terminal ? `\r${line}${last ? '\n' : ''}` : `${line}\n`);
  };
}

/**
 * Builds the engine over the index of `paths`: restores the stored index, then re-ingests
 * only the documents added or changed since and removes those whose files are gone.
 */
async function openIndex(io: CliIO, options: OpenOptions): Promise<OpenedIndex> {
  const env = io.env ?? {};
  const provider = options.indexOnly ? null : chooseProvider(env, options.provider, options.model);
  const { documents: docs, skipped } = await readCorpus(
    options.paths,
    io,
    options.progress,
    options,
  );
  const embedder = createHashingEmbedder();
  const { chunking } = resolveConfig({});
  // What besides the documents shapes the index; a change rebuilds it from scratch.
  const settings = createHash('sha256')
    .update(
      JSON.stringify({
        embedderId: embedder.id,
        chunkSize: chunking.chunkSize,
        chunkOverlap: chunking.chunkOverlap,
        keywordTokenizer: 'stemmed-v1',
      }),
    )
    .digest('hex');
  const root = cacheRoot(env);
  const dir = indexDir(root, options.paths);
  const hashes = hashDocuments(docs);

  let stores = freshStores();
  let previous: Readonly<Record<string, string>> | undefined;
  const loaded = options.noCache ? null : await loadSnapshot(dir, settings).catch(() => null);
  if (loaded?.documents) {
    try {
      restoreStores(stores, loaded);
      previous = loaded.documents;
    } catch {
      // A damaged index: build it again in fresh stores.
      stores = freshStores();
    }
  }
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
    const result = await engine.ingest(toIngest, {
      onProgress: ({ documentsDone, documentsTotal }) => progress(documentsDone, documentsTotal),
    });
    io.stderr.write(
      `Indexed ${result.documents} documents (${result.chunks} chunks) in ${Math.round(result.durationMs)} ms\n`,
    );
  } else {
    io.stderr.write(`Loaded the index of ${changes.unchanged} unchanged documents from ${dir}\n`);
  }
  if (!options.indexOnly) io.stderr.write(`${describeChanges(changes)}\n\n`);
  if (previous === undefined || toIngest.length > 0 || changes.removed.length > 0) {
    await saveSnapshot(dir, { vectors, keywords, graph }, settings, hashes).catch(
      (error: unknown) => {
        io.stderr.write(
          `(could not save the index: ${error instanceof Error ? error.message : String(error)})\n`,
        );
      },
    );
  }
  return {
    engine,
    changes,
    dir,
    documents: docs.length,
    skipped,
    persisted: sessions !== undefined,
  };
}

/** A failed turn, as the stream's error part carries it. */
interface TurnFailure {
  readonly code: string;
  readonly message: string;
}

/** What printing one answer found. */
export interface PrintedTurn {
  /** The session ended (quit word). */
  readonly ended: boolean;
  /** The turn failed (also when cancelled: code `aborted`). */
  readonly failure: TurnFailure | null;
}

/**
 * Prints a streamed answer: text as it arrives, then the sources (best first) and the
 * confidence line (not after small talk); in `json-lines` mode, each part as a JSON line.
 */
export async function printStream(
  stream: ChatStream,
  io: CliIO,
  mode: 'text' | 'json-lines',
): Promise<PrintedTurn> {
  let route: string | null = null;
  for await (const part of stream) {
    if (mode === 'json-lines') io.stdout.write(`${JSON.stringify(part)}\n`);
    if (part.type === 'route') route = part.route;
    if (part.type === 'error') {
      if (mode === 'text' && part.error.code !== 'aborted') {
        io.stderr.write(`\nError (${part.error.code}): ${part.error.message}\n`);
      }
      return { ended: false, failure: part.error };
    }
    if (part.type === 'done') {
      const { response } = part;
      if (mode === 'text') {
        io.stdout.write('\n\n');
        if (!response.ended && route !== 'small-talk') {
          io.stdout.write(
            `${renderSources(response.sources)}\n${renderConfidence(response.confidence)}\n`,
          );
        }
      }
      return { ended: response.ended, failure: null };
    }
    if (mode === 'text' && part.type === 'text-delta') io.stdout.write(part.text);
  }
  return { ended: false, failure: null };
}

/** Collects a streamed answer into the one JSON object of `ask --json`. */
async function collectJson(stream: ChatStream): Promise<{
  json: Record<string, unknown>;
  failure: TurnFailure | null;
}> {
  let route: string | null = null;
  for await (const part of stream) {
    if (part.type === 'route') route = part.route;
    if (part.type === 'error') return { json: { error: part.error }, failure: part.error };
    if (part.type === 'done') return { json: answerJson(part.response, route), failure: null };
  }
  const failure = { code: 'internal_error', message: 'the answer stream ended early' };
  return { json: { error: failure }, failure };
}

function changesJson(opened: OpenedIndex): Record<string, unknown> {
  return {
    dir: opened.dir,
    documents: opened.documents,
    added: opened.changes.added,
    changed: opened.changes.changed,
    removed: opened.changes.removed,
    unchanged: opened.changes.unchanged,
    skipped: opened.skipped.map(({ path, reason }) => ({ path, reason })),
  };
}

/** The exit code for an error thrown by a command. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError || ConfigError.isInstance(error)) return EXIT.usage;
  if (error instanceof NoDocumentsError) return EXIT.noDocuments;
  return EXIT.error;
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const parsed = parseCommandLine(argv);
  const env = io.env ?? {};
  switch (parsed.command) {
    case 'help':
      io.stdout.write(`${USAGE[parsed.topic ?? 'main']}\n`);
      return EXIT.ok;
    case 'version':
      io.stdout.write(`${await packageVersion()}\n`);
      return EXIT.ok;
    case 'index': {
      const opened = await openIndex(io, { ...parsed, indexOnly: true });
      if (parsed.json) io.stdout.write(`${JSON.stringify(changesJson(opened))}\n`);
      else io.stdout.write(`${describeChanges(opened.changes)} in ${opened.dir}\n`);
      return EXIT.ok;
    }
    case 'ask': {
      const opened = await openIndex(io, parsed);
      const stream = opened.engine.stream({
        message: parsed.question,
        mode: 'query',
        ...(parsed.topK === undefined ? {} : { topK: parsed.topK }),
      });
      if (parsed.json && !parsed.stream) {
        const { json, failure } = await collectJson(stream);
        io.stdout.write(`${JSON.stringify({ ...json, index: changesJson(opened) })}\n`);
        if (failure) io.stderr.write(`Error (${failure.code}): ${failure.message}\n`);
        return failure ? EXIT.error : EXIT.ok;
      }
      const printed = await printStream(stream, io, parsed.json ? 'json-lines' : 'text');
      return printed.failure ? EXIT.error : EXIT.ok;
    }
    case 'chat': {
      const opened = await openIndex(io, { ...parsed, persist: true });
      const { engine } = opened;
      if (parsed.session && !opened.persisted) throw sqliteMissing();
      const session = parsed.session
        ? await engine.getSession({ sessionId: parsed.session, userId: CLI_USER })
        : await engine.createSession({
            userId: CLI_USER,
            metadata: { paths: parsed.paths.map((path) => resolve(path)).join('\n') },
          });
      if (parsed.session) {
        if (session.status !== 'active') {
          throw new CortexisError(
            'validation_error',
            `session ${session.id} is ${session.status}; start a new one without --session`,
          );
        }
        const total = (await engine.history({ sessionId: session.id, userId: CLI_USER, limit: 1 }))
          .total;
        const last = await engine.history({
          sessionId: session.id,
          userId: CLI_USER,
          limit: 4,
          offset: Math.max(0, total - 4),
        });
        io.stderr.write(`Resumed session ${session.id} (${total} messages)\n`);
        for (const message of parsed.json ? [] : last.messages) {
          if (message.role === 'user' || message.role === 'assistant') {
            io.stdout.write(`${message.role === 'user' ? '> ' : ''}${message.content}\n`);
          }
        }
      } else {
        io.stderr.write(`Session: ${session.id} (resume with --session ${session.id})\n`);
      }
      return runRepl({
        io,
        historyFile: join(cacheRoot(env), 'history'),
        json: parsed.json,
        ask: (message, signal) =>
          printStream(
            engine.stream({
              sessionId: session.id,
              userId: CLI_USER,
              message,
              signal,
              ...(parsed.topK === undefined ? {} : { topK: parsed.topK }),
            }),
            io,
            parsed.json ? 'json-lines' : 'text',
          ),
      });
    }
    case 'sessions': {
      const stores = await openSessionDatabase(cacheRoot(env), { ...io, stderr: nullStream });
      if (!stores) throw sqliteMissing();
      const page = await stores.sessionStore.listSessions({
        userId: CLI_USER,
        limit: parsed.limit,
      });
      const sessions = page.sessions;
      if (parsed.json) {
        io.stdout.write(`${JSON.stringify(sessions)}\n`);
      } else if (sessions.length === 0) {
        io.stdout.write('No sessions yet: start one with cortexis chat <path...>\n');
      } else {
        for (const session of sessions) {
          const paths =
            typeof session.metadata['paths'] === 'string' ? session.metadata['paths'] : '';
          io.stdout.write(
            `${session.id}  ${session.status.padEnd(8)}  ${session.updatedAt}  ${String(session.stats.messageCount).padStart(4)} messages  ${paths.replace(/\n/g, ', ')}\n`,
          );
        }
      }
      return EXIT.ok;
    }
  }
}

function sqliteMissing(): ConfigError {
  return new ConfigError('Sessions are kept only when better-sqlite3 is installed', [
    { path: 'sessions', message: 'install better-sqlite3 to keep chat sessions' },
  ]);
}

const nullStream = {
  write: () => true,
} as unknown as NodeJS.WritableStream;

/** Runs the CLI with `argv` (without node and script); resolves with the exit code. */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError) {
      const help = error.command ? `cortexis ${error.command} --help` : 'cortexis --help';
      io.stderr.write(`cortexis: ${message}\nRun '${help}' for usage.\n`);
    } else {
      io.stderr.write(`Error: ${message}\n`);
    }
    return exitCodeOf(error);
  }
}

const isEntry =
  typeof process !== 'undefined' &&
  process.argv[1] !== undefined &&
  /(?:^|[\\/])(?:cli\.js|main\.ts|cortexis)$/.test(process.argv[1]);
if (isEntry) {
  const io: CliIO = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    onInterrupt: (handler) => {
      process.on('SIGINT', handler);
      return () => process.off('SIGINT', handler);
    },
  };
  main(process.argv.slice(2), io).then((code) => {
    process.exitCode = code;
  });
}
