import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/errors/index.js';
import {
  checkSupport,
  extractClaims,
  judgeAnswer,
  judgeAnswerOffline,
  llmJudge,
  parseLLMVerdict,
  prepareSource,
  removeClaims,
  supportFeatures,
} from '../../src/pipeline/judge.js';
import { createMockLLM } from '../../src/testing/index.js';

const REFUNDS =
  'Our store sells furniture. Refunds are issued within 14 days of the return request. ' +
  'Shipping to Canada costs 20 dollars per order.';
const WARRANTY = 'Every sofa carries a warranty of 5 years against manufacturing defects.';
const SOURCES = [
  { id: 'S1', text: REFUNDS },
  { id: 'S2', text: WARRANTY },
];

describe('extractClaims', () => {
  it('maps each sentence to the labels it cites and strips the tags from its text', () => {
    const answer = 'Refunds take 14 days [source: S1]. Sofas have a warranty [source: S2, S1]!';
    const claims = extractClaims(answer);
    expect(claims.map((claim) => claim.text)).toEqual([
      'Refunds take 14 days.',
      'Sofas have a warranty!',
    ]);
    expect(claims.map((claim) => claim.sourceIds)).toEqual([['S1'], ['S2', 'S1']]);
    expect(answer.slice(claims[0]!.start, claims[0]!.end)).toBe(
      'Refunds take 14 days [source: S1].',
    );
  });

  it('attaches a tag after the end punctuation to the sentence before', () => {
    const claims = extractClaims(
      'Refunds take 14 days. [source: S1] Shipping is slow. [source: S2]',
    );
    expect(claims.map((claim) => [claim.text, claim.sourceIds])).toEqual([
      ['Refunds take 14 days.', ['S1']],
      ['Shipping is slow.', ['S2']],
    ]);
  });

  it('moves tags opening the next sentence (and their span) to the sentence before', () => {
    const answer = 'Refunds take 14 days.\n\n[source: S1] Shipping is slow.';
    const claims = extractClaims(answer);
    expect(claims.map((claim) => [claim.text, claim.sourceIds])).toEqual([
      ['Refunds take 14 days.', ['S1']],
      ['Shipping is slow.', []],
    ]);
    expect(answer.slice(claims[0]!.start, claims[0]!.end)).toBe(
      'Refunds take 14 days.\n\n[source: S1]',
    );
    expect(answer.slice(claims[1]!.start, claims[1]!.end)).toBe('Shipping is slow.');
  });

  it('reports sentences without tags as uncited and skips text without words', () => {
    const claims = extractClaims('Here is what I found: ... Refunds take 14 days [source: S1].');
    expect(claims.some((claim) => claim.sourceIds.length === 0)).toBe(true);
    expect(extractClaims('')).toEqual([]);
    expect(extractClaims('--- ***')).toEqual([]);
  });
});

