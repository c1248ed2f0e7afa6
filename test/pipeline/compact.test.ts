import { describe, expect, it } from 'vitest';

import { createExtractiveProvider } from '../../src/adapters/extractive/provider.js';
import { createMemorySessionStore } from '../../src/adapters/memory/session-store.js';
import { AbortError, ConfigError, ProviderError } from '../../src/errors/index.js';
import {
  compact,
  compactionConfigSchema,
  resolveChatProfile,
  selectContext,
} from '../../src/pipeline/compact.js';
import { planCompaction } from '../../src/pipeline/compact/plan.js';
import { CHAT_PROFILES, type ChatProfile } from '../../src/pipeline/compact/profiles.js';
import { SUMMARY_PROMPT } from '../../src/pipeline/compact/summary.js';
import type { MessageRecord, Source } from '../../src/ports/chat-records.js';
import type { Tokenizer } from '../../src/ports/tokenizer.js';
import { safeParse } from '../../src/util/schema.js';
import { createMockLLM } from '../../src/testing/mock-llm.js';

// One token per word keeps the arithmetic visible; each message costs words + 4.
const wordTokenizer: Tokenizer = {
  name: 'words',
  count: (text) => text.split(/\s+/).filter(Boolean).length,
  encode: () => [],
  decode: () => '',
};
const words = (n: number, word = 'w') => Array.from({ length: n }, () => word).join(' ');

let sequence = 0;
function message(
  role: MessageRecord['role'],
  content: string,
  extra: Partial<MessageRecord> = {},
): MessageRecord {
  sequence++;
  return {
    id: `m${String(sequence).padStart(4, '0')}`,
    sessionId: 's1',
    userId: 'u1',
    role,
    content,
    status: 'complete',
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, sequence)).toISOString(),
    sources: [],
    confidence: null,
    timings: null,
    guard: false,
    metadata: {},
    ...extra,
  };
}

/** `n` user/assistant turns; turn i says `u<i>` / `a<i>` with `size` words each. */
function turns(n: number, size = 3): MessageRecord[] {
  return Array.from({ length: n }, (_, index) => [
    message('user', words(size, `u${index}`)),
    message('assistant', words(size, `a${index}`)),
  ]).flat();
}

const profile = (overrides: Partial<ChatProfile> = {}): ChatProfile => ({
  thresholdTokens: 1000,
  maxTurns: 10,
  summaryTokens: 50,
  reservedTokens: 500,
  includeSummaryInContext: true,
  summaryPosition: 'before_retrieval',
  ...overrides,
});

async function storeWith(messages: readonly MessageRecord[]) {
  const store = createMemorySessionStore();
  await store.createSession({
    id: 's1',
    userId: 'u1',
    title: null,
    status: 'active',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
    endedAt: null,
    trajectoryId: null,
    settings: {},
    stats: { messageCount: 0, totalSearchMs: 0, totalGenerationMs: 0 },
    metadata: {},
  });
  if (messages.length > 0) await store.appendMessages('s1', messages);
  return store;
}

const session = { id: 's1', userId: 'u1' };

describe('chat profiles', () => {
  it('ship the seed numbers', () => {
    expect(CHAT_PROFILES.default).toEqual({
      thresholdTokens: 2000,
      maxTurns: 10,
      summaryTokens: 500,
      reservedTokens: 800,
      includeSummaryInContext: true,
      summaryPosition: 'before_retrieval',
    });
    expect(CHAT_PROFILES.long_context).toEqual({
      thresholdTokens: 4000,
      maxTurns: 20,
      summaryTokens: 800,
      reservedTokens: 1500,
      includeSummaryInContext: true,
      summaryPosition: 'before_retrieval',
    });
    expect(CHAT_PROFILES.compact).toEqual({
      thresholdTokens: 1000,
      maxTurns: 5,
      summaryTokens: 300,
      reservedTokens: 500,
      includeSummaryInContext: true,
      summaryPosition: 'before_retrieval',
    });
  });

  it('resolve custom profiles from the config section, which may override a built-in one', () => {
    const parsed = safeParse(compactionConfigSchema(), {
      profile: 'tiny',
      profiles: {
        tiny: { thresholdTokens: 300, maxTurns: 3, summaryTokens: 60, reservedTokens: 100 },
        compact: { thresholdTokens: 900, maxTurns: 4, summaryTokens: 200, reservedTokens: 400 },
      },
    });
    expect(parsed.success).toBe(true);
    if (!parsed.success) return;
    expect(parsed.data.enabled).toBe(true);
    expect(resolveChatProfile(parsed.data).maxTurns).toBe(3);
    expect(resolveChatProfile(parsed.data, 'compact').thresholdTokens).toBe(900);
    expect(resolveChatProfile(parsed.data, 'long_context')).toBe(CHAT_PROFILES.long_context);
    expect(resolveChatProfile(undefined)).toBe(CHAT_PROFILES.default);
  });

  it('reject unknown names and inconsistent numbers, naming the field', () => {
    expect(() => resolveChatProfile(undefined, 'huge')).toThrow(ConfigError);
    const unknown = safeParse(compactionConfigSchema(), { profile: 'huge' });
    expect(unknown.success).toBe(false);
    if (!unknown.success) expect(unknown.issues[0]?.path).toBe('profile');
    const bad = safeParse(compactionConfigSchema(), {
      profiles: { x: { thresholdTokens: 200, maxTurns: 3, summaryTokens: 300, reservedTokens: 0 } },
    });
    expect(bad.success).toBe(false);
    if (!bad.success)
      expect(bad.issues.map((issue) => issue.path)).toContain('profiles.x.summaryTokens');
    const extra = safeParse(compactionConfigSchema(), { profile: 'default', threshold: 3 });
    expect(extra.success).toBe(false);
  });

  it('default to the default profile', () => {
    const parsed = safeParse(compactionConfigSchema(), undefined);
    expect(parsed.success && parsed.data.profile).toBe('default');
  });
});

