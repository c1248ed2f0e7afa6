/**
 * Command-line parsing for the `cortexis` command (Node only): one `node:util` `parseArgs`
 * spec per command, strict (unknown flags are a `UsageError`), with the usage text of each.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { nearest } from './suggest.js';

/** Exit codes of the `cortexis` command (documented in docs/cli.md). */
export const EXIT = {
  /** Success. */
  ok: 0,
  /** A runtime error: a failed model call, an unreadable file, a broken index. */
  error: 1,
  /** A usage or configuration error: unknown command or flag, bad value, missing API key. */
  usage: 2,
  /** No documents were found in the given paths. */
  noDocuments: 3,
  /** `index` indexed the good files but skipped or refused others (listed on stderr). */
  partial: 4,
} as const;

/** A bad command line; the CLI prints the message with the command's usage and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    /** The command whose usage to print, when known. */
    readonly command?: CommandName,
  ) {
    super(message);
  }
}

/** The model providers `--provider` accepts. */
export const PROVIDERS = ['openai', 'anthropic', 'ollama', 'extractive'] as const;
/** A model provider `--provider` accepts. */
export type ProviderName = (typeof PROVIDERS)[number];

/** The commands. */
export const COMMANDS = ['ask', 'chat', 'index', 'sessions'] as const;
/** A command. */
export type CommandName = (typeof COMMANDS)[number];

/** Options shared by the commands that read documents and answer. */
export interface CommonOptions {
  /** Print JSON (one object, or JSON lines when streaming) instead of text. */
  readonly json: boolean;
  /** Rebuild the index from scratch instead of updating it. */
  readonly noCache: boolean;
  /** Print indexing progress to stderr even when it is not a terminal. */
  readonly progress: boolean;
  /** JSON/JSONL records: the field holding the text (default `text`). */
  readonly textField?: string | undefined;
  /** JSON/JSONL records: the field holding the title (default `title`). */
  readonly titleField?: string | undefined;
  /** Patterns left out of the folders walked (`--ignore`, repeatable), besides `.cortexisignore`. */
  readonly ignore?: string[] | undefined;
}

/** A parsed command line. */
export type ParsedCommand =
  | { readonly command: 'help'; readonly topic?: CommandName | undefined }
  | { readonly command: 'version' }
  | ({
      readonly command: 'ask';
      readonly paths: string[];
      readonly question: string;
      readonly stream: boolean;
      readonly topK?: number | undefined;
      readonly provider?: ProviderName | undefined;
      readonly model?: string | undefined;
    } & CommonOptions)
  | ({
      readonly command: 'chat';
      readonly paths: string[];
      readonly session?: string | undefined;
      readonly topK?: number | undefined;
      readonly provider?: ProviderName | undefined;
      readonly model?: string | undefined;
    } & CommonOptions)
  | ({ readonly command: 'index'; readonly paths: string[] } & CommonOptions)
  | { readonly command: 'sessions'; readonly json: boolean; readonly limit: number };

const MODEL_FLAGS = `  --provider <name>  openai | anthropic | ollama | extractive (default: from the environment)
  --model <id>       the provider's model (default: its *_MODEL variable, else the provider's)
  --top-k <n>        number of sources per answer (1-50)`;

const INDEX_FLAGS = `  --no-cache         rebuild the index from scratch instead of updating it
  --progress         show indexing progress on stderr even when it is not a terminal
  --text-field <f>   JSON/JSONL records: the field holding the text (default: text)
  --title-field <f>  JSON/JSONL records: the field holding the title (default: title)
  --ignore <pattern> leave out matching files and folders (repeatable; also read from a
                     folder's .cortexisignore)`;

const KEYS_NOTE = `Keys come from the environment: OPENAI_API_KEY (OPENAI_BASE_URL), ANTHROPIC_API_KEY
(ANTHROPIC_BASE_URL), OLLAMA_HOST. With none set, the offline extractive model answers.`;

