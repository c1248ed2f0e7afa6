/**
 * `cortexis` + `cortexis/http` inside Vercel's edge-runtime: the entry is bundled for the
 * browser/worker platform (a `node:` import anywhere fails the build), evaluated in the
 * runtime, and requests are dispatched as `FetchEvent`s, so every `Request`, signal and
 * `Response` is the edge realm's, as on a deployed edge function.
 */
import { EdgeRuntime } from 'edge-runtime';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleForRuntime } from './bundle.js';

// The deployed function: an offline engine over one document, served by the HTTP handler.
const ENTRY = `
import { createChatEngine, createMemoryVectorStore } from 'cortexis';
import { createChatHandler } from 'cortexis/http';

const engine = createChatEngine();
const ready = engine.ingest([
  {
    id: 'refunds',
    title: 'Refund policy',
    text: 'Refunds are issued within 14 days of the request. Gift cards are never refunded.',
  },
]);
const handler = createChatHandler(engine, {
  authenticate: (request) => {
    const id = request.headers.get('x-user');
    return id ? { id } : null;
  },
});
addEventListener('fetch', (event) => {
  event.respondWith(ready.then(() => handler(event.request)));
});

// What happens to the HNSW graph here (edge runtimes forbid the code generation it needs).
globalThis.probeVectorIndex = async (inject) => {
  const errors = [];
  // hnswlib-wasm is never inlined by a bundler following cortexis's imports: a host that wants
  // the graph in a bundle injects the library (a literal import its bundler follows).
  const store = createMemoryVectorStore({
    index: 'hnsw',
    onIndexError: (error) => errors.push(String(error)),
    ...(inject
      ? { loadHnswlib: () => import('hnswlib-wasm/dist/hnswlib.js').then((m) => m.loadHnswlib()) }
      : {}),
  });
  const records = Array.from({ length: 40 }, (_, i) => ({
    id: 'v' + i,
    vector: [Math.sin(i), Math.cos(i), 1],
    metadata: {},
  }));
  await store.upsert('ns', records);
  for (let i = 0; i < 200 && store.indexStats('ns').state !== 'hnsw' && errors.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const [best] = await store.query('ns', [Math.sin(7), Math.cos(7), 1], { k: 1 });
  return { state: store.indexStats('ns').state, errors, best: best && best.id };
};
`;

let code: string;
let runtime: EdgeRuntime;

beforeAll(async () => {
  const bundle = await bundleForRuntime({ source: ENTRY }, 'iife');
  expect(bundle.inputs.some((input) => input.endsWith('src/http/handler.ts'))).toBe(true);
  code = bundle.code;
  runtime = new EdgeRuntime({ initialCode: code });
});

const send = (path: string, init: RequestInit = {}) =>
  runtime.dispatchFetch(`https://edge.test/${path}`, {
    ...init,
    headers: { 'x-user': 'u1', 'content-type': 'application/json', ...init.headers },
  });

async function conversation(): Promise<string> {
  const created = await send('conversations', { method: 'POST', body: '{}' });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

/** The events of an SSE body, read with the same parser the SDK's providers use. */
function readEvents(body: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(body);
  return events;
}

describe('edge-runtime', () => {
  it('the bundle step refuses a Node built-in, so the bundle proves the entries neutral', async () => {
    const entry = "import { readFileSync } from 'node:fs';\nconsole.log(readFileSync);";
    await expect(bundleForRuntime({ source: entry }, 'iife')).rejects.toThrow(
      /Node built-in 'node:fs' imported by/,
    );
  });

  it('runs the bundle in a realm of its own', () => {
    expect(runtime.evaluate<string>('typeof EdgeRuntime')).toBe('string');
    expect(
      runtime.evaluate<boolean>("new Request('https://x').signal instanceof AbortSignal"),
    ).toBe(false);
  });

  it('answers a chat turn as JSON with a citation', async () => {
    const id = await conversation();
    const response = await send(`conversations/${id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ content: 'How fast are refunds issued?' }),
    });
    const body = (await response.json()) as {
      text: string;
      sources: { id: string; title: string }[];
    };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.text).toMatch(/14 days/);
    expect(body.text).toMatch(/\[source: S1\]/);
    expect(body.sources[0]).toMatchObject({ id: 'S1', title: 'Refund policy' });
  });

  it('streams a turn as Server-Sent Events: tokens, then the final frame', async () => {
    const id = await conversation();
    const response = await send(`conversations/${id}/messages`, {
      method: 'POST',
      headers: { accept: 'text/event-stream' },
      body: JSON.stringify({ content: 'Are gift cards refunded?' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = readEvents(await response.text());
    const types = events.map((event) => event.event);
    expect(types[0]).toBe('route');
    expect(types.indexOf('sources')).toBeLessThan(types.indexOf('text-delta'));
    const tokens = events
      .filter((event) => event.event === 'text-delta')
      .map((event) => (JSON.parse(event.data) as { text: string }).text);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join('')).toMatch(/never refunded/);
    expect(types.at(-1)).toBe('done');
    const done = JSON.parse(events.at(-1)!.data) as {
      response: { text: string; sources: { title: string }[] };
    };
    expect(done.response.text).toBe(tokens.join(''));
    expect(done.response.sources[0]?.title).toBe('Refund policy');
  });

  it('keeps vector search exact when the HNSW graph cannot load (no code generation)', async () => {
    // hnswlib-wasm's bindings compile functions from strings, which edge runtimes forbid; the
    // store reports it through onIndexError and keeps answering with its exact scan. The
    // library's own console output goes to a captured console, not the test log.
    const logged: unknown[] = [];
    const quiet = new EdgeRuntime({
      initialCode: code,
      extend: (context) =>
        Object.assign(context, {
          console: { ...context.console, error: (...args: unknown[]) => logged.push(args) },
        }),
    });
    const probe =
      await quiet.evaluate<Promise<{ state: string; errors: string[]; best: string | undefined }>>(
        'probeVectorIndex(true)',
      );
    expect(probe.state).toBe('exact');
    // Loaded in a worker-less realm the library refuses to start or to compile its bindings.
    expect(probe.errors.join('\n')).toMatch(
      /Code generation from strings disallowed|not compiled for this environment/,
    );
    expect(probe.best).toBe('v7');
  });

  it('keeps vector search exact when the bundle has no hnswlib-wasm (not injected)', async () => {
    const probe =
      await runtime.evaluate<
        Promise<{ state: string; errors: string[]; best: string | undefined }>
      >('probeVectorIndex(false)');
    expect(probe.state).toBe('exact');
    expect(probe.errors).toHaveLength(1);
    expect(probe.best).toBe('v7');
  });
});
