import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/adapters/extractive/provider.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';

const ask = (question: string, sources: PromptSource[]) =>
  composeAnswer({ messages: [{ role: 'user', content: question }], sources });

// node-fetch's README states its option defaults as an object literal under one lead-in.
const OPTIONS = [
  '### Options',
  '',
  'The default values are shown after each option key.',
  '',
  '```js',
  '{',
  "    method: 'GET',",
  '    follow: 20,         // maximum redirect count. 0 to not follow redirect',
  '    timeout: 0,         // req/res timeout in ms, it resets on redirect. 0 to disable',
  '    size: 0,            // maximum response body size in bytes. 0 to disable',
  '}',
  '```',
  '',
  '### Custom Agent',
  '',
  'The `agent` option allows you to specify networking related options.',
].join('\n');

describe('a code block its lead-in says holds the defaults', () => {
  it('is quoted with the lead-in for a question asking for a default', () => {
    const answer = ask('What is the default maximum response body size?', [
      { label: 'S1', text: OPTIONS },
    ]);
    expect(answer.text).toContain(
      'The default values are shown after each option key [source: S1]:',
    );
    expect(answer.text).toContain('size: 0, ');
  });

  it('is not quoted for a question that does not ask for a default', () => {
    const answer = ask('What are the values shown after each option key?', [
      { label: 'S1', text: OPTIONS },
    ]);
    expect(answer.text).not.toContain('```');
  });

  it('is not quoted when the lead-in names a default thing, not the defaults', () => {
    const text = [
      '### Commands',
      '',
      'Your program exits with an error when you give no command and no default command.',
      '',
      '```js',
      "prog.command('howdy', '', { default: true });",
      '```',
    ].join('\n');
    const answer = ask('What is the default error of a program without commands?', [
      { label: 'S1', text },
    ]);
    expect(answer.text).not.toContain('```');
  });
});
