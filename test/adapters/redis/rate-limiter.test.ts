import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisRateLimiter,
  type RedisScriptArguments,
  type RedisScriptClient,
} from '../../../src/adapters/redis/index.js';
import { rateLimitKey } from '../../../src/util/rate-limit-key.js';
import { createChatEngine, type ChatEngine } from '../../../src/engine.js';
import { CortexisError, type FieldIssue } from '../../../src/errors/index.js';
import { createChatHandler, type ChatHandler } from '../../../src/http/index.js';
import { createMockLLM, testRateLimiter, type MockLLM } from '../../../src/testing/index.js';
import { handbook } from '../../fixtures/handbook.js';
import { uniqueName } from '../../../src/testing/shared.js';

const url = process.env['CORTEXIS_TEST_REDIS_URL'];
const reason = url ? undefined : 'CORTEXIS_TEST_REDIS_URL is not set';
const title = (text: string): string => (reason ? `${text} [skipped: ${reason}]` : text);

const open = (address: string) => createClient({ url: address });
type Client = ReturnType<typeof open>;

// Every key of this run lives under one fresh prefix; deleted at the end.
const prefix = `${uniqueName('cortexis_test')}:rl:`;
const clients: Client[] = [];

async function connect(): Promise<Client> {
  const client = open(url!);
  client.on('error', () => {}); // reported through the rejected commands
  await client.connect();
  clients.push(client);
  return client;
}

afterAll(async () => {
  const [first] = clients;
  if (first) {
    const keys = await first.keys(`${prefix}*`);
    if (keys.length > 0) await first.del(keys);
  }
  await Promise.all(clients.map((client) => client.close()));
});

if (url) {
  let shared: Client;
  beforeAll(async () => {
    shared = await connect();
  });
  testRateLimiter({
    title: 'redis rate limiter',
    create: (limits) => createRedisRateLimiter({ client: shared, prefix, ...limits }),
  });
} else {
  it.skip(title('redis rate limiter conformance'), () => {});
}

