/**
 * The `cortexis` command: `cortexis ask <path…> "question"` and `cortexis chat <path…>`.
 * Ingests .md, .txt and .html files, then answers from them with sources and confidence.
 */
import { createInterface } from 'node:readline/promises';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createChatEngine, type ChatEngine } from '../engine.js';
import { ConfigError, CortexisError } from '../errors/index.js';
import type { LearningSink } from '../ports/learning-sink.js';
import type { SessionStore } from '../ports/session-store.js';
import type { ChatStream } from '../stream.js';
import { createHashingEmbedder } from '../adapters/hashing/embedder.js';
import { createMemoryGraphStore } from '../adapters/memory/graph-store.js';
import { createMemoryKeywordIndex } from '../adapters/memory/keyword-index.js';
import { createMemoryVectorStore } from '../adapters/memory/vector-store.js';
import { providerFromEnv } from '../adapters/provider-factory.js';
import { findFiles, readDocuments, SUPPORTED_EXTENSIONS } from './files.js';
import {
  defaultSnapshotDir,
  fingerprintFiles,
  loadSnapshot,
  restoreStores,
  saveSnapshot,
} from './snapshot.js';
import { progressBar, renderConfidence, renderSources } from './render.js';

const USAGE = `Usage:
  cortexis ask <path...> "<question>"   answer one question from the documents
  cortexis chat <path...>               chat with the documents ('quit' leaves)

Options:
  --no-cache   index the files again instead of loading the cached index

Paths are files or folders; ${SUPPORTED_EXTENSIONS.join(', ')} files are read. The index is
cached (CORTEXIS_CACHE_DIR, else ~/.cache/cortexis) and reused while the files are unchanged.
The model: OPENAI_API_KEY (OPENAI_BASE_URL, OPENAI_MODEL), else ANTHROPIC_API_KEY
(ANTHROPIC_MODEL), else OLLAMA_HOST (OLLAMA_MODEL); with none set, the offline extractive model.`;

/** Where the CLI writes; tests pass their own. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
  /** Environment variables (provider keys, cache folder). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

interface PrepareOptions {
  /** Ignore and rewrite the cached index. */
  readonly noCache: boolean;
  /** Keep sessions in a SQLite file (when better-sqlite3 is installed). */
  readonly persist?: boolean;
  /** The environment (provider keys, cache folder). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Opens the SQLite file that keeps chat sessions across runs, when the optional
 * better-sqlite3 is installed; otherwise sessions live in memory.
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

/** Builds the engine for the files under `paths`: restores the cached index when unchanged. */
async function prepare(
  paths: readonly string[],
  io: CliIO,
  options: PrepareOptions,
): Promise<ChatEngine> {
  const files = await findFiles(paths);
  if (files.length === 0) {
    throw new CortexisError(
      'validation_error',
      `no ${SUPPORTED_EXTENSIONS.join('/')} files found in ${paths.join(', ')}`,
    );
  }
  const provider = providerFromEnv(options.env);
  const vectors = createMemoryVectorStore();
  const keywords = createMemoryKeywordIndex();
  const graph = createMemoryGraphStore();
  const embedder = createHashingEmbedder();
  const dir = options.env['CORTEXIS_CACHE_DIR'] || defaultSnapshotDir(paths);
  const sessions = options.persist ? await openSessionDatabase(dir, io) : undefined;
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
  io.stderr.write(
    `Model: ${provider ? provider.description : 'extractive (offline, no API key needed)'}\n`,
  );

  const { chunkSize, chunkOverlap } = engine.config.chunking;
  const fingerprint = await fingerprintFiles(files, {
    embedderId: embedder.id,
    chunkSize,
    chunkOverlap,
    // The keyword index stems its terms; snapshots of an unstemmed index do not match.
    extra: { keywordTokenizer: 'stemmed-v1' },
  });
  const loaded = options.noCache ? null : await loadSnapshot(dir, fingerprint).catch(() => null);
  if (loaded) {
    try {
      restoreStores({ vectors, keywords, graph }, loaded);
      io.stderr.write(`Loaded the index of ${files.length} unchanged files from ${dir}\n\n`);
      return engine;
    } catch {
      // A damaged cache: index again from scratch.
      return prepare(paths, io, { ...options, noCache: true });
    }
  }
  const docs = await readDocuments(files, resolve(paths.length === 1 ? paths[0]! : '.'));
  const result = await engine.ingest(docs, {
    onProgress: (progress) =>
      io.stderr.write(`\rIndexing ${progressBar(progress.documentsDone, progress.documentsTotal)}`),
  });
  io.stderr.write(
    `\nIndexed ${result.documents} documents (${result.chunks} chunks) in ${Math.round(result.durationMs)} ms\n\n`,
  );
  await saveSnapshot(dir, { vectors, keywords, graph }, fingerprint).catch((error: unknown) => {
    io.stderr.write(
      `(could not cache the index: ${error instanceof Error ? error.message : String(error)})\n`,
    );
  });
  return engine;
}

async function printStream(stream: ChatStream, io: CliIO): Promise<boolean> {
  for await (const part of stream) {
    if (part.type === 'text-delta') io.stdout.write(part.text);
    if (part.type === 'done') {
      const { response } = part;
      io.stdout.write('\n\n');
      if (!response.ended) {
        io.stdout.write(
          `${renderSources(response.sources)}\n${renderConfidence(response.confidence)}\n`,
        );
      }
      return response.ended;
    }
    if (part.type === 'error') {
      io.stderr.write(`\nError (${part.error.code}): ${part.error.message}\n`);
    }
  }
  return false;
}

/** Runs the CLI with `argv` (without node and script); resolves with the exit code. */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const noCache = argv.includes('--no-cache');
  const [command, ...rest] = argv.filter((arg) => arg !== '--no-cache');
  const options: PrepareOptions = { noCache, env: io.env ?? {} };
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return command === undefined ? 1 : 0;
  }
  try {
    if (command === 'ask') {
      if (rest.length < 2) {
        io.stderr.write(`cortexis ask needs at least one path and a question.\n\n${USAGE}\n`);
        return 1;
      }
      const question = rest[rest.length - 1]!;
      const engine = await prepare(rest.slice(0, -1), io, options);
      await printStream(engine.stream({ message: question, mode: 'query' }), io);
      return 0;
    }
    if (command === 'chat') {
      if (rest.length < 1) {
        io.stderr.write(`cortexis chat needs at least one path.\n\n${USAGE}\n`);
        return 1;
      }
      const engine = await prepare(rest, io, { ...options, persist: true });
      const session = await engine.createSession({ userId: 'cli' });
      const readline = createInterface({ input: io.stdin, output: io.stdout, terminal: false });
      io.stdout.write("Ask a question ('quit' to leave).\n");
      try {
        io.stdout.write('> ');
        for await (const line of readline) {
          if (line.trim().length > 0) {
            const ended = await printStream(
              engine.stream({ sessionId: session.id, userId: 'cli', message: line }),
              io,
            );
            if (ended) return 0;
          }
          io.stdout.write('> ');
        }
        return 0;
      } finally {
        readline.close();
      }
    }
    io.stderr.write(`Unknown command '${command}'.\n\n${USAGE}\n`);
    return 1;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`Error: ${message}\n`);
    return 1;
  }
}

const isEntry =
  typeof process !== 'undefined' &&
  process.argv[1] !== undefined &&
  /(?:^|[\\/])(?:cli\.js|main\.ts|cortexis)$/.test(process.argv[1]);
if (isEntry) {
  const io = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  };
  main(process.argv.slice(2), io).then((code) => {
    process.exitCode = code;
  });
}
