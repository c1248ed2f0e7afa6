import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/adapters/extractive/provider.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';
import {
  approvalSources,
  faqSources,
  invoiceSources,
  orderSources,
  retriesSources,
  routingSources,
  serverSources,
} from '../../fixtures/extractive-sources.js';

function answer(question: string, sources: readonly PromptSource[]): string {
  return composeAnswer({ messages: [{ role: 'user', content: question }], sources }).text;
}

function labelsCited(text: string): string[] {
  return [...text.matchAll(/\[source: (S\d+)\]/g)].map((match) => match[1]!);
}

describe('extractive answers quote the source that answers (issue 13)', () => {
  it('prefers a lower-ranked source that matches clearly better: a table row keyed by the question term', () => {
    const text = answer('How many retries happen after the first attempt?', retriesSources);
    expect(text).toBe(
      '`retries` — 2 — retries after the first attempt (3 attempts at most) [source: S2].',
    );
  });

  it('never quotes a fenced code block, even a part of it that reads like a sentence', () => {
    const text = answer('Which port does the server listen on by default?', serverSources);
    expect(text).toBe('The server listens on port 8080 unless `port` is set [source: S1].');
  });

  it('does not quote a question found in a source as its answer', () => {
    const text = answer('How do I reset my password?', faqSources);
    expect(text).not.toContain('How do I reset my password');
    expect(text.startsWith('Open Settings, choose Security and press Reset password')).toBe(true);
  });

  it('reads "conversation" in a question as its topic, not as an instruction word', () => {
    const text = answer('How is a conversation routed between instances?', routingSources);
    expect(labelsCited(text)).toEqual(['S2']);
  });

  it('prefers the sentence filed under a heading that names the question', () => {
    const text = answer('Who can approve a refund?', approvalSources);
    expect(text).toBe(
      'A manager can approve a refund for any customer, as the policy says [source: S2].',
    );
  });

  it('answers "when" with the sentence that states the condition', () => {
    const text = answer('When is an order shipped?', orderSources);
    expect(text).toBe('An order is shipped when the payment is confirmed [source: S1].');
  });

  it('adds a missing question term from another chunk of the same document, not from another document', () => {
    const question = 'How long are invoices kept for an audit?';
    expect(answer(question, invoiceSources('Security'))).toBe(
      'Invoices are kept for ten years [source: S1].',
    );
    expect(labelsCited(answer(question, invoiceSources('Billing')))).toEqual(['S1', 'S2']);
  });
});
