import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/adapters/extractive/provider.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';

// Invented documentation: a package's install command sits alone under "## Install", and a
// later section's sentence shares the question's verb.
const sources: PromptSource[] = [
  {
    label: 'S1',
    title: 'quillpad',
    section: 'quillpad › Getting started › Install',
    text: '```\nnpm add quillpad\n```',
  },
  {
    label: 'S2',
    title: 'quillpad',
    section: 'quillpad › Usage › With TypeScript',
    text: [
      'First you need the typings of your runtime to be installed as a dev dependency:',
      '',
      '```bash',
      'npm add --save-dev @types/node',
      '```',
      '',
      'Then quillpad works out of the box:',
      '',
      '```ts',
      "import { quillpad } from 'quillpad';",
      '```',
    ].join('\n'),
  },
  {
    label: 'S3',
    title: 'quillpad',
    section: 'quillpad › Usage › Editor instance',
    text: 'An editor is created by calling quillpad with a root element. The quillpad editor keeps its own undo history.',
  },
];

describe("reading a unit with its source's section path", () => {
  it('answers with the code of the section whose path names the question', () => {
    const answer = composeAnswer({
      messages: [{ role: 'user', content: 'How do I install quillpad?' }],
      sources,
    });
    expect(answer.text).toContain('npm add quillpad');
    expect(answer.text).not.toContain('@types/node');
  });
});
