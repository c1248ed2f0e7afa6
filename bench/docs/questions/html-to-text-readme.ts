/**
 * Questions on html-to-text's README (one file: options tables with a "Default" column and a
 * description that does not repeat the value, tables of selectors and formats, a table of
 * removed options with their replacements, lists of rules and formatter arguments, code
 * examples). Written and committed before the engine was run on it (issue 26, round 10, task
 * `signals10`). Split: unanswerable, off-topic and follow-up questions alternate (even
 * positions tune, odd test); answerable ones alternate within each answer kind (`splitsByKind`
 * in `../grade.ts`).
 */
import type { QuestionSet } from './types.js';

const README = ['README.md'];

export const htmlToTextReadme: QuestionSet = {
  corpus: 'html-to-text-readme',
  source: 'html-to-text@9.0.5, README.md (MIT)',
  answerable: [
    {
      question: 'How do I install html-to-text?',
      fact: '`npm install html-to-text`',
      files: README,
      pattern: /npm install html-to-text/,
      kind: 'code',
    },
    {
      question: 'What is the default line length for word wrapping?',
      fact: '`wordwrap` | `80`',
      files: README,
      pattern: /\b80\b/,
      kind: 'table',
    },
    {
      question: 'How do I turn off word wrapping?',
      fact: 'Set `wordwrap` to `null` or `false` to disable word-wrapping.',
      files: README,
      pattern: /null`?\W+or\W+`?false/i,
      kind: 'table',
    },
    {
      question: 'Which function should I use to convert many documents with the same options?',
      fact: '`compile(options)` returns a `compiledConvert` function',
      files: README,
      pattern: /\bcompile\b/,
      kind: 'code',
    },
    {
      question: 'What other name does the convert function have?',
      fact: 'There is also an alias to `convert` called `htmlToText`.',
      files: README,
      pattern: /htmlToText/,
      kind: 'code',
    },
    {
      question: 'What is the default value of limits.maxInputLength?',
      fact: '`16_777_216`',
      files: README,
      pattern: /16_?777_?216/,
      kind: 'table',
    },
    {
      question: 'Which string is inserted in place of skipped content by default?',
      fact: "`limits.ellipsis` | `'...'`",
      files: README,
      pattern: /'\.\.\.'/,
      kind: 'table',
    },
    {
      question: 'Does html-to-text keep the newlines of the input HTML by default?',
      fact: 'No: newlines are collapsed into space unless `preserveNewlines` is `true`',
      files: README,
      pattern: /collapsed into space|preserveNewlines`?\W+`?false/i,
      kind: 'table',
    },
    {
      question: 'Which selector wins when several selectors of equal specificity match?',
      fact: 'the last selector is used when there are multiple matches of equal specificity',
      files: README,
      pattern: /last selector|last one/i,
      kind: 'list',
    },
    {
      question: 'Which selector combinators are supported?',
      fact: '`+` and `>` combinators (other combinators are not supported)',
      files: README,
      pattern: /\+`?\s+and\s+`?>/,
      kind: 'list',
    },
    {
      question: 'How do I make the converter leave out an element and its contents?',
      fact: "`{ selector: 'a.button', format: 'skip' }` (the `skip` format)",
      files: README,
      pattern: /\bskip\b/i,
      kind: 'code',
    },
    {
      question: 'Which format do img tags get by default?',
      fact: '`img` | `image`',
      files: README,
      pattern: /img`?\W+`?image|`image`/,
      kind: 'table',
    },
    {
      question: 'Which format should I use for tables that hold tabular data?',
      fact: '`dataTable`',
      files: README,
      pattern: /dataTable/,
      kind: 'table',
    },
    {
      question: 'What is the default prefix of unordered list items?',
      fact: "`itemPrefix` | `' * '`",
      files: README,
      pattern: /' \* '/,
      kind: 'table',
    },
    {
      question: 'Does html-to-text change the case of headings?',
      fact: 'By default, headings are uppercased (`uppercase` | `true`)',
      files: README,
      pattern: /are uppercased|uppercase`?\W+`?true/i,
      kind: 'table',
    },
    {
      question: 'What is the default maximum width of a data table column?',
      fact: '`maxColumnWidth` | `60`',
      files: README,
      pattern: /\b60\b/,
      kind: 'table',
    },
    {
      question: 'How many spaces separate the columns of a data table by default?',
      fact: '`colSpacing` | `3`',
      files: README,
      pattern: /colSpacing`?\W+`?3\b|\b3`?\s+spaces/,
      kind: 'table',
    },
    {
      question: 'Which arguments does a custom formatter function receive?',
      fact: '`elem`, `walk`, `builder`, `formatOptions`',
      files: README,
      pattern: /elem[\s\S]*walk[\s\S]*builder[\s\S]*formatOptions/,
      kind: 'list',
    },
    {
      question: 'How can a formatter read the metadata passed to convert?',
      fact: '`builder.metadata`',
      files: README,
      pattern: /builder\.metadata/,
      kind: 'prose',
    },
    {
      question: 'How do I pass a metadata object to convert?',
      fact: '`convert(html, options, metadata)`',
      files: README,
      pattern: /convert\(html, options, metadata\)|compiledConvert\(html, metadata\)/,
      kind: 'code',
    },
    {
      question: 'Which packages does html-to-text rely on for selector support?',
      fact: 'parseley and selderee',
      files: README,
      pattern: /parseley[\s\S]*selderee|selderee[\s\S]*parseley/,
      kind: 'prose',
    },
    {
      question: 'What should I use instead of the removed ignoreImage option?',
      fact: "`selectors: [ { selector: 'img', format: 'skip' } ]`",
      files: README,
      pattern: /selector: 'img', format: 'skip'/,
      kind: 'table',
    },
    {
      question: 'In which version was the command-line interface moved to a separate package?',
      fact: 'Version 9',
      files: README,
      pattern: /Version 9/i,
      kind: 'prose',
    },
    {
      question: 'Who created html-to-text?',
      fact: '@mlegenhausen - creator',
      files: README,
      pattern: /mlegenhausen/,
      kind: 'list',
    },
    {
      question: 'How is a link written in the text output?',
      fact: "`<a href='link'>text</a>` => becomes => `text [link]`",
      files: README,
      pattern: /text \[link\]/,
      kind: 'table',
    },
    {
      question: 'Which elements are converted when baseElements.selectors is not set?',
      fact: "`baseElements.selectors` | `['body']`",
      files: README,
      pattern: /'body'/,
      kind: 'table',
    },
    {
      question: 'What does the noAnchorUrl option do?',
      fact: "Ignore anchor links (where `href='#...'`).",
      files: README,
      pattern: /anchor links|href='#/i,
      kind: 'table',
    },
  ],
  unanswerable: [
    'Can html-to-text convert plain text back into HTML?',
    'Does html-to-text print CSS colors as ANSI colors in the terminal?',
    'How do I convert a PDF file to text with html-to-text?',
    'Does html-to-text run the JavaScript inside script tags?',
    'How do I convert HTML to Markdown with html-to-text?',
    'How many megabytes of HTML can html-to-text convert per second?',
    'Does html-to-text work in Deno?',
  ],
  offTopic: [
    'What is the capital city of Australia?',
    'How long should I boil an egg for a soft yolk?',
    'Who wrote the novel War and Peace?',
    'How many moons does Mars have?',
  ],
  followUps: [
    {
      turns: ['What does the maxColumnWidth option do?', 'What is its default?'],
      fact: '`maxColumnWidth` | `60`',
      files: README,
      pattern: /\b60\b/,
      kind: 'table',
    },
    {
      turns: ['How do I install html-to-text?', 'How do I convert a single document with it?'],
      fact: '`const text = convert(html, options);`',
      files: README,
      pattern: /convert\(html, options\)/,
      kind: 'code',
    },
    {
      turns: [
        'What is the dataTable format for?',
        'How many empty lines does it put between rows by default?',
      ],
      fact: '`rowSpacing` | `0`',
      files: README,
      pattern: /rowSpacing`?\W+`?0\b|\b0`?\s+empty lines/,
      kind: 'table',
    },
    {
      turns: ['Which options does the anchor format have?', 'Which one ignores all links?'],
      fact: '`ignoreHref`',
      files: README,
      pattern: /ignoreHref/,
      kind: 'table',
    },
    {
      turns: [
        'Are headings uppercased?',
        'And how do I keep the header cells of data tables as they are?',
      ],
      fact: '`uppercaseHeaderCells`: set this to `false`',
      files: README,
      pattern: /uppercaseHeaderCells/,
      kind: 'table',
    },
  ],
};
