import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');

/** Runs an example as a user would, with tsx resolving `cortexis` to the sources. */
async function example(name: string): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', join(root, 'examples', name)],
    {
      cwd: root,
      timeout: 60_000,
    },
  );
  return stdout;
}

describe('examples run', () => {
  it('quickstart answers with a citation and streams the follow-up', async () => {
    const out = await example('quickstart.ts');
    expect(out).toMatch(/14 days.*\[source: S1\]/);
    expect(out).toMatch(/Gift cards are never refunded/);
  });

  it('custom-vector-store answers through the custom store', async () => {
    const out = await example('custom-vector-store.ts');
    expect(out).toMatch(/one business day \[source: S1\]/);
  });

  it('langchain-retriever feeds whole chunks from LangChain documents to a prompt', async () => {
    const out = await example('langchain-retriever.ts');
    expect(out).toMatch(/^Depot manual manuals\/depot\.md 1$/m);
    expect(out).toMatch(/\[S1\] The Harbor Street depot.*closes at 17:30 on Fridays\./);
  });

  it('mcp-server answers the SDK client: tools, search, ask and resources', async () => {
    const out = await example('mcp-server.ts');
    expect(out).toMatch(/^tools: search, ask$/m);
    expect(out).toMatch(/^search: \[S1\] Refunds \(score \d\.\d\d\)$/m);
    expect(out).toMatch(
      /^ask: International shipping takes up to 10 business days \[source: S1\]\.$/m,
    );
    expect(out).toMatch(
      /^resources: cortexis:\/\/document\/refunds, cortexis:\/\/document\/shipping$/m,
    );
  });

  it('http-server serves the web chat page and the API, then stops on SIGTERM', async () => {
    // A server does not exit by itself: start it on a free port, read the URL it prints.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'examples', 'http-server.ts')],
      { cwd: root, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          const found = /http:\/\/\S+\//.exec(out);
          if (found) resolve(found[0]);
        });
        child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('web chat demo');
      const conversations = await fetch(new URL('/api/conversations', url), {
        headers: { 'x-demo-user': 'demo' },
      });
      expect(await conversations.json()).toEqual({ sessions: [], nextCursor: null });
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
      }
    }
  });
});