describe('planCompaction', () => {
  it('does nothing under both limits', () => {
    const plan = planCompaction(turns(10), profile(), wordTokenizer);
    expect(plan.needed).toBe(false);
    expect(plan.turns).toBe(10);
    expect(plan.historyTokens).toBe(20 * 7);
    expect(plan.summarize).toEqual([]);
  });

  it('crosses the turn limit at maxTurns + 1 and summarises the older half', () => {
    const history = turns(11);
    const plan = planCompaction(history, profile(), wordTokenizer);
    expect(plan.needed).toBe(true);
    expect(plan.reason).toBe('turns');
    // 11 turns: the older 5 are summarised, the newest 6 kept.
    expect(plan.summarize).toEqual(history.slice(0, 10));
    expect(plan.keep).toEqual(history.slice(10));
  });

  it('crosses the token threshold before the turn limit', () => {
    const history = turns(4, 30); // 8 messages × 34 tokens = 272
    expect(planCompaction(history, profile({ thresholdTokens: 272 }), wordTokenizer).needed).toBe(
      false,
    );
    const plan = planCompaction(history, profile({ thresholdTokens: 271 }), wordTokenizer);
    expect(plan.reason).toBe('tokens');
    expect(plan.summarize.length).toBeGreaterThan(0);
  });

  it('counts the current summary’s own tokens toward the threshold', () => {
    const history = turns(3, 10); // 6 × 14 = 84 tokens
    expect(planCompaction(history, profile({ thresholdTokens: 100 }), wordTokenizer).needed).toBe(
      false,
    );
    const summary = message('system-summary', words(30, 's'), { covers: ['old'] });
    const plan = planCompaction(
      [summary, ...history],
      profile({ thresholdTokens: 100 }),
      wordTokenizer,
    );
    expect(plan.historyTokens).toBe(84 + 34);
    expect(plan.needed).toBe(true);
    expect(plan.previousSummary).toBe(summary);
  });

  it('never summarises the last 2 user messages, even when they alone are over the limit', () => {
    const history = turns(3, 200);
    const plan = planCompaction(history, profile({ thresholdTokens: 100 }), wordTokenizer);
    expect(plan.needed).toBe(true);
    const lastUsers = history.filter((entry) => entry.role === 'user').slice(-2);
    for (const user of lastUsers) expect(plan.summarize).not.toContain(user);
    expect(plan.summarize).toEqual(history.slice(0, 2));

    const two = turns(2, 200);
    const nothing = planCompaction(two, profile({ thresholdTokens: 100 }), wordTokenizer);
    expect(nothing.needed).toBe(true);
    expect(nothing.summarize).toEqual([]);
  });

  it('never splits a user message from its answer', () => {
    const history = [
      message('user', 'q1'),
      message('assistant', 'a1'),
      message('assistant', 'a1 continued'),
      message('user', 'q2'),
      message('assistant', 'a2'),
      message('user', 'q3'),
      message('assistant', 'a3'),
      message('user', 'q4'),
    ];
    const plan = planCompaction(history, profile({ maxTurns: 3 }), wordTokenizer);
    expect(plan.summarize.map((entry) => entry.content)).toEqual([
      'q1',
      'a1',
      'a1 continued',
      'q2',
      'a2',
    ]);
    expect(plan.keep[0]?.role).toBe('user');
  });

  it('summarises more than half when the kept half alone exceeds half the threshold', () => {
    // 8 turns of 2 × 54 tokens; threshold 400 → keep at most 200 tokens, but always 2 users.
    const history = turns(8, 50);
    const plan = planCompaction(history, profile({ thresholdTokens: 400 }), wordTokenizer);
    expect(plan.keep).toEqual(history.slice(-4));
  });

  it('ignores covered messages', () => {
    const covered = turns(20).map((entry) => ({ ...entry, coveredBy: 'sum' }));
    const plan = planCompaction([...covered, ...turns(2)], profile(), wordTokenizer);
    expect(plan.turns).toBe(2);
    expect(plan.needed).toBe(false);
  });
});

