import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from './cli-command.js';

const root = join(import.meta.dirname, '../..');
let cacheDir = '';

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'cortexis-cli-cache-'));
});

type Env = Record<string, string>;

/** Starts the CLI (bundled from the sources for this run) as `cortexis <args>`. */
function start(args: string[], env: Env = {}): ChildProcessWithoutNullStreams {
  return spawnCli(args, { CORTEXIS_CACHE_DIR: cacheDir, ...env });
}

/** Runs the CLI, feeding `input` on stdin; resolves with its exit code and output. */
function cli(
  args: string[],
  input = '',
  env: Env = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = start(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** The scores of the `Sources:` block of a text answer, in printed order. */
function printedScores(stdout: string): number[] {
  return [...stdout.matchAll(/^ {2}\[S\d+\] .+ score (\d\.\d\d)$/gm)].map((m) => Number(m[1]));
}

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cortexis-cli-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const FAQ = {
  'faq.md': '# FAQ\n\nSupport answers within one business day.\n',
  'shipping.md': '# Shipping\n\nParcels ship from Rotterdam every weekday.\n',
};

/** A loopback OpenAI-compatible server; `handler` decides each response. */
async function modelServer(
  handler: (respond: (status: number, body: unknown) => void) => void,
): Promise<{ url: string; server: Server; requests: () => number; models: string[] }> {
  let count = 0;
  const models: string[] = [];
  const server = createServer((request, response) => {
    count += 1;
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const model = /"model"\s*:\s*"([^"]*)"/.exec(body)?.[1];
      if (model !== undefined) models.push(model);
    });
    handler((status, body) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, server, requests: () => count, models };
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

// Each test spawns the CLI (bundled once per run) up to nine times, a second or more a spawn on a
// loaded 2-core machine (17.8 s idle and over 30 s in CI for the loaders' test): the limit
// allows for the number of spawns, not for a wall-clock budget of vitest's default 30 s.
const SPAWNS = { timeout: 180_000 };

describe('cortexis CLI', SPAWNS, () => {
  it('ask: answers from the bundled docs offline with sources and confidence', async () => {
    const { code, stdout, stderr } = await cli([
      'ask',
      'docs',
      '--no-cache',
      '--progress',
      'What does guard mode do?',
    ]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/Model: extractive/);
    expect(stderr).toMatch(/Indexing \[#+\] 100%/);
    expect(stdout).toMatch(/\[source: S\d\]/);
    expect(stdout).toMatch(/Sources:\n {2}\[S\d+\] .+ score \d\.\d\d/);
    expect(stdout).toMatch(/Confidence: (low|medium|high) \d\.\d\d/);
    // docs/.cortexisignore leaves the benchmark log and the seed map out of the README's answer.
    expect(stdout).not.toMatch(/\((benchmarks|seeds)\.md\)/);
  });

  it('lists the sources in label order, each by its section with a snippet', async () => {
    // Questions over the docs whose sources the engine labels out of score order: printed by
    // score, the labels would read S1, S3, S2…
    for (const question of ['How does compaction work?', 'How to use redis?']) {
      const { code, stdout } = await cli(['ask', 'docs', question]);
      expect(code).toBe(0);
      const scores = printedScores(stdout);
      expect(scores.length).toBeGreaterThan(1);
      const labels = [...stdout.matchAll(/^ {2}\[(S\d+)\] /gm)].map((m) => m[1]);
      expect(labels).toEqual(labels.map((_, index) => `S${index + 1}`));
      // each source line is followed by its snippet, indented under it
      expect(stdout).toMatch(/^ {2}\[S1\] .+ score \d\.\d\d\n {7}\S/m);
    }
  });

  it('chat: answers each question and leaves on quit', async () => {
    const dir = await folder({ 'faq.md': FAQ['faq.md'] });
    await writeFile(
      join(dir, 'page.html'),
      '<html><body><h1>Shipping</h1><p>Parcels ship from Rotterdam.</p></body></html>',
    );
    const { code, stdout, stderr } = await cli(
      ['chat', dir],
      'How fast does support answer?\nWhere do parcels ship from?\nquit\nnever read\n',
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/one business day \[source: S\d\]/);
    expect(stdout).toMatch(/Rotterdam \[source: S\d\]/);
    expect(stdout).toMatch(/Session ended/);
    // The conversation is kept in a SQLite file: two questions and two answers.
    const path = /Sessions: (.+sessions\.db)/.exec(stderr)?.[1];
    expect(path).toBeDefined();
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path!, { readonly: true });
    const rows = db.prepare('select role from messages order by created_at').all() as {
      role: string;
    }[];
    db.close();
    expect(rows.map((row) => row.role).slice(-4)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('has --help on every command and --version', async () => {
    for (const command of ['ask', 'chat', 'index', 'sessions']) {
      const help = await cli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: cortexis ${command}`));
    }
    const main = await cli(['--help']);
    expect(main.code).toBe(0);
    expect(main.stdout).toMatch(/Exit codes: 0 ok, 1 runtime error/);
    const version = await cli(['--version']);
    expect(version.code).toBe(0);
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(version.stdout).toBe(`${pkg.version}\n`);
  });

  it('rejects unknown flags and bad arguments with exit code 2, no documents with 3', async () => {
    const dir = await folder(FAQ);
    const flag = await cli(['ask', dir, '--jsn', 'How fast does support answer?']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/Unknown option '--jsn'/);
    expect(flag.stderr).toMatch(/cortexis ask --help/);
    expect(flag.stderr).not.toMatch(/ENOENT/);
    const missing = await cli(['ask', 'docs']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/needs at least one path and a question/);
    const unknown = await cli(['serve']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown command 'serve'/);
    const topK = await cli(['ask', dir, '--top-k', 'many', 'q?']);
    expect(topK.code).toBe(2);
    expect(topK.stderr).toMatch(/--top-k must be a whole number/);
    const noKey = await cli(['ask', dir, '--provider', 'openai', 'q?']);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/needs an API key: set OPENAI_API_KEY/);
    const model = await cli(['ask', dir, '--model', 'gpt-x', 'q?']);
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/--model needs a provider/);
    const empty = await cli(['ask', join(root, 'src/ports'), 'anything?']);
    expect(empty.code).toBe(3);
    expect(empty.stderr).toMatch(/no documents found in .*src\/ports/);
    expect(empty.stderr).toMatch(/Skipped .*\.ts: unsupported file type/);
  });

  it('--json prints one object with answer, sources in label order, confidence and grounding', async () => {
    const dir = await folder(FAQ);
    const { code, stdout } = await cli(['ask', dir, '--json', 'How fast does support answer?']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as {
      answer: string;
      sources: { id: string; documentId: string; score: number }[];
      confidence: { level: string; overall: number };
      grounding: unknown;
      route: string;
    };
    expect(result.answer).toMatch(/one business day \[source: S\d\]/);
    expect(result.sources[0]?.documentId).toBe('faq.md');
    expect(result.sources.map((source) => source.id)).toEqual(
      result.sources.map((_, index) => `S${index + 1}`),
    );
    expect(result.confidence.level).toMatch(/low|medium|high/);
    expect(result).toHaveProperty('grounding');
    expect(result.route).not.toBe('small-talk');
    const one = await cli(['ask', dir, '--json', '--top-k', '1', 'Where do parcels ship from?']);
    expect(JSON.parse(one.stdout).sources).toHaveLength(1);
  });

  it('--json --stream prints the stream parts as JSON lines', async () => {
    const dir = await folder(FAQ);
    const { code, stdout } = await cli([
      'ask',
      dir,
      '--json',
      '--stream',
      'Where do parcels ship from?',
    ]);
    expect(code).toBe(0);
    const parts = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    const types = parts.map((part) => part.type);
    expect(types[0]).toBe('route');
    expect(types.indexOf('sources')).toBeLessThan(types.indexOf('text-delta'));
    expect(types.at(-1)).toBe('done');
  });

  it('index builds the index once; ask reuses it; a later index re-ingests only what changed', async () => {
    const dir = await folder({ ...FAQ, 'returns.md': '# Returns\n\nReturns within 30 days.\n' });
    const env = { CORTEXIS_CACHE_DIR: await mkdtemp(join(tmpdir(), 'cortexis-cli-index-')) };
    const built = await cli(['index', dir, '--json'], '', env);
    expect(built.code).toBe(0);
    expect(JSON.parse(built.stdout)).toMatchObject({
      added: ['faq.md', 'returns.md', 'shipping.md'],
      changed: [],
      removed: [],
      unchanged: 0,
    });

    const asked = await cli(['ask', dir, '--json', 'How fast does support answer?'], '', env);
    expect(asked.code).toBe(0);
    expect(asked.stderr).not.toMatch(/Indexed/);
    expect(asked.stderr).toMatch(/Loaded the index of 3 unchanged documents/);
    const answer = JSON.parse(asked.stdout);
    expect(answer.index).toMatchObject({ added: [], changed: [], removed: [], unchanged: 3 });
    expect(answer.answer).toMatch(/one business day/);

    await writeFile(join(dir, 'faq.md'), '# FAQ\n\nSupport answers within two hours.\n');
    await rm(join(dir, 'returns.md'));
    const updated = await cli(['index', dir, '--json'], '', env);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      added: [],
      changed: ['faq.md'],
      removed: ['returns.md'],
      unchanged: 1,
    });
    expect(updated.stderr).toMatch(/Indexed 1 document \(/);

    const after = await cli(['ask', dir, 'How fast does support answer?'], '', env);
    expect(after.stdout).toMatch(/two hours/);
    const gone = await cli(['ask', dir, '--json', 'How long do I have for returns?'], '', env);
    expect(
      JSON.parse(gone.stdout).sources.map((source: { documentId: string }) => source.documentId),
    ).not.toContain('returns.md');
    const forced = await cli(['index', dir, '--no-cache'], '', env);
    expect(forced.stderr).toMatch(/Indexed 2 documents/);
  });

  it('builds the index again when its files are damaged', async () => {
    const dir = await folder(FAQ);
    const env = { CORTEXIS_CACHE_DIR: await mkdtemp(join(tmpdir(), 'cortexis-cli-damaged-')) };
    const built = JSON.parse((await cli(['index', dir, '--json'], '', env)).stdout) as {
      dir: string;
    };
    const path = join(built.dir, 'vectors.bin');
    const bytes = await readFile(path);
    bytes[bytes.length - 1]! ^= 0xff;
    await writeFile(path, bytes);
    const asked = await cli(['ask', dir, 'How fast does support answer?'], '', env);
    expect(asked.code).toBe(0);
    expect(asked.stderr).toMatch(/Indexed 2 documents/);
    expect(asked.stdout).toMatch(/one business day/);
  });

  it('reports every skipped file with its reason', async () => {
    const dir = await folder({ ...FAQ, 'logo.xyz': 'not a document' });
    const { code, stderr, stdout } = await cli(['index', dir, '--json']);
    expect(code).toBe(0);
    expect(stderr).toMatch(/Skipped .*logo\.xyz: unsupported file type/);
    expect(JSON.parse(stdout).skipped).toEqual([
      { path: join(dir, 'logo.xyz'), reason: expect.stringMatching(/unsupported/) },
    ]);
  });

  it('prints no sources or confidence line after small talk', async () => {
    const dir = await folder(FAQ);
    const { code, stdout } = await cli(['ask', dir, 'hi']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Hello!/);
    expect(stdout).not.toMatch(/Confidence:/);
    expect(stdout).not.toMatch(/Sources:/);
  });

  it('exits 1 when the model call fails', async () => {
    const model = await modelServer((respond) =>
      respond(500, { error: { message: 'upstream is down' } }),
    );
    servers.push(model.server);
    const dir = await folder(FAQ);
    const env = { OPENAI_BASE_URL: model.url, OPENAI_MODEL: 'test-model' };
    const text = await cli(['ask', dir, 'How fast does support answer?'], '', env);
    expect(model.requests()).toBeGreaterThan(0);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/Error \(provider_error\).*upstream is down/);
    const json = await cli(['ask', dir, '--json', 'How fast does support answer?'], '', env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error.code).toBe('provider_error');
    expect(new Set(model.models)).toEqual(new Set(['test-model']));
  });

  it('--provider and --model choose the model over the environment', async () => {
    const model = await modelServer((respond) => respond(500, { error: { message: 'down' } }));
    servers.push(model.server);
    const dir = await folder(FAQ);
    const env = { OPENAI_BASE_URL: model.url, OPENAI_MODEL: 'env-model' };
    const picked = await cli(
      [
        'ask',
        dir,
        '--provider',
        'openai',
        '--model',
        'flag-model',
        'How fast does support answer?',
      ],
      '',
      env,
    );
    expect(picked.stderr).toMatch(/Model: openai flag-model/);
    expect(new Set(model.models)).toEqual(new Set(['flag-model']));
    const offline = await cli(
      ['ask', dir, '--provider', 'extractive', 'How fast does support answer?'],
      '',
      env,
    );
    expect(offline.code).toBe(0);
    expect(offline.stderr).toMatch(/Model: extractive/);
    expect(new Set(model.models)).toEqual(new Set(['flag-model']));
  });

  it('lists sessions and resumes one with --session', async () => {
    const dir = await folder(FAQ);
    const env = { CORTEXIS_CACHE_DIR: await mkdtemp(join(tmpdir(), 'cortexis-cli-sessions-')) };
    const first = await cli(['chat', dir, '--json'], 'How fast does support answer?\n', env);
    expect(first.code).toBe(0);
    // chat --json: every line of stdout is a stream part.
    const parts = first.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(parts.at(-1)?.type).toBe('done');
    const id = /Session: (\S+)/.exec(first.stderr)?.[1];
    expect(id).toBeDefined();

    const listed = await cli(['sessions', '--json'], '', env);
    expect(listed.code).toBe(0);
    const sessions = JSON.parse(listed.stdout) as {
      id: string;
      status: string;
      stats: { messageCount: number };
    }[];
    expect(sessions.map((session) => session.id)).toEqual([id]);
    expect(sessions[0]?.stats.messageCount).toBe(2);
    const table = await cli(['sessions'], '', env);
    expect(table.stdout).toContain(id!);

    const resumed = await cli(
      ['chat', dir, '--session', id!],
      'Where do parcels ship from?\nquit\n',
      env,
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`Resumed session ${id} \\(2 messages\\)`));
    expect(resumed.stdout).toMatch(/> How fast does support answer\?/);
    expect(resumed.stdout).toMatch(/Rotterdam/);
    const after = JSON.parse((await cli(['sessions', '--json'], '', env)).stdout);
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id, status: 'ended' });
    expect(after[0].stats.messageCount).toBe(4);

    const ended = await cli(['chat', dir, '--session', id!], '', env);
    expect(ended.code).toBe(1);
    expect(ended.stderr).toMatch(/is ended; start a new one/);
    const unknown = await cli(['chat', dir, '--session', '01ARZ3NDEKTSV4RRFFQ69G5FAV'], '', env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Error: /);
  });

  it('chat: Ctrl-C cancels the running answer, twice on an empty line leaves; keeps a bounded history', async () => {
    // Never answers: the turn runs until it is cancelled.
    const model = await modelServer(() => undefined);
    servers.push(model.server);
    const dir = await folder(FAQ);
    const env = {
      OPENAI_BASE_URL: model.url,
      OPENAI_MODEL: 'test-model',
      CORTEXIS_CACHE_DIR: await mkdtemp(join(tmpdir(), 'cortexis-cli-repl-')),
    };
    // A history file past twice the kept size is cut to the newest 500 questions.
    const old = Array.from({ length: 1200 }, (_, index) => `question ${index}`);
    await writeFile(join(env.CORTEXIS_CACHE_DIR, 'history'), `${old.join('\n')}\n`);
    const child = start(['chat', dir], env);
    let stdout = '';
    let stderr = '';
    const waitFor = (pattern: RegExp, stream: () => string): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (pattern.test(stream())) {
            child.stdout.off('data', check);
            child.stderr.off('data', check);
            resolve();
          }
        };
        child.stdout.on('data', check);
        child.stderr.on('data', check);
        check();
      });
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );

    await waitFor(/> $/, () => stdout);
    child.stdin.write('How fast does support answer?\n');
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (model.requests() > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    child.kill('SIGINT');
    await waitFor(/\(cancelled\)/, () => stderr);
    await waitFor(/> $/, () => stdout);
    child.kill('SIGINT');
    await waitFor(/To leave, press Ctrl-C again/, () => stderr);
    child.kill('SIGINT');
    const { code, signal } = await exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
    const history = (await readFile(join(env.CORTEXIS_CACHE_DIR, 'history'), 'utf8')).split('\n');
    expect(history.slice(0, 2)).toEqual(['question 700', 'question 701']);
    expect(history.slice(-3)).toEqual(['question 1199', 'How fast does support answer?', '']);
    expect(history).toHaveLength(502);
  });
});

describe('cortexis index + ask over one file of each kind', SPAWNS, () => {
  const fixtures = join(root, 'test/fixtures/loaders');
  const fields = ['--text-field', 'answer', '--title-field', 'question'];

  it('indexes the folder once, then answers from each file, citing the PDF page', async () => {
    const indexed = await cli(['index', fixtures, ...fields, '--json']);
    // 4: partial (the fixtures hold a binary fake.txt and bad JSONL lines).
    expect(indexed.code).toBe(4);
    const summary = JSON.parse(indexed.stdout) as { added: string[]; skipped: unknown[] };
    expect(summary.added).toEqual([
      'faq-1',
      'faq-2',
      'notes.txt',
      'retention.pdf',
      'shop.html',
      'warranty.docx',
      'warranty.md',
    ]);
    expect(summary.skipped).toHaveLength(4); // fake.txt, two bad JSONL lines, logo.png
    const questions: [string, string][] = [
      ['Is water damage covered by the warranty?', 'warranty.md'],
      ['Within how many days can items be returned?', 'shop.html'],
      ['How long are invoices kept in the archive?', 'retention.pdf'],
      ['What do warranty claims need besides the serial number?', 'warranty.docx'],
      ['When is the store open?', 'notes.txt'],
      ['How long does shipping take?', 'faq-1'],
    ];
    for (const [question, documentId] of questions) {
      const asked = await cli(['ask', fixtures, question, ...fields, '--json']);
      expect(asked.code, question).toBe(0);
      // The index was built once: `ask` reuses it.
      expect(asked.stderr).toMatch(/7 unchanged documents/);
      const reply = JSON.parse(asked.stdout) as {
        answer: string;
        sources: { documentId: string; metadata: Record<string, unknown> }[];
      };
      expect(reply.sources[0]?.documentId, question).toBe(documentId);
      expect(reply.answer, question).toMatch(/\[source: S1\]/);
    }
    const pdf = await cli([
      'ask',
      fixtures,
      'How long are invoices kept in the archive?',
      ...fields,
    ]);
    expect(pdf.stdout).toMatch(/\[S1\] Data retention policy \(retention\.pdf, p\. 1\)/);
  });

  it('refuses an empty --text-field with a usage error (exit 2)', async () => {
    const result = await cli(['index', fixtures, '--text-field', ' ']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--text-field must name a field/);
  });
});