/** The usage text of each command, and of the command itself. */
export const USAGE: Readonly<Record<CommandName | 'main', string>> = {
  main: `Usage: cortexis <command> [options]

Commands:
  index <path...>              build or update the index of files and folders
  ask <path...> "<question>"   answer one question from the documents
  chat <path...>               chat with the documents (readline, history, Ctrl-C)
  sessions                     list stored chat sessions (resume with chat --session <id>)
  mcp <path...>                serve the documents to an MCP client over stdio (docs/mcp.md)

Options:
  -h, --help       show help (also: cortexis <command> --help)
  -v, --version    print the version

Exit codes: 0 ok, 1 runtime error (e.g. a failed model call), 2 usage or configuration
error, 3 no documents found, 4 partial (index skipped files it should have read). See
docs/cli.md.`,
  ask: `Usage: cortexis ask <path...> "<question>" [options]

Answers one question from the files and folders given (the index is built or updated first).

Options:
  --json             print one JSON object: answer, sources, confidence, grounding, route
  --stream           with --json: print the stream parts as JSON lines
${MODEL_FLAGS}
${INDEX_FLAGS}
  -h, --help         show this help

${KEYS_NOTE}`,
  chat: `Usage: cortexis chat <path...> [options]

Chats with the documents. Type 'quit' to end the session; Ctrl-C cancels a running answer,
Ctrl-C twice on an empty line leaves. Up and Down recall earlier questions (kept across runs).

Options:
  --session <id>     resume a stored session (see 'cortexis sessions')
  --json             print the stream parts of each answer as JSON lines
${MODEL_FLAGS}
${INDEX_FLAGS}
  -h, --help         show this help

${KEYS_NOTE}`,
  index: `Usage: cortexis index <path...> [options]

Builds the index of the files and folders once; later runs re-ingest only documents that
were added or changed and drop removed ones. 'ask' and 'chat' on the same paths reuse it.
The index lives in CORTEXIS_CACHE_DIR (else $XDG_CACHE_HOME/cortexis, else ~/.cache/cortexis).

Options:
  --json             print what changed as one JSON object
${INDEX_FLAGS}
  -h, --help         show this help`,
  sessions: `Usage: cortexis sessions [options]

Lists the stored chat sessions, newest first (needs better-sqlite3).

Options:
  --json             print the sessions as one JSON array
  --limit <n>        how many to list (default 20)
  -h, --help         show this help`,
};

const common = {
  help: { type: 'boolean', short: 'h' },
  json: { type: 'boolean' },
  'no-cache': { type: 'boolean' },
  progress: { type: 'boolean' },
  'text-field': { type: 'string' },
  'title-field': { type: 'string' },
  ignore: { type: 'string', multiple: true },
} as const;

const model = {
  'top-k': { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
} as const;

/** A positive integer in [1, max] from a flag's value; a `UsageError` naming the flag otherwise. */
export function parseCount(value: string, flag: string, command: CommandName, max: number): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(number) || number < 1 || number > max) {
    throw new UsageError(
      `${flag} must be a whole number from 1 to ${max}, got '${value}'`,
      command,
    );
  }
  return number;
}

function parseProvider(value: string | undefined, command: CommandName): ProviderName | undefined {
  if (value === undefined) return undefined;
  if ((PROVIDERS as readonly string[]).includes(value)) return value as ProviderName;
  throw new UsageError(
    `--provider must be one of ${PROVIDERS.join(', ')}, got '${value}'`,
    command,
  );
}

/** What `parseArgs` returns as `values`. */
type FlagValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

/** A record field name from a flag: non-empty, else a `UsageError` naming the flag. */
function fieldName(
  values: FlagValues,
  flag: 'text-field' | 'title-field',
  command: CommandName,
): string | undefined {
  const value = values[flag];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new UsageError(`--${flag} must name a field, got '${String(value)}'`, command);
  }
  return value.trim();
}

/** The `--ignore` patterns, each non-empty, else a `UsageError` naming the flag. */
export function ignorePatterns(
  values: FlagValues,
  command: CommandName | 'mcp',
): string[] | undefined {
  const value = values['ignore'];
  if (value === undefined) return undefined;
  const patterns = (Array.isArray(value) ? value : [value]).map((pattern) =>
    typeof pattern === 'string' ? pattern.trim() : '',
  );
  if (patterns.some((pattern) => pattern === '')) {
    throw new UsageError('--ignore needs a pattern', command === 'mcp' ? undefined : command);
  }
  return patterns;
}

/** The flags every document command shares (`--json`, `--no-cache`, `--progress`, fields). */
function commonValues(values: FlagValues, command: CommandName): CommonOptions {
  const textField = fieldName(values, 'text-field', command);
  const titleField = fieldName(values, 'title-field', command);
  const ignore = ignorePatterns(values, command);
  return {
    json: values['json'] === true,
    noCache: values['no-cache'] === true,
    progress: values['progress'] === true,
    ...(textField === undefined ? {} : { textField }),
    ...(titleField === undefined ? {} : { titleField }),
    ...(ignore === undefined ? {} : { ignore }),
  };
}

/** The model flags of `ask` and `chat` (`--top-k`, `--provider`, `--model`). */
function modelValues(values: FlagValues, command: CommandName) {
  const text = (name: string): string | undefined =>
    typeof values[name] === 'string' ? values[name] : undefined;
  const topK = text('top-k');
  return {
    topK: topK === undefined ? undefined : parseCount(topK, '--top-k', command, 50),
    provider: parseProvider(text('provider'), command),
    model: text('model'),
  };
}

/** The flags of each command (for suggestions), without their dashes. */
const FLAGS: Readonly<Record<CommandName, readonly string[]>> = {
  ask: [...Object.keys(common), ...Object.keys(model), 'stream'],
  chat: [...Object.keys(common), ...Object.keys(model), 'session'],
  index: Object.keys(common),
  sessions: ['help', 'json', 'limit'],
};

/** `Unknown option '--topk'` → the same, with `; did you mean '--top-k'?` when one is close. */
function withSuggestion(message: string, command: CommandName): string {
  const unknown = /^Unknown option '--([^'=]+)/.exec(message)?.[1];
  if (unknown === undefined) return message;
  const match = nearest(unknown, FLAGS[command]);
  return match === undefined ? message : `${message}; did you mean '--${match}'?`;
}

