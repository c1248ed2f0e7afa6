import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/adapters/extractive/provider.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';

const ask = (question: string, sources: PromptSource[]) =>
  composeAnswer({ messages: [{ role: 'user', content: question }], sources }).text;

// Two chunks of this repository's docs/configuration.md (shortened), as retrieval returns them
// for "What is the default chunkSize?" (the loader drops inline code marks): the chunker
// section first, the settings table second.
const CONFIGURATION: PromptSource[] = [
  {
    label: 'S1',
    text: '## Chunking\n\nchunking.chunker is a function (document, { tokenizer, chunkSize, chunkOverlap }) => chunks\n(it may be async). Each chunk has text and optionally heading.\n\n| chunker | how it cuts | good for |\n| --- | --- | --- |\n| tokenChunker() (default) | at every heading, then packs whole paragraphs, sentences and code fences up to chunkSize tokens | most prose and markdown |\n| fixedSizeChunker({ size, overlap }) | windows of size tokens (default chunkSize) with overlap tokens | text without structure |',
    title: 'Configuration',
    section: 'Configuration › Chunking',
  },
  {
    label: 'S2',
    text: "## Settings\n\n| key | default | meaning |\n| --- | --- | --- |\n| namespace | 'default' | tenant scope of every store call |\n| chunking.chunkSize | 512 | most tokens per chunk (16–8192) |\n| chunking.chunkOverlap | 64 | tokens of whole sentences repeated from the previous chunk (< chunkSize) |",
    title: 'Configuration',
    section: 'Configuration › Settings',
  },
];

// Two chunks of fast-glob's README (bench/docs/corpora/fast-glob-readme, MIT), as retrieval
// returned them for the question below.
const FAST_GLOB: PromptSource[] = [
  {
    label: 'S1',
    text: "#### isDynamicPattern(pattern, [options])\n\nReturns true if the passed pattern is a dynamic pattern.\n\n:1234: What is a static or dynamic pattern?\n\n```js\nfg.isDynamicPattern('*'); // true\nfg.isDynamicPattern('abc'); // false\n```",
    title: 'fast-glob',
    section: 'fast-glob › API › Helpers › isDynamicPattern(pattern, [options])',
  },
  {
    label: 'S2',
    text: '##### pattern\n\n- Required: true\n- Type: string\n\nAny correct pattern.',
    title: 'fast-glob',
    section: 'fast-glob › API › Helpers › isDynamicPattern(pattern, [options]) › pattern',
  },
];

// Four chunks of cac's README (bench/docs/corpora/cac-readme, MIT), as retrieval returned them for
// the follow-up below.
const CAC: PromptSource[] = [
  {
    label: 'S1',
    text: '#### command.allowUnknownOptions()\n\n- Type: () => Command\n\nAllow unknown options in this command, by default CAC will log an error when unknown options are used.',
    title: 'Introduction',
    section: 'References › Command Instance › command.allowUnknownOptions()',
  },
  {
    label: 'S2',
    text: "### Command-specific Options\n\nYou can attach options to a command.\n\n```js\nconst cli = require('cac')()\n\ncli\n  .command('rm <dir>', 'Remove a dir')\n  .option('-r, --recursive', 'Remove recursively')\n  .action((dir, options) => {\n    console.log('remove ' + dir + (options.recursive ? ' recursively' : ''))\n  })\n\ncli.help()\n\ncli.parse()\n```\n\nA command's options are validated when the command is used. Any unknown options will be reported as an error. However, if an action-based command does not define an action, then the options are not validated. If you really want to use unknown options, use command.allowUnknownOptions.\n\ncommand options",
    title: 'Introduction',
    section: 'Usage › Command-specific Options',
  },
  {
    label: 'S3',
    text: "#### cli.command(name, description, config?)\n\n- Type: (name: string, description: string) => Command\n\nCreate a command instance.\n\nThe option also accepts a third argument config for additional command config:\n\n- config.allowUnknownOptions: boolean Allow unknown options in this command.\n- config.ignoreOptionDefaultValue: boolean Don't use the options's default value in parsed options, only display them in help message.",
    title: 'Introduction',
    section: 'References › CLI Instance › cli.command(name, description, config?)',
  },
  {
    label: 'S4',
    text: '#### cli.parse(argv?)\n\n- Type: (argv = process.argv) => ParsedArgv\n\n```ts\ninterface ParsedArgv {\n  args: string[]\n  options: {\n    [k: string]: any\n  }\n}\n```\n\nWhen this method is called, cli.rawArgs cli.args cli.options cli.matchedCommand will also be available.',
    title: 'Introduction',
    section: 'References › CLI Instance › cli.parse(argv?)',
  },
];

describe('a unit is read with the words of the identifiers it names', () => {
  // Holds without the identifier words too (the row's Default column answers it): what the
  // README's "What is the default chunk size?" lacks is retrieval of this row, not its reading.
  it('answers "chunk size" with the row of `chunkSize` once retrieval gives it', () => {
    expect(ask('What is the default chunk size?', CONFIGURATION)).toMatch(
      /^chunking\.chunkSize — 512 — most tokens per chunk/,
    );
  });

  it('quotes the example of a function the question names in words and in code', () => {
    expect(ask("What does isDynamicPattern return for the pattern 'abc'?", FAST_GLOB)).toContain(
      "fg.isDynamicPattern('abc'); // false",
    );
  });

  it('does not cut a word that is not an identifier', () => {
    // `iPhone` keeps one term: "phone" does not make the sentence about phones.
    const text = ask('Which phone models are supported?', [
      {
        label: 'S1',
        text: 'The iPhone app syncs notes. Supported phone models: Pixel 8 and Galaxy S24.',
        title: 'Devices',
      },
    ]);
    expect(text).toMatch(/^Supported phone models: Pixel 8 and Galaxy S24/);
  });

  it("answers a follow-up from the section whose heading's identifier it spells out", () => {
    // The follow-up's own words ("unknown options", "call") are the words of
    // `command.allowUnknownOptions()`, the heading of S1.
    const text = composeAnswer({
      messages: [
        { role: 'user', content: 'What does `command.allowUnknownOptions()` do?' },
        {
          role: 'assistant',
          content:
            'command.allowUnknownOptions(): Allow unknown options in this command [source: S1].',
        },
        { role: 'user', content: 'What happens with unknown options when I do not call it?' },
      ],
      retrievalQuery: 'unknown options call command allowunknownoptions',
      sources: CAC,
    }).text;
    expect(text).toMatch(/^command\.allowUnknownOptions\(\)/);
    expect(text).toContain('by default CAC will log an error when unknown options are used');
  });
});