describe.skipIf(!url)(title('redis rate limiter across instances'), () => {
  let one: Client;
  let two: Client;
  beforeAll(async () => {
    [one, two] = await Promise.all([connect(), connect()]);
  });

  it('shares one limit between two limiters on two connections', async () => {
    const settings = { prefix, limit: 3, windowMs: 60_000, flood: false } as const;
    const a = createRedisRateLimiter({ client: one, ...settings });
    const b = createRedisRateLimiter({ client: two, ...settings });
    const key = uniqueName('user');
    const t = Date.now();
    expect(await a.hit(key, t)).toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 });
    expect(await b.hit(key, t + 1_000)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
    expect(await a.hit(key, t + 2_000)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    expect(await b.hit(key, t + 3_000)).toEqual({
      allowed: false,
      reason: 'window',
      remaining: 0,
      retryAfterMs: 57_000,
    });
    expect((await a.hit(key, t + 59_999)).allowed).toBe(false);
    expect((await b.hit(key, t + 60_000)).allowed).toBe(true);
  });

  it('shares flood detection between instances', async () => {
    const settings = { prefix, limit: 100, windowMs: 300_000 };
    const a = createRedisRateLimiter({ client: one, ...settings });
    const b = createRedisRateLimiter({ client: two, ...settings });
    const key = uniqueName('user');
    const t = Date.now();
    for (let index = 0; index < 4; index++) {
      const limiter = index % 2 === 0 ? a : b;
      expect((await limiter.hit(key, t + index * 500)).allowed).toBe(true);
    }
    expect(await b.hit(key, t + 2_000)).toEqual({
      allowed: false,
      reason: 'flood',
      remaining: 96,
      retryAfterMs: 6_000,
    });
  });

  it('never lets concurrent hits at one instant overshoot the limit', async () => {
    const settings = { prefix, limit: 5, windowMs: 60_000, flood: false } as const;
    const limiters = [one, two].map((client) => createRedisRateLimiter({ client, ...settings }));
    const key = uniqueName('user');
    const t = Date.now();
    const decisions = await Promise.all(
      Array.from({ length: 12 }, (_, index) => limiters[index % 2]!.hit(key, t)),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
    expect(
      decisions.filter((decision) => !decision.allowed).map((decision) => decision.retryAfterMs),
    ).toEqual(Array(7).fill(60_000));
    // Equal timestamps are kept apart: five members, not one.
    expect(await one.zCard(`${prefix}${key}`)).toBe(5);
  });

  it('stores hits under the prefix with an expiry of the window', async () => {
    const limiter = createRedisRateLimiter({ client: one, prefix, windowMs: 30_000 });
    const key = uniqueName('user');
    await limiter.hit(key, Date.now());
    expect(limiter.redisKey(key)).toBe(`${prefix}${key}`);
    const ttl = await one.pTTL(`${prefix}${key}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it('runs the script by hash once loaded, and works with an eval-only client', async () => {
    const calls: string[] = [];
    const recording: RedisScriptClient = {
      eval: (script: string, options: RedisScriptArguments) => {
        calls.push('eval');
        return one.eval(script, options);
      },
      evalSha: (sha: string, options: RedisScriptArguments) => {
        calls.push('evalSha');
        return one.evalSha(sha, options);
      },
    };
    const limiter = createRedisRateLimiter({ client: recording, prefix, flood: false });
    const key = uniqueName('user');
    await limiter.hit(key, Date.now());
    calls.length = 0;
    expect((await limiter.hit(key, Date.now())).remaining).toBe(58);
    expect(calls).toEqual(['evalSha']);

    const evalOnly = createRedisRateLimiter({
      client: { eval: (script, options) => two.eval(script, options) },
      prefix,
      limit: 1,
    });
    expect((await evalOnly.hit(`${key}:b`, Date.now())).allowed).toBe(true);
    expect((await evalOnly.hit(`${key}:b`, Date.now())).allowed).toBe(false);
  });
});

describe.skipIf(!url)(title('redis rate limiter behind the HTTP handler'), () => {
  let one: Client;
  let two: Client;
  let engine: ChatEngine;
  let llm: MockLLM;
  beforeAll(async () => {
    [one, two] = await Promise.all([connect(), connect()]);
    llm = createMockLLM({ responses: 'Refunds take 14 days [source: S1].' });
    engine = createChatEngine({ llm });
    await engine.ingest(handbook);
  });

  const instance = (client: Client) =>
    createChatHandler(engine, {
      authenticate: (request) => ({ id: request.headers.get('x-user')! }),
      rateLimiter: createRedisRateLimiter({ client, prefix, limit: 3, flood: false }),
    });
  const post = (handler: ChatHandler, user: string, conversation: string, mode = 'chat') =>
    handler(
      new Request(`http://x/conversations/${encodeURIComponent(conversation)}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user': user },
        body: JSON.stringify({ content: 'What is the refund policy?', mode }),
      }),
    );

  it('counts a user across conversations and instances: rotating ids in query mode gains nothing', async () => {
    const handlers = [instance(one), instance(two)];
    const user = uniqueName('mallory');
    const statuses: number[] = [];
    for (let index = 0; index < 8; index++) {
      const response = await post(handlers[index % 2]!, user, `made-up-${index}`, 'query');
      statuses.push(response.status);
    }
    expect(statuses).toEqual([404, 404, 404, 429, 429, 429, 429, 429]);
    expect(llm.calls).toHaveLength(0);
    const stored = await one.keys(`${prefix}*`);
    expect(stored).toContain(`${prefix}${rateLimitKey('message', 'user', user)}`);
  });

  it('keeps keys collision-free: user acme posting to "bob:<id>" leaves user acme:bob alone', async () => {
    const handler = instance(one);
    const acme = uniqueName('acme');
    const created = await handler(
      new Request('http://x/conversations', {
        method: 'POST',
        headers: { 'x-user': `${acme}:bob` },
      }),
    );
    const { id } = (await created.json()) as { id: string };
    for (let index = 0; index < 4; index++) await post(handler, acme, `bob:${id}`);
    expect((await post(handler, `${acme}:bob`, id)).status).toBe(200);
  });
});

describe('redis rate limiter settings', () => {
  const client: RedisScriptClient = { eval: () => Promise.reject(new Error('not called')) };

  function issuePaths(create: () => unknown, code: string): string[] {
    try {
      create();
    } catch (error) {
      expect(CortexisError.isInstance(error)).toBe(true);
      expect((error as CortexisError).code).toBe(code);
      return ((error as CortexisError & { issues: FieldIssue[] }).issues ?? []).map(
        (issue) => issue.path,
      );
    }
    return expect.fail('should have thrown');
  }

  it('rejects a missing client with config_error naming client', () => {
    expect(issuePaths(() => createRedisRateLimiter(undefined as never), 'config_error')).toEqual([
      'client',
    ]);
    expect(
      issuePaths(() => createRedisRateLimiter({ client: {} as never }), 'config_error'),
    ).toEqual(['client']);
  });

  it('rejects bad limits with validation_error naming the field', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ limit: 0 }, 'limit'],
      [{ limit: 1.5 }, 'limit'],
      [{ windowMs: -1 }, 'windowMs'],
      [{ windowMs: Number.NaN }, 'windowMs'],
      [{ flood: { messages: 1 } }, 'flood.messages'],
      [{ flood: { minGapMs: 0 } }, 'flood.minGapMs'],
      [{ prefix: 42 }, 'prefix'],
    ];
    for (const [settings, path] of cases) {
      expect(
        issuePaths(() => createRedisRateLimiter({ client, ...settings }), 'validation_error'),
        JSON.stringify(settings),
      ).toEqual([path]);
    }
  });

  it('accepts the defaults, config.rateLimit-shaped settings and flood off with 1 message', () => {
    const limiter = createRedisRateLimiter({ client });
    expect(limiter.name).toBe('redis');
    expect(limiter.prefix).toBe('cortexis:rl:');
    expect(limiter.redisKey('u:s')).toBe('cortexis:rl:u:s');
    expect(() =>
      createRedisRateLimiter({
        client,
        limit: 10,
        windowMs: 1_000,
        flood: { enabled: false, messages: 1, minGapMs: 2_000 },
      }),
    ).not.toThrow();
  });

  it('stores nothing for a bad key or time, and rejects an aborted hit before Redis', async () => {
    let called = 0;
    const limiter = createRedisRateLimiter({
      client: {
        eval: () => {
          called++;
          return Promise.resolve([1, 0, 0, 0]);
        },
      },
    });
    await expect(limiter.hit('', 1)).rejects.toMatchObject({ code: 'validation_error' });
    await expect(limiter.hit('k', Number.POSITIVE_INFINITY)).rejects.toMatchObject({
      code: 'validation_error',
    });
    const controller = new AbortController();
    controller.abort();
    await expect(limiter.hit('k', 1, { signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
    expect(called).toBe(0);
  });

  it('rejects a malformed script reply', async () => {
    const limiter = createRedisRateLimiter({ client: { eval: () => Promise.resolve('OK') } });
    await expect(limiter.hit('k', 1)).rejects.toThrow(/Unexpected reply/);
  });
});
