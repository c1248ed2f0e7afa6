/**
 * The core and `cortexis/http` in a real browser (headless Chromium through playwright-core):
 * bundled for the browser platform (no `node:` import anywhere), loaded into a page, then a
 * chat turn, a streamed follow-up and the HTTP handler's SSE answer run there — and a turn
 * takes a signal made in an iframe, another realm. Skips with the reason when Chromium is
 * missing (.ci/run installs it).
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { bundleForRuntime } from './bundle.js';

const chromiumPath = process.env['CORTEXIS_TEST_CHROMIUM'] || '/usr/bin/chromium';
const reason = existsSync(chromiumPath)
  ? undefined
  : `${chromiumPath} is missing (install chromium, or set CORTEXIS_TEST_CHROMIUM)`;
if (reason) console.warn(`[skipped] browser runtime test: ${reason}`);

const ENTRY = `
import { AbortError, createChatEngine } from 'cortexis';
import { createChatHandler } from 'cortexis/http';

const docs = [
  {
    id: 'refunds',
    title: 'Refund policy',
    text: 'Refunds are issued within 14 days of the request. Gift cards are never refunded.',
  },
];

globalThis.quickstart = async () => {
  const engine = createChatEngine();
  await engine.ingest(docs);
  const session = await engine.createSession({ userId: 'u1' });
  const reply = await engine.chat({ sessionId: session.id, message: 'How fast are refunds?' });
  let streamed = '';
  for await (const part of engine.stream({ sessionId: session.id, message: 'And gift cards?' })) {
    if (part.type === 'text-delta') streamed += part.text;
  }
  return { text: reply.text, source: reply.sources[0] && reply.sources[0].title, streamed };
};

globalThis.serveSSE = async () => {
  const engine = createChatEngine();
  await engine.ingest(docs);
  const handler = createChatHandler(engine, { authenticate: () => ({ id: 'u1' }) });
  const created = await handler(new Request(location.origin + '/conversations', { method: 'POST' }));
  const { id } = await created.json();
  const response = await handler(
    new Request(location.origin + '/conversations/' + id + '/messages', {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'How fast are refunds?' }),
    }),
  );
  return { status: response.status, body: await response.text() };
};

globalThis.iframeSignal = async () => {
  const frame = document.createElement('iframe');
  document.body.append(frame);
  const controller = new frame.contentWindow.AbortController();
  const engine = createChatEngine();
  await engine.ingest(docs);
  const request = { message: 'How fast are refunds?', mode: 'query', signal: controller.signal };
  const foreign = !(controller.signal instanceof AbortSignal);
  const reply = await engine.chat(request);
  controller.abort();
  const aborted = await engine.chat(request).then(
    () => 'answered',
    (error) => (AbortError.isInstance(error) ? 'aborted' : String(error)),
  );
  return { foreign, cited: /\\[source: S1\\]/.test(reply.text), aborted };
};
`;

describe.skipIf(reason !== undefined)(`Chromium${reason ? ` [skipped: ${reason}]` : ''}`, () => {
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const [{ chromium }, bundle] = await Promise.all([
      import('playwright-core'),
      bundleForRuntime({ source: ENTRY }, 'iife'),
    ]);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // An https origin of its own (served from here), so the page is a secure context.
    await page.route('https://cortexis.test/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><body></body>' }),
    );
    await page.goto('https://cortexis.test/');
    await page.addScriptTag({ content: bundle.code });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('runs the quickstart: a cited answer and a streamed follow-up', async () => {
    const result = await page.evaluate(() =>
      (globalThis as unknown as { quickstart(): Promise<Record<string, string>> }).quickstart(),
    );
    expect(result['text']).toMatch(/14 days.*\[source: S1\]/);
    expect(result['source']).toBe('Refund policy');
    expect(result['streamed']).toMatch(/never refunded.*\[source: S1\]/);
    expect(pageErrors).toEqual([]);
  });

  it('serves the HTTP handler’s SSE answer in the page', async () => {
    const { status, body } = await page.evaluate(() =>
      (
        globalThis as unknown as { serveSSE(): Promise<{ status: number; body: string }> }
      ).serveSSE(),
    );
    expect(status).toBe(200);
    const events = [...body.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(events[0]).toBe('route');
    expect(events).toContain('text-delta');
    expect(events.at(-1)).toBe('done');
  });

  it('takes a signal from an iframe (another realm) and aborts with it', async () => {
    const result = await page.evaluate(() =>
      (
        globalThis as unknown as {
          iframeSignal(): Promise<{ foreign: boolean; cited: boolean; aborted: string }>;
        }
      ).iframeSignal(),
    );
    expect(result).toEqual({ foreign: true, cited: true, aborted: 'aborted' });
  });
});
