import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/adapters/extractive/provider.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';

const ask = (question: string, sources: PromptSource[]) =>
  composeAnswer({ messages: [{ role: 'user', content: question }], sources });

describe('quoting the sentence a lead depends on', () => {
  it('quotes the example that follows the lead and makes it concrete', () => {
    const text = [
      '## Slow paths',
      '',
      "Some lookups are considered 'cold' and bypass the cache entirely. An example of a " +
        "'cold' lookup is one that names a key never read before or a key that expired. " +
        'Warm lookups are served from memory.',
    ].join('\n');
    const answer = ask('Which lookups bypass the cache?', [{ label: 'S1', text }]);
    expect(answer.text).toContain('bypass the cache entirely');
    expect(answer.text).toContain('never read before');
    // The example comes right after the sentence it illustrates.
    expect(answer.text.indexOf('bypass the cache')).toBeLessThan(
      answer.text.indexOf('never read before'),
    );
  });

  it('quotes the unit a lead points back at before the lead', () => {
    const text = [
      '## Examples',
      '',
      'From the command line:',
      '',
      '```bash',
      '$ pack 1.0.0 -c nightly',
      '```',
      '',
      'Which then can be used to promote further:',
      '',
      '```bash',
      '$ pack 1.0.1-nightly.0 -c nightly',
      '```',
    ].join('\n');
    const answer = ask('How do I promote a release to the nightly channel?', [
      { label: 'S1', text },
    ]);
    // "Which then …" continues the command before it: alone it quoted the second command only.
    expect(answer.text).toContain('$ pack 1.0.0 -c nightly');
    expect(answer.text.indexOf('$ pack 1.0.0')).toBeLessThan(answer.text.indexOf('Which then'));
  });

  it('leads with a self-contained sentence alone', () => {
    const text = [
      '## Slow paths',
      '',
      "Some lookups are considered 'cold' and bypass the cache entirely. Warm lookups are " +
        'served from memory.',
    ].join('\n');
    const answer = ask('Which lookups bypass the cache?', [{ label: 'S1', text }]);
    expect(answer.text).not.toContain('Warm lookups');
  });
});
