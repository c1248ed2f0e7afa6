/**
 * Questions on sade's README (one README of a command-line library: facts in `js` code blocks
 * of `prog.command(…).option(…)` chains, help-text blocks whose option rows carry
 * "(default X)", an API reference of `Type:`/`Default:` lines under `####` headings, bold
 * bullet tips with italic explanations, and `> **Note:**` quotes). Written and committed before
 * the engine was run on it (issue 26, round 14, task `answers16`). Split: unanswerable,
 * off-topic and follow-up questions alternate (even positions tune, odd test); answerable ones
 * alternate within each answer kind (`splitsByKind` in `../grade.ts`).
 */
import type { QuestionSet } from './types.js';

const README = ['readme.md'];

/** "Give an option a default value": the third argument of `.option(…)`, or its `value` entry. */
const OPTION_DEFAULT =
  /\.option\('[^'\n]*', '[^'\n]*', [^)\n]+\)|value`?[^.\n]{0,40}\bdefault\b\*{0,2} value for the Option/i;

export const sadeReadme: QuestionSet = {
  corpus: 'sade-readme',
  source: 'sade@1.8.1, readme.md (MIT)',
  answerable: [
    {
      question: 'How do I install sade?',
      fact: '`$ npm install --save sade`',
      files: README,
      pattern: /npm install --save sade/,
      kind: 'code',
    },
    {
      question: 'What is the default value of the isSingle argument?',
      fact: "Default: `name.includes(' ');`",
      files: README,
      pattern: /name\.includes\(' '\)/,
      kind: 'default',
    },
    {
      question: "What is my program's version if I never set one?",
      fact: 'Default: `0.0.0`',
      files: README,
      pattern: /0\.0\.0/,
      kind: 'default',
    },
    {
      question: 'What is the default value of the lazy option of prog.parse?',
      fact: 'Default: `false`',
      files: README,
      pattern: /\bfalse\b/,
      kind: 'default',
    },
    {
      question: "What is the default of a command's desc argument?",
      fact: "Default: `''`",
      files: README,
      pattern: /''|empty string/i,
      kind: 'default',
    },
    {
      question: 'How are required arguments written in a command usage pattern?',
      fact: 'wrapped with `<` and `>` characters; for example, `<foo>` and `<bar>`',
      files: README,
      pattern: /<foo>|`<` and `>`|\B< and >\B/,
      kind: 'prose',
    },
    {
      question: 'How are optional arguments written in a command usage pattern?',
      fact: 'wrapped with `[` and `]` characters; for example, `[foo]` and `[bar]`',
      files: README,
      pattern: /\[foo\]|`\[` and `\]`/,
      kind: 'prose',
    },
    {
      question: 'What happens when a required argument is missing?',
      fact: 'An `Insufficient arguments!` error will be displayed along with a help prompt',
      files: README,
      pattern: /Insufficient arguments/,
      kind: 'list',
    },
    {
      question: 'How do I give an option a default value?',
      fact: "pass it as the third argument: `.option('-c, --config', 'Provide path to custom config', 'foo.config.js')`",
      files: README,
      pattern: OPTION_DEFAULT,
      kind: 'code',
    },
    {
      question: 'How do I make a command run when no command is specified?',
      fact: "`prog.command('howdy', '', { default:true })`",
      files: README,
      pattern: /default:\s*true/,
      kind: 'code',
    },
    {
      question: 'How do I define aliases for a command?',
      fact: "`.alias('hi', 'howdy')` or `{ alias: ['hey', 'yo'] }`",
      files: README,
      pattern: /\.alias\('|alias:\s*\[?'/,
      kind: 'code',
    },
    {
      question: 'Which error does the program exit with when no command is given?',
      fact: 'a `No command specified` error',
      files: README,
      pattern: /No command specified/,
      kind: 'prose',
    },
    {
      question: 'What happens if I call prog.command in Single Command Mode?',
      fact: '`prog.command` calls are disallowed & will instead throw an Error',
      files: README,
      pattern: /throw an Error|disallowed/i,
      kind: 'prose',
    },
    {
      question: 'Which flags print the program version?',
      fact: 'The `--version` and `-v` flags',
      files: README,
      pattern: /--version`?\s+and\s+`?-v\b|-v, --version/,
      kind: 'prose',
    },
    {
      question: 'Which flags display the help text?',
      fact: 'the `--help` and `-h` flags',
      files: README,
      pattern: /--help`?\s+and\s+`?-h\b|-h, --help/,
      kind: 'prose',
    },
    {
      question: 'Should I slice process.argv before passing it to prog.parse?',
      fact: 'Do not `.slice(2)`! Doing so will break parsing',
      files: README,
      pattern: /break parsing|do not[^.\n]*slice/i,
      kind: 'prose',
    },
    {
      question: 'What does prog.parse return when lazy is enabled?',
      fact: 'an object of `{ name, args, handler }` shape',
      files: README,
      pattern: /\{ ?name, args, handler ?\}/,
      kind: 'prose',
    },
    {
      question: 'What is the unknown option of prog.parse for?',
      fact: 'Callback to run when an unspecified option flag has been found',
      files: README,
      pattern: /unspecified option flag|unknown flag/i,
      kind: 'prose',
    },
    {
      question: 'Where does an action handler receive the options?',
      fact: 'All options, flags, and extra/unknown values are included as the last parameter',
      files: README,
      pattern: /last parameter/i,
      kind: 'prose',
    },
    {
      question: "How much of a command's description does the general help show?",
      fact: 'only the first sentence',
      files: README,
      pattern: /only\W+(?:\w+\W+){0,2}first sentence|first sentence[^.\n]{0,40}general/i,
      kind: 'prose',
    },
    {
      question: 'Do global options print before or after local options?',
      fact: 'Global options print before local options.',
      files: README,
      pattern: /Global options print before local/i,
      kind: 'list',
    },
    {
      question: 'Does sade sort my commands and options?',
      fact: 'Sade will not mutate or sort your CLI for you',
      files: README,
      pattern: /not mutate or sort/i,
      kind: 'list',
    },
    {
      question: 'What is the default output file name of the build command in the usage example?',
      fact: "`.option('-o, --output', 'Change the name of the output file', 'bundle.js')`",
      files: README,
      pattern: /bundle\.js/,
      kind: 'code',
    },
    {
      question: 'Which port does the sirv example bind by default?',
      fact: "`.option('-p, --port', 'Port to bind', 5000)`",
      files: README,
      pattern: /\b5000\b/,
      kind: 'code',
    },
    {
      question: 'Which aliases does the npm example give the install command?',
      fact: "`alias: ['i', 'add', 'isntall']`",
      files: README,
      pattern: /\bi\b[\s\S]{0,30}\badd\b[\s\S]{0,30}\bisntall\b/,
      kind: 'code',
    },
    {
      question: "Do I have to define a subcommand's base as its own command?",
      fact: 'it is _not_ necessary to define the subcommand\'s "base" as an additional command',
      files: README,
      pattern: /not[\W_]*necessary/i,
      kind: 'prose',
    },
    {
      question: 'What happens when I call prog.alias several times for one command?',
      fact: '`prog.alias()` is append-only: it keeps all aliases',
      files: README,
      pattern: /append-only|keep\W*all aliases/i,
      kind: 'prose',
    },
    {
      question: 'What is the default value of the cmd argument of prog.help?',
      fact: 'Default: `null`',
      files: README,
      pattern: /\bnull\b/,
      kind: 'default',
    },
  ],
  unanswerable: [
    'How do I add colors to the help output of sade?',
    'Which Node.js versions does sade support?',
    'How do I generate shell completion scripts with sade?',
    'How do I read option values from environment variables with sade?',
    'How do I prompt the user interactively for a missing argument?',
    'How do I test a sade program with a unit test runner?',
  ],
  offTopic: [
    'What is the capital of Australia?',
    'How many bones are in the adult human body?',
    'Who painted the Mona Lisa?',
  ],
  followUps: [
    {
      turns: ['What does the lazy option of prog.parse do?', 'What is its default?'],
      fact: 'Default: `false`',
      files: README,
      pattern: /\bfalse\b/,
      kind: 'default',
    },
    {
      turns: ['How do I create a command with sade?', 'How do I give it aliases?'],
      fact: "`.alias('hi', 'howdy')` or `{ alias: ['hey', 'yo'] }`",
      files: README,
      pattern: /\.alias\('|alias:\s*\[?'/,
      kind: 'code',
    },
    {
      turns: ['What is Single Command Mode?', 'How do I enable it?'],
      fact: "the `isSingle` argument: `sade('sirv [dir]', true)`",
      files: README,
      pattern: /isSingle|sade\('[^'\n]*', true\)/,
      kind: 'prose',
    },
    {
      turns: ['What does prog.version do?', 'What is the version if I never call it?'],
      fact: 'Default: `0.0.0`',
      files: README,
      pattern: /0\.0\.0/,
      kind: 'default',
    },
    {
      turns: ['How do I add an option to a command?', 'How do I give it a default value?'],
      fact: "the third argument, `value`: `.option('-p, --port', 'Port to bind', 5000)`",
      files: README,
      pattern: OPTION_DEFAULT,
      kind: 'code',
    },
    {
      turns: ['What does opts.unknown of prog.parse do?', 'What does it receive as its argument?'],
      fact: 'Your handler will receive the unknown flag (string) as its only argument.',
      files: README,
      pattern: /unknown flag \(string\)|only argument/,
      kind: 'prose',
    },
    {
      turns: ['How do I make a command the default one?', 'What happens if I do not?'],
      fact: 'your Program will exit with a `No command specified` error',
      files: README,
      pattern: /No command specified/,
      kind: 'prose',
    },
  ],
};
