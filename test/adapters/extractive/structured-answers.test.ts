import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/adapters/extractive/provider.js';
import { intentsOf, questionLiterals } from '../../../src/adapters/extractive/intent.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';

const ask = (question: string, sources: PromptSource[]) =>
  composeAnswer({ messages: [{ role: 'user', content: question }], sources });

const OPTIONS = [
  '## Default option value',
  '',
  'You can specify a default value for an option.',
  '',
  '```js',
  "program.option('-c, --cheese <type>', 'add the specified type of cheese', 'blue');",
  '```',
  '',
  '## Required option',
  '',
  'You may specify a required option using .requiredOption(). It must have a value.',
].join('\n');

describe('extractive answers that state the fact', () => {
  it('answers a how-to with the lead-in sentence and the code block under it', () => {
    const answer = ask('How do I give an option a default value?', [
      { label: 'S1', text: OPTIONS },
    ]);
    expect(answer.text).toContain('You can specify a default value for an option [source: S1]:');
    expect(answer.text).toContain("program.option('-c, --cheese <type>'");
    expect(answer.text).toMatch(/```js?\n/);
  });

  it('quotes the block a lead-in ending with a colon introduces, whatever the question asks', () => {
    const text = [
      '### Load time',
      '',
      'Time it takes for the module to load the first time (average of 3 runs):',
      '',
      '```',
      'enquirer: 4.013ms',
      'inquirer: 286.717ms',
      '```',
    ].join('\n');
    const answer = ask('How long does enquirer take to load?', [{ label: 'S1', text }]);
    expect(answer.text).toContain('(average of 3 runs) [source: S1]:');
    expect(answer.text).toContain('enquirer: 4.013ms');
  });

  it('does not quote code for a question that does not ask how', () => {
    const answer = ask('Is a required option checked?', [{ label: 'S1', text: OPTIONS }]);
    expect(answer.text).not.toContain('```');
  });

  it('keeps a "Default:" clause with its sentence and a list item whole', () => {
    const text = [
      '## RetryOptions',
      '',
      '- **statusCodes** `number[]` (optional) - Array of HTTP status codes to retry. Default: `[429, 500, 502, 503, 504]`',
      '- **maxRetries** `number` (optional) - Maximum number of retries. Default: `5`',
    ].join('\n');
    const answer = ask('Which status codes are retried by default?', [{ label: 'S1', text }]);
    expect(answer.text).toContain('[429, 500, 502, 503, 504]');
    const prose = ask('Which status codes are retried by default?', [
      { label: 'S1', text: 'Status codes to retry. Default: 429 and 503.' },
    ]);
    expect(prose.text).toContain('Default: 429 and 503');
  });

  it("quotes an option's field list (Type, Default) whole, named by the option's heading", () => {
    const text = [
      '#### concurrency',
      '',
      '* Type: `number`',
      '* Default: `os.cpus().length`',
      '',
      'Specifies the maximum number of concurrent requests. If you want quiet mode, set the value to `1`.',
      '',
      'Its pool size is 4 by default elsewhere. This allows `concurrency: 1` or `concurrency: Infinity`.',
    ].join('\n');
    const answer = ask('What is the default value of the concurrency option?', [
      { label: 'S1', text },
    ]);
    expect(answer.text).toMatch(/^concurrency: Type: `number`; Default: `os\.cpus\(\)\.length`/);
  });

  it('takes a value asked for as a default only from a unit that says it is the default', () => {
    const text = [
      '## deep',
      '',
      'The deep option value can be set to `2` or `3`.',
      '',
      'It defaults to Infinity.',
    ].join('\n');
    const answer = ask('What is the default value of the deep option?', [{ label: 'S1', text }]);
    expect(answer.text).toContain('It defaults to Infinity');
  });

  it('names the API a section is about when its first sentence does not', () => {
    const text = [
      '## `getSetCookies(headers)`',
      '',
      'Parses all `Set-Cookie` headers.',
      '',
      '## `deleteCookie(headers, name)`',
      '',
      'Sets the expiry time of the cookie to the unix epoch.',
    ].join('\n');
    const answer = ask('Which function parses Set-Cookie headers?', [{ label: 'S1', text }]);
    expect(answer.text).toBe(
      '`getSetCookies(headers)`: Parses all `Set-Cookie` headers [source: S1].',
    );
  });

  it('prefers the unit containing the literal the question quotes', () => {
    const text = [
      'Caret ranges allow changes that do not modify the left-most non-zero element.',
      '',
      '- `^1.2.3` := `>=1.2.3 <2.0.0-0`',
      '- `^0.2.3` := `>=0.2.3 <0.3.0-0`',
      '- `^0.2.3-beta.2` := `>=0.2.3-beta.2 <0.3.0-0` which allows prereleases of 0.2.3',
    ].join('\n');
    const answer = ask('What range does ^0.2.3 allow?', [{ label: 'S1', text }]);
    expect(answer.text.startsWith('`^0.2.3` := `>=0.2.3 <0.3.0-0` [source: S1].')).toBe(true);
  });

  it('quotes the rows of a table written without edge pipes for a "which" question', () => {
    const text = [
      'The retried statuses are listed below:',
      '',
      'Status | Retried | Why',
      '429 | yes | rate limited',
      '503 | yes | unavailable',
    ].join('\n');
    const answer = ask('Which statuses are retried?', [{ label: 'S1', text }]);
    expect(answer.text).toContain('429 | yes | rate limited');
    expect(answer.text).toContain('503 | yes | unavailable');
  });

  it("reads a table row by its columns: the default of `initial` is its row's Default cell", () => {
    const text = [
      '### AutoComplete Prompt',
      '',
      'Prompt that auto-completes as the user types.',
      '',
      'AutoComplete Options',
      '',
      'Option | Type | Default | Description',
      'multiple | boolean | false | Allow multiple choices to be selected.',
      'initial | number | 0 | Preselected item in the list of choices.',
      'footer | function | None | Function that displays footer text',
    ].join('\n');
    const other = [
      '### Prompt Options',
      '',
      'Property | Required? | Type | Description',
      'initial | no | string | The default value to return if the user does not supply a value.',
      'stdout | no | stream | The output stream. Defaults to process.stdout.',
    ].join('\n');
    const answer = ask('What is the default of the initial option in the AutoComplete prompt?', [
      { label: 'S1', text },
      { label: 'S2', text: other },
    ]);
    expect(answer.text).toBe(
      'initial — number — 0 — Preselected item in the list of choices [source: S1].',
    );
  });

  it('names the section a "which X" question asks for when its heading is an X', () => {
    const text = [
      '### Invisible Prompt',
      '',
      'Prompt that takes user input, hides it from the terminal, and returns a string.',
      '',
      '### Password Prompt',
      '',
      'Prompt that takes user input and masks it in the terminal.',
    ].join('\n');
    const answer = ask('Which prompt hides the user input from the terminal entirely?', [
      { label: 'S1', text },
    ]);
    expect(answer.text).toBe(
      'Invisible Prompt: Prompt that takes user input, hides it from the terminal, and returns a string [source: S1].',
    );
    // Not for a question that does not ask "which …", nor a heading of another kind of thing.
    expect(
      ask('What hides the user input from the terminal?', [{ label: 'S1', text }]).text,
    ).not.toContain('Invisible Prompt:');
    expect(
      ask('Which option hides the user input from the terminal?', [{ label: 'S1', text }]).text,
    ).not.toContain('Invisible Prompt:');
  });

  it("quotes one option of a command's help text, with its description", () => {
    const text = [
      '## Usage',
      '',
      'As a command-line utility:',
      '',
      '```',
      '$ semver -h',
      '',
      'Options:',
      '-r --range <range>',
      '        Print versions that match the specified range.',
      '',
      '-i --increment [<level>]',
      "        Increment a version by the specified level. Default level is 'patch'.",
      '',
      '--preid <identifier>',
      '        Identifier to be used to prefix premajor, preminor,',
      '        prepatch or prerelease version increments.',
      '```',
    ].join('\n');
    const answer = ask('Which one sets the prerelease identifier prefix?', [{ label: 'S1', text }]);
    expect(answer.text).toBe(
      '--preid <identifier>: Identifier to be used to prefix premajor, preminor, prepatch or prerelease version increments [source: S1].',
    );
  });

  it('quotes sibling list items that state different values, however many words they share', () => {
    const text = [
      '#### Hyphen Ranges',
      '',
      'Specifies an inclusive set.',
      '',
      '* `1.2.3 - 2.3.4` := `>=1.2.3 <=2.3.4`',
      '',
      'If a partial version is provided as the first version in the inclusive range, then the missing pieces are replaced with zeroes.',
      '',
      '* `1.2 - 2.3.4` := `>=1.2.0 <=2.3.4`',
    ].join('\n');
    const answer = ask('What does the hyphen range `1.2.3 - 2.3.4` mean?', [{ label: 'S1', text }]);
    expect(answer.text).toContain('`1.2.3 - 2.3.4` := `>=1.2.3 <=2.3.4` [source: S1].');
    expect(answer.text).toContain('`1.2 - 2.3.4` := `>=1.2.0 <=2.3.4` [source: S1].');
  });

  it('reads intents and literals from the question', () => {
    expect(intentsOf('How do I parse cookies?')).toEqual(['how-to']);
    expect(intentsOf('What is the default timeout?')).toEqual(['value']);
    expect(intentsOf('Which method closes the pool?')).toEqual(['api']);
    expect(intentsOf('What is a dispatcher?')).toEqual(['definition']);
    expect(questionLiterals('Does `keepAliveTimeout` allow ^0.2.3 or Set-Cookie? e')).toEqual([
      'keepalivetimeout',
      '^0.2.3',
      'set-cookie',
    ]);
  });

  it('survives hostile sources and questions', () => {
    const hostile = [
      '`'.repeat(10_000),
      '```\n'.repeat(5_000),
      '- '.repeat(10_000),
      '| '.repeat(10_000),
      'a\u0000b \ud800 How do I x?',
    ];
    for (const text of hostile) {
      const answer = ask(`How do I ${text.slice(0, 200)}?`, [{ label: 'S1', text }]);
      expect(typeof answer.text).toBe('string');
    }
  });
});

describe('an API section opening with its type line', () => {
  it('names the heading before the description under the type line for a how-to', () => {
    const text = [
      '#### command.example(example)',
      '',
      '- Type: `(example: CommandExample) => Command`',
      '',
      'Add an example which will be displayed at the end of help message.',
      '',
      '```ts',
      'type CommandExample = ((name: string) => string) | string',
      '```',
    ].join('\n');
    const answer = ask('How do I add an example to the end of the help message?', [
      { label: 'S1', text },
    ]);
    expect(answer.text).toMatch(/^command\.example\(example\): Add an example/);
  });
});