describe('checkSupport', () => {
  it('supports a paraphrase and gives an evidence span that slices back to its text', () => {
    const result = checkSupport('Refunds are issued within 14 days.', REFUNDS);
    expect(result.verdict).toBe('supported');
    expect(result.score).toBeGreaterThan(0.5);
    expect(result.evidence).not.toBeNull();
    const { start, end, text } = result.evidence!;
    expect(REFUNDS.slice(start, end)).toBe(text);
    expect(text).toBe('Refunds are issued within 14 days of the return request.');
  });

  it('finds no support for a claim about something the source does not mention', () => {
    const result = checkSupport('The store offers free gift wrapping on birthdays.', REFUNDS);
    expect(result.verdict).toBe('not_enough_info');
    expect(result.score).toBeLessThan(0.5);
  });

  it('scores a claim whose number differs from the source lower than the faithful one', () => {
    const source = prepareSource(WARRANTY);
    const faithful = checkSupport('Every sofa carries a warranty of 5 years.', source);
    const wrong = checkSupport('Every sofa carries a warranty of 10 years.', source);
    expect(
      supportFeatures('Every sofa carries a warranty of 10 years.', source).numberMismatch,
    ).toBe(1);
    expect(
      supportFeatures('Every sofa carries a warranty of 5 years.', source).numberMismatch,
    ).toBe(0);
    expect(wrong.score).toBeLessThan(faithful.score);
    expect(wrong.verdict).toBe('contradicted');
  });

  it('gives the same result for a prepared source and its text, and null evidence for an empty source', () => {
    expect(checkSupport('Shipping to Canada costs 20 dollars.', prepareSource(REFUNDS))).toEqual(
      checkSupport('Shipping to Canada costs 20 dollars.', REFUNDS),
    );
    expect(checkSupport('Anything at all.', '')).toEqual({
      score: expect.any(Number),
      verdict: 'not_enough_info',
      evidence: null,
    });
  });

  it('keeps scores in [0, 1]', () => {
    for (const claim of ['', '14', 'Refunds refunds refunds.', REFUNDS]) {
      const { score } = checkSupport(claim, REFUNDS);
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });
});

describe('judgeAnswerOffline', () => {
  const answer =
    'Refunds are issued within 14 days [source: S1]. ' +
    'Every sofa has a free lifetime repair plan [source: S2]. ' +
    'I hope this helps.';

  it('annotates by default: verdicts, evidence in the cited source, text unchanged', () => {
    const result = judgeAnswerOffline({ answer, sources: SOURCES });
    expect(result.text).toBe(answer);
    expect(result.blocked).toBe(false);
    expect(result.removed).toEqual([]);
    const [refunds, repair, hope] = result.grounding.claims;
    expect(refunds).toMatchObject({ verdict: 'supported', sourceIds: ['S1'], judgedBy: 'offline' });
    expect(refunds!.evidence!.sourceId).toBe('S1');
    expect(REFUNDS.slice(refunds!.evidence!.start, refunds!.evidence!.end)).toBe(
      refunds!.evidence!.text,
    );
    expect(repair!.verdict).toBe('not_enough_info');
    expect(repair!.evidence?.sourceId).toBe('S2');
    expect(hope).toEqual({
      text: 'I hope this helps.',
      sourceIds: [],
      verdict: 'uncited',
      score: 0,
      evidence: null,
      judgedBy: 'offline',
    });
    // 1 supported of 3 claims: uncited claims count as unsupported.
    expect(result.grounding.supportedRatio).toBe(0.333);
  });

  it('picks the best of several cited sources', () => {
    const result = judgeAnswerOffline({
      answer: 'Shipping to Canada costs 20 dollars [source: S2, S1].',
      sources: SOURCES,
    });
    expect(result.grounding.claims[0]).toMatchObject({
      verdict: 'supported',
      evidence: { sourceId: 'S1' },
    });
  });

  it('treats a claim citing only unknown labels as uncited', () => {
    const result = judgeAnswerOffline({
      answer: 'Refunds take 14 days [source: S9].',
      sources: SOURCES,
    });
    expect(result.grounding.claims[0]!.verdict).toBe('uncited');
  });

  it('removes unsupported cited sentences and keeps the rest exactly', () => {
    const result = judgeAnswerOffline({ answer, sources: SOURCES, policy: 'remove' });
    expect(result.text).toBe('Refunds are issued within 14 days [source: S1]. I hope this helps.');
    expect(result.removed.map((claim) => claim.text)).toEqual([
      'Every sofa has a free lifetime repair plan.',
    ]);
    expect(result.grounding.claims).toHaveLength(3);
  });

  it('removes uncited sentences too when asked, and whole lines of a list', () => {
    const list =
      'Summary:\n- Refunds are issued within 14 days [source: S1].\n- Sofas come with free repairs forever [source: S2].\n- Ask us anything.';
    const result = judgeAnswerOffline({
      answer: list,
      sources: SOURCES,
      policy: 'remove',
      removeUncited: true,
    });
    expect(result.text).toBe('- Refunds are issued within 14 days [source: S1].\n');
  });

  it('blocks when the supported ratio is below the minimum, and not otherwise', () => {
    const weak = judgeAnswerOffline({ answer, sources: SOURCES, policy: 'block' });
    expect(weak.blocked).toBe(true);
    expect(weak.text).toBe(answer);
    const lenient = judgeAnswerOffline({
      answer,
      sources: SOURCES,
      policy: 'block',
      minSupportedRatio: 0.3,
    });
    expect(lenient.blocked).toBe(false);
    const annotate = judgeAnswerOffline({ answer, sources: SOURCES });
    expect(annotate.blocked).toBe(false);
  });

  it('gives a supported ratio of 1 to an answer without claims', () => {
    const result = judgeAnswerOffline({ answer: '', sources: SOURCES, policy: 'block' });
    expect(result.grounding).toEqual({ claims: [], supportedRatio: 1 });
    expect(result.blocked).toBe(false);
  });
});

describe('removeClaims', () => {
  it('drops the last sentence with the space before it', () => {
    const text = 'One fact here. Another fact there.';
    expect(removeClaims(text, extractClaims(text).slice(1))).toBe('One fact here.');
    expect(removeClaims(text, extractClaims(text).slice(0, 1))).toBe('Another fact there.');
  });
});

describe('LLM judge', () => {
  const claim = 'Refunds are issued within 14 days.';

  it('parses a valid JSON verdict, also inside a code fence or with prose around it', () => {
    const verdict = { verdict: 'supported', evidence: 'Refunds are issued within 14 days.' };
    expect(parseLLMVerdict(JSON.stringify(verdict))).toEqual(verdict);
    expect(parseLLMVerdict('```json\n' + JSON.stringify(verdict) + '\n```')).toEqual(verdict);
    expect(parseLLMVerdict('Here you go: ' + JSON.stringify(verdict) + ' Done.')).toEqual(verdict);
    expect(parseLLMVerdict('{"verdict": "maybe", "evidence": ""}')).toBeUndefined();
    expect(parseLLMVerdict('{"verdict": "supported"}')).toBeUndefined();
    expect(parseLLMVerdict('not json at all')).toBeUndefined();
    expect(parseLLMVerdict('{broken')).toBeUndefined();
  });

  it('asks the model with the claim and the source, and returns its verdict', async () => {
    const llm = createMockLLM({
      responses: '{"verdict": "contradicted", "evidence": "Refunds are issued within 14 days"}',
    });
    await expect(llmJudge(llm, claim, REFUNDS)).resolves.toEqual({
      verdict: 'contradicted',
      evidence: 'Refunds are issued within 14 days',
    });
    expect(llm.calls).toHaveLength(1);
    const content = llm.calls[0]!.request.messages[0]!.content;
    expect(content).toContain(claim);
    expect(content).toContain(REFUNDS);
  });

  it('resolves undefined (never throws) for garbage or a failing model', async () => {
    await expect(
      llmJudge(createMockLLM({ responses: 'I think so!' }), claim, REFUNDS),
    ).resolves.toBeUndefined();
    const failing = createMockLLM({
      responses: new ProviderError('down', { provider: 'mock', status: 503 }),
    });
    await expect(llmJudge(failing, claim, REFUNDS)).resolves.toBeUndefined();
  });

  it('judgeAnswer uses the LLM verdict and locates its evidence in the source', async () => {
    const llm = createMockLLM({
      responses:
        '```json\n{"verdict": "contradicted", "evidence": "Shipping to Canada costs 20 dollars per order."}\n```',
    });
    const result = await judgeAnswer({
      answer: 'Shipping to Canada is free [source: S1]. No citation here.',
      sources: SOURCES,
      llm,
    });
    expect(llm.calls).toHaveLength(1); // uncited claims are not sent
    const [shipping, uncited] = result.grounding.claims;
    expect(shipping).toMatchObject({ verdict: 'contradicted', judgedBy: 'llm' });
    const evidence = shipping!.evidence!;
    expect(evidence.sourceId).toBe('S1');
    expect(evidence.text).toBe('Shipping to Canada costs 20 dollars per order.');
    expect(REFUNDS.slice(evidence.start, evidence.end)).toBe(evidence.text);
    expect(uncited!.verdict).toBe('uncited');
  });

  it('falls back to the offline verdict when the model answers garbage', async () => {
    const llm = createMockLLM({ responses: 'Sure, the claim looks right to me.' });
    const answer = 'Refunds are issued within 14 days [source: S1].';
    const result = await judgeAnswer({ answer, sources: SOURCES, llm, policy: 'remove' });
    expect(result.grounding).toEqual(judgeAnswerOffline({ answer, sources: SOURCES }).grounding);
    expect(result.grounding.claims[0]).toMatchObject({ verdict: 'supported', judgedBy: 'offline' });
    expect(result.text).toBe(answer);
  });

  it('applies the policy to LLM verdicts', async () => {
    const llm = createMockLLM({
      responses: (request) =>
        request.messages[0]!.content.includes('free')
          ? '{"verdict": "contradicted", "evidence": ""}'
          : '{"verdict": "supported", "evidence": "Refunds are issued within 14 days of the return request."}',
    });
    const result = await judgeAnswer({
      answer: 'Refunds are issued within 14 days [source: S1]. Shipping is free [source: S1].',
      sources: SOURCES,
      llm,
      policy: 'remove',
    });
    expect(result.text).toBe('Refunds are issued within 14 days [source: S1].');
    expect(result.grounding.supportedRatio).toBe(0.5);
  });

  it('judgeAnswer without an LLM equals the offline judge', async () => {
    const answer = 'Refunds are issued within 14 days [source: S1]. Sofas fly [source: S2].';
    await expect(judgeAnswer({ answer, sources: SOURCES })).resolves.toEqual(
      judgeAnswerOffline({ answer, sources: SOURCES }),
    );
  });
});

describe('contradictions (issue 13)', () => {
  const PAYOUTS =
    'Refunds are paid within 5 business days of the request. Gift cards are never refunded. ' +
    'Returns are inspected by the Utrecht warehouse team. Store credit is valid for 12 months.';
  const sources = [{ id: 'S1', text: PAYOUTS }];
  const verdictOf = (claim: string) =>
    judgeAnswerOffline({ answer: `${claim} [source: S1].`, sources }).grounding.claims[0]!;

  it('marks a wrong number for the same quantity contradicted, with the source span, and remove drops it', () => {
    const answer =
      'Refunds are paid within 45 business days [source: S1]. Gift cards are never refunded [source: S1].';
    const result = judgeAnswerOffline({ answer, sources, policy: 'remove' });
    const [wrong, right] = result.grounding.claims;
    expect(wrong!.verdict).toBe('contradicted');
    expect(wrong!.contradiction).toBe('number');
    expect(wrong!.evidence).toMatchObject({
      sourceId: 'S1',
      text: 'Refunds are paid within 5 business days of the request.',
    });
    expect(PAYOUTS.slice(wrong!.evidence!.start, wrong!.evidence!.end)).toBe(wrong!.evidence!.text);
    expect(right!.verdict).toBe('supported');
    expect(result.removed.map((claim) => claim.text)).toEqual([
      'Refunds are paid within 45 business days.',
    ]);
    expect(result.text).toBe('Gift cards are never refunded [source: S1].');
  });

  it('does not support the same number in another unit', () => {
    const claim = verdictOf('Refunds are paid within 5 business weeks');
    expect(claim.verdict).toBe('contradicted');
    expect(claim.contradiction).toBe('unit');
    expect(verdictOf('Store credit is valid for 12 years').verdict).not.toBe('supported');
  });

  it('does not support a negation the source does not make, nor drop one it makes', () => {
    const reversed = verdictOf('Gift cards are refunded');
    expect(reversed.verdict).toBe('contradicted');
    expect(reversed.contradiction).toBe('negation');
    expect(reversed.evidence?.text).toBe('Gift cards are never refunded.');
    expect(verdictOf('Refunds are not paid within 5 business days of the request').verdict).toBe(
      'contradicted',
    );
  });

  it('does not support a swapped name', () => {
    const swapped = verdictOf('Returns are inspected by the Berlin warehouse team');
    expect(swapped.verdict).toBe('contradicted');
    expect(swapped.contradiction).toBe('entity');
    expect(verdictOf('Returns are inspected by the Utrecht warehouse team').verdict).toBe(
      'supported',
    );
  });

  it('keeps a correct paraphrase supported', () => {
    for (const claim of [
      'Within 5 business days of the request, refunds are paid',
      'A refund is paid within 5 business days',
      'Gift cards are not refunded',
      'Store credit stays valid for 12 months',
    ]) {
      const grounding = verdictOf(claim);
      expect(grounding.verdict, claim).toBe('supported');
      expect(grounding.contradiction, claim).toBeUndefined();
    }
  });
});