/**
 * `cortexis ask "question" docs/`: the last argument is a file or folder, so the question was
 * not given last. A `UsageError` saying where the question goes (naming the argument that looks
 * like the question, when one does).
 */
function checkQuestionLast(positionals: readonly string[], exists: (path: string) => boolean) {
  const last = positionals[positionals.length - 1]!;
  if (!exists(last)) return;
  const misplaced = positionals
    .slice(0, -1)
    .find((argument) => !exists(argument) && (/\s/.test(argument) || argument.endsWith('?')));
  throw new UsageError(
    misplaced === undefined
      ? `the question goes last, after the paths ('${last}' is a file or folder): cortexis ask <path...> "<question>"`
      : `the question goes last, after the paths: cortexis ask <path...> "${misplaced}"`,
    'ask',
  );
}

/** Runs `parseArgs`, turning its errors (unknown or malformed flags) into `UsageError`s. */
function guard<Result>(command: CommandName, parse: () => Result): Result {
  try {
    return parse();
  } catch (error) {
    // parseArgs throws TypeErrors with codes such as ERR_PARSE_ARGS_UNKNOWN_OPTION.
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      withSuggestion(message.replace(/\. To specify a positional.*$/s, ''), command),
      command,
    );
  }
}

/**
 * Parses `argv` (without node and the script). Throws `UsageError` for an unknown command
 * or flag, a missing argument or a bad value.
 */
export function parseCommandLine(
  argv: readonly string[],
  /** Whether a path exists (tests pass their own). */
  exists: (path: string) => boolean = existsSync,
): ParsedCommand {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') return { command: 'help' };
  if (first === 'help') {
    const topic = rest[0];
    if (topic === undefined) return { command: 'help' };
    if (!(COMMANDS as readonly string[]).includes(topic)) {
      throw new UsageError(`Unknown command '${topic}'`);
    }
    return { command: 'help', topic: topic as CommandName };
  }
  if (first === '--version' || first === '-v') return { command: 'version' };
  if (!(COMMANDS as readonly string[]).includes(first)) {
    const match = first.startsWith('--')
      ? nearest(first.slice(2), ['help', 'version'])
      : first.startsWith('-')
        ? undefined
        : nearest(first, COMMANDS);
    const suggestion =
      match === undefined ? '' : `; did you mean '${first.startsWith('--') ? '--' : ''}${match}'?`;
    throw new UsageError(
      `${first.startsWith('-') ? `Unknown option '${first}'` : `Unknown command '${first}'`}${suggestion}`,
    );
  }
  const command = first as CommandName;
  switch (command) {
    case 'ask': {
      const { values, positionals } = guard(command, () =>
        parseArgs({
          args: [...rest],
          options: {
            ...common,
            ...model,
            stream: { type: 'boolean' },
          },
          allowPositionals: true,
          strict: true,
        }),
      );
      if (values.help) return { command: 'help', topic: command };
      if (positionals.length < 2) {
        throw new UsageError('cortexis ask needs at least one path and a question', command);
      }
      const question = positionals[positionals.length - 1]!;
      if (question.trim().length === 0) throw new UsageError('the question is empty', command);
      checkQuestionLast(positionals, exists);
      return {
        command,
        paths: positionals.slice(0, -1),
        question,
        stream: values.stream === true,
        ...commonValues(values, command),
        ...modelValues(values, command),
      };
    }
    case 'chat': {
      const { values, positionals } = guard(command, () =>
        parseArgs({
          args: [...rest],
          options: {
            ...common,
            ...model,
            session: { type: 'string' },
          },
          allowPositionals: true,
          strict: true,
        }),
      );
      if (values.help) return { command: 'help', topic: command };
      if (positionals.length < 1) {
        throw new UsageError('cortexis chat needs at least one path', command);
      }
      return {
        command,
        paths: positionals,
        session: values.session,
        ...commonValues(values, command),
        ...modelValues(values, command),
      };
    }
    case 'index': {
      const { values, positionals } = guard(command, () =>
        parseArgs({ args: [...rest], options: common, allowPositionals: true, strict: true }),
      );
      if (values.help) return { command: 'help', topic: command };
      if (positionals.length < 1) {
        throw new UsageError('cortexis index needs at least one path', command);
      }
      return {
        command,
        paths: positionals,
        ...commonValues(values, command),
      };
    }
    case 'sessions': {
      const { values, positionals } = guard(command, () =>
        parseArgs({
          args: [...rest],
          options: {
            help: common.help,
            json: common.json,
            limit: { type: 'string' },
          },
          allowPositionals: true,
          strict: true,
        }),
      );
      if (values.help) return { command: 'help', topic: command };
      if (positionals.length > 0) {
        throw new UsageError(`Unexpected argument '${positionals[0]}'`, command);
      }
      return {
        command,
        json: values.json === true,
        limit: values.limit === undefined ? 20 : parseCount(values.limit, '--limit', command, 1000),
      };
    }
  }
}