describe('compact', () => {
  it('stores one system-summary covering the summarised turns, with the spec prompt', async () => {
    const history = turns(11);
    const store = await storeWith(history);
    const llm = createMockLLM({ responses: 'User asked about refunds; resolved: 14 days.' });
    const result = await compact(
      { sessionStore: store, llm, tokenizer: wordTokenizer },
      { session, profile: profile() },
    );
    expect(result.status).toBe('summarized');
    if (result.status !== 'summarized') return;
    expect(result.replacedCount).toBe(10);
    expect(result.summary.role).toBe('system-summary');
    expect(result.summary.covers).toEqual(history.slice(0, 10).map((entry) => entry.id));

    const request = llm.calls[0]!.request;
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: SUMMARY_PROMPT });
    expect(request.messages[0]).toEqual({ role: 'user', content: history[0]!.content });
    expect(request.maxTokens).toBe(50);

    // The originals stay in storage, hidden from the context.
    expect(await store.countMessages('s1')).toBe(23);
    const uncovered = await store.listMessages('s1', { uncoveredOnly: true });
    expect(uncovered.map((entry) => entry.id)).toEqual([
      ...history.slice(10).map((entry) => entry.id),
      result.summaryId,
    ]);
    const covered = await store.getMessage(history[0]!.id);
    expect(covered?.coveredBy).toBe(result.summaryId);
  });

  it('folds the previous summary in and covers it', async () => {
    const store = await storeWith(turns(11));
    const llm = createMockLLM({ responses: ['First summary.', 'Second summary.'] });
    const deps = { sessionStore: store, llm, tokenizer: wordTokenizer };
    const first = await compact(deps, { session, profile: profile() });
    if (first.status !== 'summarized') throw new Error('expected a summary');
    await store.appendMessages('s1', turns(5));
    const second = await compact(deps, { session, profile: profile() });
    expect(second.status).toBe('summarized');
    if (second.status !== 'summarized') return;
    expect(second.summary.covers?.[0]).toBe(first.summaryId);
    expect(llm.calls[1]!.request.messages[0]).toEqual({
      role: 'user',
      content: 'Earlier in this conversation: First summary.',
    });
    const uncovered = await store.listMessages('s1', { uncoveredOnly: true });
    expect(uncovered.filter((entry) => entry.role === 'system-summary')).toEqual([second.summary]);
    expect((await store.getMessage(first.summaryId))?.coveredBy).toBe(second.summaryId);
  });

  it('does nothing (and calls no model) under the limits', async () => {
    const store = await storeWith(turns(3));
    const llm = createMockLLM();
    const result = await compact(
      { sessionStore: store, llm, tokenizer: wordTokenizer },
      { session, profile: profile() },
    );
    expect(result.status).toBe('none');
    expect(llm.calls).toHaveLength(0);
  });

  it('drops the oldest turns from the context only when the summariser fails', async () => {
    const history = turns(11);
    const store = await storeWith(history);
    const llm = createMockLLM({
      responses: new ProviderError('down', { provider: 'mock', status: 503 }),
    });
    const result = await compact(
      { sessionStore: store, llm, tokenizer: wordTokenizer },
      { session, profile: profile() },
    );
    expect(result.status).toBe('dropped');
    if (result.status !== 'dropped') return;
    expect(result.droppedIds).toEqual(history.slice(0, 10).map((entry) => entry.id));
    // Nothing stored, nothing covered.
    expect(await store.countMessages('s1')).toBe(22);
    expect(await store.listMessages('s1', { uncoveredOnly: true })).toHaveLength(22);
    // The context leaves them out while the summary is missing.
    const context = selectContext(
      await store.listMessages('s1', { uncoveredOnly: true }),
      profile(),
      wordTokenizer,
      null,
    );
    expect(context.messages.map((entry) => entry.id)).toEqual(
      history.slice(10).map((entry) => entry.id),
    );
    expect(context.droppedIds).toEqual(result.droppedIds);
  });

  it('treats an empty summary as a failure', async () => {
    const store = await storeWith(turns(11));
    const result = await compact(
      { sessionStore: store, llm: createMockLLM({ responses: '  ' }), tokenizer: wordTokenizer },
      { session, profile: profile() },
    );
    expect(result.status).toBe('dropped');
    expect(await store.countMessages('s1')).toBe(22);
  });

  it('cuts a long summary to the profile’s summary budget and removes citation tags', async () => {
    const store = await storeWith(turns(11));
    const result = await compact(
      {
        sessionStore: store,
        llm: createMockLLM({ responses: `Refunds take 14 days [source: S1]. ${words(100, 'x')}` }),
        tokenizer: wordTokenizer,
      },
      { session, profile: profile({ summaryTokens: 20 }) },
    );
    if (result.status !== 'summarized') throw new Error('expected a summary');
    expect(wordTokenizer.count(result.summary.content)).toBeLessThanOrEqual(20);
    expect(result.summary.content).toMatch(/^Refunds take 14 days\. x/);
  });

  it('names the covered answers’ document ids the summary leaves out', async () => {
    const source: Source = {
      id: 'S1',
      chunkId: 'refunds#0',
      documentId: 'refunds',
      title: null,
      uri: null,
      snippet: 'Refunds take 14 days.',
      score: 0.8,
      vectorScore: null,
      keywordScore: 0.8,
      fusedScore: 1,
      type: 'keyword',
      graphBoost: 1,
      learnedBoost: 1,
      graphContext: null,
      metadata: {},
    };
    const history = [
      message('user', 'How do refunds work?'),
      message('assistant', 'Refunds take 14 days.', { sources: [source] }),
      ...turns(10),
    ];
    const store = await storeWith(history);
    const result = await compact(
      {
        sessionStore: store,
        llm: createMockLLM({ responses: 'Refunds take 14 days.' }),
        tokenizer: wordTokenizer,
      },
      { session, profile: profile() },
    );
    if (result.status !== 'summarized') throw new Error('expected a summary');
    expect(result.summary.content).toBe('Refunds take 14 days.\nSources: refunds.');
  });

  it('rejects with AbortError when aborted, storing nothing', async () => {
    const store = await storeWith(turns(11));
    const controller = new AbortController();
    controller.abort();
    await expect(
      compact(
        { sessionStore: store, llm: createMockLLM(), tokenizer: wordTokenizer },
        { session, profile: profile(), signal: controller.signal },
      ),
    ).rejects.toBeInstanceOf(AbortError);
    expect(await store.countMessages('s1')).toBe(22);
  });

  it('works offline: the extractive provider writes the summary', async () => {
    const history = [
      message('user', 'How do refunds work?'),
      message('assistant', 'Refunds are issued within 14 days of the request [source: S1].'),
      message('user', 'Are gift cards refundable?'),
      message('assistant', 'Gift cards are never refunded [source: S1].'),
      message('user', 'What about shipping to Germany?'),
      message('assistant', 'International shipping takes up to 10 business days [source: S1].'),
      message('user', 'And express?'),
      message('assistant', 'Express shipping costs 15 euros and arrives the next business day.'),
    ];
    const store = await storeWith(history);
    const result = await compact(
      { sessionStore: store, llm: createExtractiveProvider(), tokenizer: wordTokenizer },
      { session, profile: profile({ maxTurns: 3 }) },
    );
    if (result.status !== 'summarized') throw new Error('expected a summary');
    expect(result.summary.content).toContain('Refunds are issued within 14 days');
    expect(result.summary.content).toContain('Gift cards are never refunded');
    expect(result.summary.content).not.toContain('[source:');
    expect(result.summary.content).not.toContain(SUMMARY_PROMPT);
  });
});

describe('selectContext', () => {
  it('puts the summary apart and leaves out the current message', async () => {
    const store = await storeWith(turns(11));
    const result = await compact(
      { sessionStore: store, llm: createMockLLM({ responses: 'S.' }), tokenizer: wordTokenizer },
      { session, profile: profile() },
    );
    if (result.status !== 'summarized') throw new Error('expected a summary');
    const current = message('user', 'now');
    await store.appendMessages('s1', [current]);
    const context = selectContext(
      await store.listMessages('s1', { uncoveredOnly: true }),
      profile(),
      wordTokenizer,
      current.id,
    );
    expect(context.summary).toBe('S.');
    expect(context.messages.some((entry) => entry.id === current.id)).toBe(false);
    expect(context.messages.some((entry) => entry.role === 'system-summary')).toBe(false);
    expect(context.messages).toHaveLength(12);
    expect(context.droppedIds).toEqual([]);
  });
});
