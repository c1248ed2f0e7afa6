/**
 * The `cortexis` command: `cortexis ask <path…> "question"` and `cortexis chat <path…>`.
 * Ingests .md, .txt and .html files, then answers from them with sources and confidence.
 */
import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import { createChatEngine, type ChatEngine } from '../engine.js';
import { CortexisError } from '../errors/index.js';
import type { ChatStream } from '../stream.js';
import { findFiles, readDocuments, SUPPORTED_EXTENSIONS } from './files.js';
import { progressBar, renderConfidence, renderSources } from './render.js';

const USAGE = `Usage:
  cortexis ask <path...> "<question>"   answer one question from the documents
  cortexis chat <path...>               chat with the documents ('quit' leaves)

Paths are files or folders; ${SUPPORTED_EXTENSIONS.join(', ')} files are read.
Runs offline with the extractive model.`;

/** Where the CLI writes; tests pass their own. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream;
}

async function prepare(paths: readonly string[], io: CliIO): Promise<ChatEngine> {
  const files = await findFiles(paths);
  if (files.length === 0) {
    throw new CortexisError(
      'validation_error',
      `no ${SUPPORTED_EXTENSIONS.join('/')} files found in ${paths.join(', ')}`,
    );
  }
  const docs = await readDocuments(files, resolve(paths.length === 1 ? paths[0]! : '.'));
  const engine = createChatEngine();
  io.stderr.write(
    `Model: ${engine.config.llm ? 'custom' : 'extractive (offline, no API key needed)'}\n`,
  );
  const result = await engine.ingest(docs, {
    onProgress: (progress) =>
      io.stderr.write(`\rIndexing ${progressBar(progress.documentsDone, progress.documentsTotal)}`),
  });
  io.stderr.write(
    `\nIndexed ${result.documents} documents (${result.chunks} chunks) in ${Math.round(result.durationMs)} ms\n\n`,
  );
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
  const [command, ...rest] = argv;
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
      const engine = await prepare(rest.slice(0, -1), io);
      await printStream(engine.stream({ message: question, mode: 'query' }), io);
      return 0;
    }
    if (command === 'chat') {
      if (rest.length < 1) {
        io.stderr.write(`cortexis chat needs at least one path.\n\n${USAGE}\n`);
        return 1;
      }
      const engine = await prepare(rest, io);
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
  main(process.argv.slice(2), process).then((code) => {
    process.exitCode = code;
  });
}
