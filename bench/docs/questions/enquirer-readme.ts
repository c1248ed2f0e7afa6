/**
 * Questions on enquirer's README (one large file written in HTML and Markdown: options tables
 * with a "Default" column, key binding tables whose keys are `<kbd>` tags, headings that are
 * links or start with "❯", `**Returns**:` lines, many near-identical code examples). Written and
 * committed before the engine was run on it. Split: unanswerable, off-topic and follow-up
 * questions alternate (even positions tune, odd test); answerable ones alternate within each
 * answer kind (`splitsByKind` in `../grade.ts`).
 */
import type { QuestionSet } from './types.js';

const README = ['README.md'];

export const enquirerReadme: QuestionSet = {
  corpus: 'enquirer-readme',
  source: 'enquirer@2.4.1, README.md (MIT)',
  answerable: [
    {
      question: 'How do I install enquirer with yarn?',
      fact: '`yarn add enquirer`',
      files: README,
      pattern: /yarn add enquirer/,
      kind: 'code',
    },
    {
      question: 'Which version of Node.js does enquirer require?',
      fact: 'Node.js 8.6 or higher',
      files: README,
      pattern: /8\.6/,
      kind: 'prose',
    },
    {
      question: 'What is the default value of the multiple option of the AutoComplete prompt?',
      fact: '`multiple` | `boolean` | `false`',
      files: README,
      pattern: /boolean`?\W+`?false|default\w*\W+(?:is\W+|value\W+)?`?false/i,
      kind: 'table',
    },
    {
      question: 'What is the default of the initial option in the AutoComplete prompt?',
      fact: '`initial` | `number` | 0',
      files: README,
      pattern: /(?:number`?\W+|default\w*\W+(?:is\W+|value\W+)?)`?0\b(?![,.\d])/i,
      kind: 'table',
    },
    {
      question: 'Which key combination resets a prompt to its initial state?',
      fact: '<kbd>ctrl</kbd> + <kbd>g</kbd>',
      files: README,
      pattern: /ctrl[^|\n]{0,30}\bg\b/i,
      kind: 'table',
    },
    {
      question: 'How do I cancel a prompt from the keyboard?',
      fact: '<kbd>ctrl</kbd> + <kbd>c</kbd>',
      files: README,
      pattern: /ctrl[^|\n]{0,30}\bc\b/i,
      kind: 'table',
    },
    {
      question: 'Which properties of a question object are required?',
      fact: '`type`, `name` and `message`',
      files: README,
      pattern:
        /required\W+type\b[\s\S]*\bname\b[\s\S]*\bmessage\b|type`?\W+yes[\s\S]*name`?\W+yes[\s\S]*message`?\W+yes/i,
      kind: 'table',
    },
    {
      question: 'What does the skip option of a prompt do?',
      fact: 'If `true` it will not ask that prompt.',
      files: README,
      pattern: /will not ask/,
      kind: 'table',
    },
    {
      question: 'Which prompt option gives the value returned when the user does not supply one?',
      fact: '`initial`',
      files: README,
      pattern: /`initial`|\binitial\W+no\b/,
      kind: 'table',
    },
    {
      question: 'How do I register a custom prompt type?',
      fact: "`enquirer.register('customType', require('./custom-prompt'))`",
      files: README,
      pattern: /register\(/,
      kind: 'code',
    },
    {
      question: 'What does the List prompt return?',
      fact: 'a list of values, created by splitting the user input',
      files: README,
      pattern: /splitting the user input/,
      kind: 'prose',
    },
    {
      question: 'What is the default split character of the List prompt?',
      fact: 'The default split character is `,` with optional trailing whitespace.',
      files: README,
      pattern: /character is `?,|\bcomma\b/,
      kind: 'default',
    },
    {
      question: 'How long does enquirer take to load?',
      fact: '`enquirer: 4.013ms` (about 4 ms)',
      files: README,
      pattern: /4(?:\.013)?\s?ms/,
      kind: 'code',
    },
    {
      question: 'Which Quiz prompt option gives the index of the correct answer?',
      fact: '`correctChoice`',
      files: README,
      pattern: /correctChoice/,
      kind: 'table',
    },
    {
      question: 'What does the Confirm prompt return?',
      fact: '`true` or `false`',
      files: README,
      pattern: /true[\s\S]*false/,
      kind: 'prose',
    },
    {
      question: 'Which prompt masks what the user types in the terminal?',
      fact: 'the Password prompt',
      files: README,
      pattern: /Password/,
      kind: 'heading',
    },
    {
      question: 'Which prompt hides the user input from the terminal entirely?',
      fact: 'the Invisible prompt',
      files: README,
      pattern: /Invisible/,
      kind: 'heading',
    },
    {
      question: 'Which role can a choice have?',
      fact: 'the only role supported is `separator`',
      files: README,
      pattern: /separator/,
      kind: 'table',
    },
    {
      question: 'What does the limit property of an array prompt hold?',
      fact: 'The number of choices to display on-screen.',
      files: README,
      pattern: /number of choices to display/,
      kind: 'table',
    },
    {
      question: 'Which stream do array prompts read keypress events from by default?',
      fact: 'Defaults to `process.stdin`.',
      files: README,
      pattern: /process\.stdin/,
      kind: 'default',
    },
    {
      question: 'What type of value does a BooleanPrompt return?',
      fact: '**Returns**: `boolean`',
      files: README,
      pattern: /\bboolean\b/,
      kind: 'prose',
    },
    {
      question: 'How do I create a custom prompt?',
      fact: "by extending Enquirer's `Prompt` class, a built-in prompt or a low-level type",
      files: README,
      pattern: /extend/i,
      kind: 'list',
    },
    {
      question: 'Which method of an AuthPrompt holds the authentication logic?',
      fact: '`authenticate()`',
      files: README,
      pattern: /\bauthenticate\b/,
      kind: 'prose',
    },
    {
      question: 'Which fields does a choice have once it is normalized?',
      fact: '`name`, `message`, `value`, `hint`, `disabled`',
      files: README,
      pattern: /name[\s\S]*message[\s\S]*value[\s\S]*hint[\s\S]*disabled/,
      kind: 'code',
    },
    {
      question: 'How many dependencies does enquirer have?',
      fact: 'Only one dependency, the excellent ansi-colors',
      files: README,
      pattern: /ansi-colors|only one/i,
      kind: 'list',
    },
    {
      question: 'Which key moves the pointer to the first choice on Windows?',
      fact: '<kbd>home</kbd>',
      files: README,
      pattern: /\bhome\b/,
      kind: 'table',
    },
    {
      question: 'How does the AutoComplete prompt filter choices by default?',
      fact: 'Greedy match, returns choices where `choice.message` contains the input string.',
      files: README,
      pattern: /greedy match/i,
      kind: 'table',
    },
  ],
  unanswerable: [
    'Does the DatePrompt support time zones?',
    'Can enquirer prompts run in a web browser?',
    'How do I make a prompt time out after ten seconds without input?',
    'How do I translate the prompt messages into other languages?',
    'How do I feed answers from a file when running in CI without a terminal?',
    'Can the user select a choice by clicking it with the mouse?',
    'How much memory does a Select prompt with 10,000 choices use?',
  ],
  offTopic: [
    'At what temperature does water boil on a high mountain?',
    'Who painted the ceiling of the Sistine Chapel?',
    'How many players does a football team have on the pitch?',
  ],
  followUps: [
    {
      turns: [
        'What does the AutoComplete prompt do?',
        'What is the default of its multiple option?',
      ],
      fact: '`multiple` | `boolean` | `false`',
      files: README,
      pattern: /boolean`?\W+`?false|default\w*\W+(?:is\W+|value\W+)?`?false/i,
      kind: 'table',
    },
    {
      turns: ['How do I install enquirer with npm?', 'And with yarn?'],
      fact: '`yarn add enquirer`',
      files: README,
      pattern: /yarn add enquirer/,
      kind: 'code',
    },
    {
      turns: ['What is the Quiz prompt?', 'Which of its options are required?'],
      fact: '`choices` and `correctChoice` (Required: Yes)',
      files: README,
      pattern: /choices[\s\S]*correctChoice|correctChoice[\s\S]*choices/,
      kind: 'table',
    },
    {
      turns: ['Which keys cancel a prompt?', 'And which ones reset it?'],
      fact: '<kbd>ctrl</kbd> + <kbd>g</kbd>',
      files: README,
      pattern: /ctrl[^|\n]{0,30}\bg\b/i,
      kind: 'table',
    },
    {
      turns: ['What is the Toggle prompt?', 'What does it return?'],
      fact: '`true` or `false`',
      files: README,
      pattern: /true[\s\S]*false/,
      kind: 'prose',
    },
  ],
};
