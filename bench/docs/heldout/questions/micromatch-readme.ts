/**
 * Held-out questions on micromatch's README (one large file): not for tuning, reported apart
 * (`--set heldout`). Written before the engine was run on it.
 */
import type { QuestionSet } from '../../questions/types.js';

const README = ['README.md'];

export const micromatchReadme: QuestionSet = {
  corpus: 'micromatch-readme',
  source: 'micromatch@4.0.8, README.md (MIT)',
  answerable: [
    {
      question: 'How do I install micromatch?',
      fact: '`npm install --save micromatch`',
      files: README,
      pattern: /npm install (--save )?micromatch/,
      kind: 'code',
    },
    {
      question: 'What is the default maxLength option?',
      fact: '`65536`',
      files: README,
      pattern: /65536|65 ?536/,
      kind: 'table',
    },
    {
      question: 'Which option makes patterns match dotfiles?',
      fact: '`dot`',
      files: README,
      pattern: /\bdot\b/,
      kind: 'table',
    },
    {
      question: 'What does the extglob +(pattern) match?',
      fact: 'one or more occurrences of the given patterns',
      files: README,
      pattern: /one or more/i,
      kind: 'table',
    },
    {
      question: 'What should I use instead of minimatch()?',
      fact: '`micromatch.isMatch()`',
      files: README,
      pattern: /isMatch/,
      kind: 'prose',
    },
    {
      question: 'What is the default of the posixSlashes option?',
      fact: '`true` on windows, `false` everywhere else',
      files: README,
      pattern: /windows/i,
      kind: 'default',
    },
    {
      question: 'How many test assertions does micromatch have?',
      fact: 'More than 5,000',
      files: README,
      pattern: /5,000|5000/,
      kind: 'list',
    },
    {
      question: 'Which option performs case-insensitive matching?',
      fact: '`nocase`',
      files: README,
      pattern: /nocase/,
      kind: 'table',
    },
    {
      question: 'How long does micromatch take to load?',
      fact: 'about 5ms',
      files: README,
      pattern: /5 ?ms/,
      kind: 'list',
    },
    {
      question: 'What is the regex equivalent of the extglob ?(pattern)?',
      fact: '`(pattern)?`',
      files: README,
      pattern: /(?<!\?)\(pattern\)\?/,
      kind: 'table',
    },
    {
      question: 'Which option disables brace matching?',
      fact: '`nobrace`',
      files: README,
      pattern: /nobrace/,
      kind: 'table',
    },
    {
      question: 'Which Bash version does micromatch follow for matching behaviour?',
      fact: 'Bash 4.3',
      files: README,
      pattern: /4\.3/,
      kind: 'heading',
    },
    {
      question: 'Which method creates a regular expression from a glob pattern?',
      fact: '`.makeRe`',
      files: README,
      pattern: /makeRe/,
      kind: 'heading',
    },
    {
      question: 'Which option throws an error when no matches are found?',
      fact: '`failglob`',
      files: README,
      pattern: /failglob/,
      kind: 'table',
    },
    {
      question: 'Which method returns the strings that do not match any of the patterns?',
      fact: '`.not`',
      files: README,
      pattern: /\.not\b|mm\.not|\bnot\(/,
      kind: 'heading',
    },
    {
      question: 'Which method returns a matcher function from a glob pattern?',
      fact: '`.matcher`',
      files: README,
      pattern: /\.matcher\b|matcher\(/,
      kind: 'heading',
    },
  ],
  unanswerable: [
    'Does micromatch support asynchronous matching with promises?',
    'How do I use micromatch with Deno?',
    'How much memory does micromatch use for a million paths?',
    'How do I match files stored in an S3 bucket?',
    'Which TypeScript version do the micromatch types require?',
  ],
  offTopic: [
    'What is the speed of light?',
    'How do I change a bicycle tire?',
    'Who wrote Pride and Prejudice?',
  ],
  followUps: [
    {
      turns: ['What are extglobs?', 'What does !(pattern) match?'],
      fact: 'anything except one of the given patterns',
      files: README,
      pattern: /anything except/i,
      kind: 'table',
    },
    {
      turns: ['How do I switch from minimatch?', 'And from multimatch?'],
      fact: 'Same signature: `micromatch(list, patterns)`',
      files: README,
      pattern: /same signature|micromatch\(\[/i,
      kind: 'code',
    },
    {
      turns: ['What does options.posixSlashes do?', 'What is its default?'],
      fact: '`true` on windows, `false` everywhere else',
      files: README,
      pattern: /windows/i,
      kind: 'default',
    },
    {
      turns: ['Which options does micromatch take?', 'Which one limits the length of the input?'],
      fact: '`maxLength`',
      files: README,
      pattern: /maxLength/,
      kind: 'table',
    },
  ],
};
