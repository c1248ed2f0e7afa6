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

  it('quotes an example run on the very input the question quotes', () => {
    const text = [
      '#### `isDynamicPattern(pattern, [options])`',
      '',
      'Returns `true` if the passed pattern is a dynamic pattern.',
      '',
      '```js',
      "fg.isDynamicPattern('*'); // true",
      "fg.isDynamicPattern('abc'); // false",
      '```',
    ].join('\n');
    const answer = ask("What does isDynamicPattern return for the pattern 'abc'?", [
      { label: 'S1', text },
    ]);
    expect(answer.text).toContain("fg.isDynamicPattern('abc'); // false");
    // Without a quoted input, code is still not quoted for a question that does not ask how.
    expect(ask('What does isDynamicPattern return?', [{ label: 'S1', text }]).text).not.toContain(
      '```',
    );
  });

  it('quotes an example run on a pattern the question writes bare', () => {
    const text = [
      '#### braceExpansion',
      '',
      '- Type: boolean',
      '- Default: true',
      '',
      'Enables Bash-like brace expansion.',
      '',
      '```js',
      "fg.sync('a{b,c}d', { braceExpansion: false }); // ['a{b,c}d']",
      "fg.sync('a{b,c}d', { braceExpansion: true });  // ['abd', 'acd']",
      '```',
    ].join('\n');
    const answer = ask('What does a{b,c}d match with brace expansion?', [{ label: 'S1', text }]);
    expect(answer.text).toContain("// ['abd', 'acd']");
  });

  it("does not file a README's units under the package name every source shares", () => {
    const title = 'fast-glob';
    const sources = [
      {
        label: 'S1',
        title,
        section: `${title} › Pattern syntax`,
        text: [
          '## Pattern syntax',
          '',
          ':warning: Always use forward-slashes in glob expressions (patterns and ignore option). Use backslashes for escaping characters.',
          '',
          'There is more than one form of syntax: basic and advanced. Below is a brief overview of the supported features. Also pay attention to our FAQ.',
          '',
          ':book: This package uses micromatch as a library for pattern matching.',
        ].join('\n'),
      },
      {
        label: 'S2',
        title,
        section: title,
        text: [
          '# fast-glob',
          '',
          "It's a very fast and efficient glob library for Node.js.",
          '',
          'This package provides methods for traversing the file system and returning pathnames that matched a defined set of a specified pattern according to the rules used by the Unix Bash shell with some simplifications, meanwhile results are returned in arbitrary order. Quick, simple, effective.',
        ].join('\n'),
      },
      {
        label: 'S3',
        title,
        section: `${title} › How to write patterns on Windows?`,
        text: [
          '## How to write patterns on Windows?',
          '',
          'Always use forward-slashes in glob expressions (patterns and ignore option). Use backslashes for escaping characters. With the cwd option use a convenient format.',
          '',
          'Bad',
          '',
          '```ts',
          '[',
          "\t'directory\\\\*',",
          "\tpath.join(process.cwd(), '**')",
          ']',
          '```',
          '',
          'Good',
          '',
          '```ts',
          '[',
          "\t'directory/*',",
          "\tfg.convertPathToPattern(process.cwd()) + '/**'",
          ']',
          '```',
          '',
          ':book: Use the .convertPathToPattern package to convert Windows-style path to a Unix-style path.',
          '',
          'Read more about matching with backslashes.',
        ].join('\n'),
      },
    ];
    const question = 'Which library does fast-glob use for pattern matching?';
    expect(ask(question, sources).text).toContain('This package uses micromatch');
    // Chunks of two documents are told apart by their titles as before.
    const two = [sources[0]!, { ...sources[1]!, title: 'fast-glob (README)' }, sources[2]!];
    expect(ask(question, two).text).not.toContain('micromatch');
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

  it('quotes a lead-in with the run of code blocks under it (a tree, then the call on it)', () => {
    const text = [
      '#### dot',
      '',
      'Note that an explicit dot in a pattern will always match dot files:',
      '',
      '```js',
      'dir/',
      '├── .editorconfig',
      '└── package.json',
      '```',
      '',
      '```js',
      "fg.sync('*', { dot: true });  // ['.editorconfig', 'package.json']",
      '```',
    ].join('\n');
    const answer = ask('How do I make patterns match dot files?', [{ label: 'S1', text }]);
    expect(answer.text).toContain('├── .editorconfig');
    expect(answer.text).toContain('{ dot: true }');
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

  it('files an option list item under the option it names', () => {
    const property = [
      '### Client.pipelining',
      '',
      '- number',
      '',
      'Property to get and set the pipelining factor.',
    ].join('\n');
    const options = [
      '- maxFragments number (optional) - Default: 131072 - Maximum number of fragments in a message. Set to 0 to disable the limit.',
      '- pipelining number | null (optional) - Default: 1 - The amount of concurrent requests to be sent over the single TCP/TLS connection according to RFC7230. Carefully consider your workload and environment before enabling concurrent requests as pipelining may reduce performance if used incorrectly. Pipelining is sensitive to network stack settings as well as head of line blocking caused by e.g. long running requests. Set to 0 to disable keep-alive connections.',
      '- interceptors { Client: DispatchInterceptor[] } - Default: [RedirectInterceptor] - A list of interceptors that are applied to the dispatch method. Additional logic can be applied (such as, but not limited to: 302 status code handling, authentication, cookies, compression and caching). Note that the behavior of interceptors is Experimental and might change at any given time. Note: this is deprecated in favor of Dispatcher#compose. Support will be droped in next major.',
    ].join('\n');
    const title = 'Class: Client';
    const answer = ask('What is the default pipelining factor of a Client?', [
      { label: 'S1', title, text: property, section: `${title} › Client.pipelining` },
      { label: 'S2', title, text: options, section: `${title} › Parameter: ClientOptions` },
    ]);
    // The pipelining item is quoted before another option's "Default:".
    expect(answer.text.indexOf('pipelining number')).toBeLessThan(
      answer.text.indexOf('interceptors'),
    );
    expect(answer.text).toContain('pipelining number | null (optional) - Default: 1 -');
  });

  it('quotes the row the question names before the table its lead-in introduces', () => {
    const text = [
      '#### Properties',
      '',
      'Array prompts have the following instance properties and getters.',
      '',
      'Property name | Type | Description',
      'choices | array | Array of choices that have been normalized from the options.',
      'cursor | number | Position of the cursor relative to the user input.',
      'limit | number | The number of choices to display on-screen.',
      'visible | array | The choices that are on-screen.',
    ].join('\n');
    const answer = ask('What does the limit property of an array prompt hold?', [
      { label: 'S1', text },
    ]);
    expect(answer.text).toMatch(
      /^limit — number — The number of choices to display on-screen \[source: S1\]\./,
    );
    // Without a row named, the lead-in still brings its table.
    expect(ask('Which properties do array prompts have?', [{ label: 'S1', text }]).text).toContain(
      'cursor | number |',
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

  it('answers a how-to with the sentence that says what to do for the goal asked about', () => {
    const first = [
      '## Variables',
      '',
      'All variables are HTML-escaped by default. If you want to render unescaped HTML, use the triple mustache: `{{{name}}}`.',
    ].join('\n');
    const second = [
      '## Include Templates',
      '',
      'Render a template in a page with a mustache template tag:',
      '',
      '```html',
      '<script id="template" type="x-tmpl-mustache">Hello {{ name }}!</script>',
      '```',
    ].join('\n');
    const answer = ask('How do I render unescaped HTML in a mustache template?', [
      { label: 'S1', text: first },
      { label: 'S2', text: second },
    ]);
    expect(answer.text.startsWith('If you want to render unescaped HTML, use the triple')).toBe(
      true,
    );
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

describe('a code block opening its section', () => {
  it('is introduced by its heading: "## Install" over the command answers how to install', () => {
    const install = ['## Install', '', '```bash', 'yarn add cac', '```'].join('\n');
    const typescript = [
      '### With TypeScript',
      '',
      'First you need @types/node to be installed as a dev dependency in your project:',
      '',
      '```bash',
      'yarn add @types/node --dev',
      '```',
      '',
      'Then everything just works out of the box:',
      '',
      '```js',
      "const { cac } = require('cac')",
      '```',
    ].join('\n');
    const instance = [
      '### CLI Instance',
      '',
      'CLI instance is created by invoking the cac function:',
      '',
      '```js',
      "const cac = require('cac')",
      'const cli = cac()',
      '```',
    ].join('\n');
    const answer = ask('How do I install cac?', [
      { label: 'S1', text: install },
      { label: 'S2', text: typescript },
      { label: 'S3', text: instance },
    ]);
    expect(answer.text).toContain('yarn add cac');
    expect(answer.text).not.toContain('@types/node');
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
