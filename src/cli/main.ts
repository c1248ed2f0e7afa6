/**
 * The `cortexis` command: `index`, `ask`, `chat` and `sessions` (see `cortexis --help` and
 * docs/cli.md). Reads documents from files and folders, keeps an incremental index and the
 * chat sessions in the cache folder, and answers with sources and confidence.
 *
 * This file runs the commands; the parts live next to it: `args.ts` (the command line),
 * `open-index.ts` (documents, index and session database), `choose-provider.ts` (which model
 * answers), `print-answer.ts`, `repl.ts` (the chat loop), `io.ts` (streams and environment).
 */
import { join, resolve } from 'node:path';
import { ConfigError, CortexisError } from '../errors/index.js';
import { EXIT, parseCommandLine, USAGE, UsageError } from './args.js';
import { describeChanges } from './incremental.js';
import { NoDocumentsError, type CliIO } from './io.js';
import { packageVersion } from './package-version.js';
import type { OpenedIndex } from './open-index.js';

// The commands' modules load when a command needs them, not for `--help` or `--version`
// (the build splits them into chunks of their own: see tsup.config.ts).
const openIndexModule = () => import('./open-index.js');
const printAnswerModule = () => import('./print-answer.js');

/** The user who owns the CLI's sessions. */
const CLI_USER = 'cli';

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

/**
 * Skip codes of a file that should have been indexed and was not (the exit code of `index`
 * says "partial"); the others are expected (an unsupported type in a folder, an empty file, a
 * duplicate, a symlink leaving the folder).
 */
const BAD_FILE: ReadonlySet<string> = new Set([
  'not-found',
  'unreadable',
  'binary',
  'too-large',
  'parse-error',
  'missing-dependency',
  'special',
  'invalid',
  'timeout',
]);

/** The exit code of a command that opened the index: 1 when it could not be saved. */
function afterIndex(opened: OpenedIndex, code: number): number {
  return opened.saveError !== undefined && code === EXIT.ok ? EXIT.error : code;
}

/** The exit code for an error thrown by a command. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError || ConfigError.isInstance(error)) return EXIT.usage;
  if (error instanceof NoDocumentsError) return EXIT.noDocuments;
  return EXIT.error;
}

async function run(argv: readonly string[], io: CliIO): Promise<number> {
  if (argv[0] === 'mcp') return (await import('./mcp.js')).runMcp(argv.slice(1), io);
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
      const { openIndex } = await openIndexModule();
      const opened = await openIndex(io, { ...parsed, indexOnly: true });
      if (parsed.json) io.stdout.write(`${JSON.stringify(changesJson(opened))}\n`);
      else io.stdout.write(`${describeChanges(opened.changes)} in ${opened.dir}\n`);
      if (opened.saveError !== undefined) return EXIT.error;
      return opened.skipped.some((file) => BAD_FILE.has(file.code)) ? EXIT.partial : EXIT.ok;
    }
    case 'ask': {
      const [{ openIndex }, { collectJson, printStream }] = await Promise.all([
        openIndexModule(),
        printAnswerModule(),
      ]);
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
        return afterIndex(opened, failure ? EXIT.error : EXIT.ok);
      }
      const printed = await printStream(stream, io, parsed.json ? 'json-lines' : 'text');
      return afterIndex(opened, printed.failure ? EXIT.error : EXIT.ok);
    }
    case 'chat': {
      const [{ cacheRoot, openIndex }, { printStream }, { runRepl }] = await Promise.all([
        openIndexModule(),
        printAnswerModule(),
        import('./repl.js'),
      ]);
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
      const { cacheRoot, openSessionDatabase } = await openIndexModule();
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
