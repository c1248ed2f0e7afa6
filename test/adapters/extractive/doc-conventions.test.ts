import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/adapters/extractive/provider.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';

const ask = (question: string, sources: PromptSource[]) =>
  composeAnswer({ messages: [{ role: 'user', content: question }], sources });

describe('reading the conventions of Markdown documentation', () => {
  it('does not quote an entry of a table of contents for the section it names', () => {
    const contents = [
      '## Table of Contents',
      '',
      '- Enable logging for a single request',
      '- Retry failed requests',
      '- Cancel a request',
    ].join('\n');
    const section = [
      '## Enable logging for a single request',
      '',
      '```js',
      "await client.get('/users', { log: true });",
      '```',
      '',
      'Logging then applies to that request only.',
    ].join('\n');
    const answer = ask('How do I enable logging for a single request?', [
      { label: 'S1', text: contents },
      { label: 'S2', text: section },
    ]);
    // The entry restates the question (quoted, it was rated certain); the section is what answers.
    expect(answer.text).not.toContain('[source: S1]');
    expect(answer.certainty).toBeLessThan(1);
  });

  it('still quotes a list item under any other heading', () => {
    const text = ['## Features', '', '- Enable logging for a single request', '- Retries'].join(
      '\n',
    );
    const answer = ask('Can I enable logging for a single request?', [{ label: 'S1', text }]);
    expect(answer.text).toContain('Enable logging for a single request [source: S1]');
  });

  it('reads "If you want to …, use …" as the instruction a how-to asks for', () => {
    const variables = [
      '## Variables',
      '',
      'All variables are escaped by default. If you want to render unescaped HTML, use the triple braces: {{{name}}}.',
    ].join('\n');
    const example = [
      '## Include templates',
      '',
      '```js',
      "const html = render(template, { name: 'Ada' });",
      'document.body.innerHTML = html;',
      '```',
    ].join('\n');
    const answer = ask('How do I render unescaped HTML in a template?', [
      { label: 'S1', text: variables },
      { label: 'S2', text: example },
    ]);
    expect(answer.text.startsWith('If you want to render unescaped HTML, use the triple')).toBe(
      true,
    );
  });
});

describe('quoting the unit that has the shape of the answer', () => {
  it('quotes a short caption with the table it introduces', () => {
    const timer = [
      '### Timer Widget',
      '',
      'A widget that counts down to zero.',
      '',
      'Timer Settings',
      '',
      'Setting | Type | Required | Description',
      '--- | --- | --- | ---',
      'start | number | Yes | Seconds to count down from.',
      'onZero | function | Yes | Called when the count reaches zero.',
    ].join('\n');
    const shared = [
      '#### Settings',
      '',
      'Besides the settings every widget takes, list widgets also take the following settings.',
      '',
      'Setting | Required? | Type | Description',
      '--- | --- | --- | ---',
      'height | no | number | Rows shown at once.',
    ].join('\n');
    const answer = ask('Which settings of the timer widget are required?', [
      { label: 'S1', text: timer },
      { label: 'S2', text: shared },
    ]);
    // "Timer Settings" was dropped as a fragment, and the other section's lead-in answered.
    expect(answer.text).toContain('Timer Settings [source: S1]');
    expect(answer.text).toContain('onZero');
  });

  it('adds the sentence before the lead that says what a "which …" question asks for', () => {
    const text = [
      '## History',
      '',
      'Release 3 adds streaming. Release 4 drops the old callbacks and ships both module formats. The command-line tool is moved to its own package.',
    ].join('\n');
    const answer = ask('In which release was the command-line tool moved to its own package?', [
      { label: 'S1', text },
    ]);
    expect(answer.text).toContain('Release 4 drops the old callbacks');
    expect(answer.text).not.toContain('Release 3');
  });
});
