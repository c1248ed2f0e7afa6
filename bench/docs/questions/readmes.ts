/**
 * Questions on the READMEs of 16 packages (`readmes/<package>/README.md`). Written before the
 * engine was run on them. Split: unanswerable, off-topic and follow-up questions
 * alternate (even positions tune, odd test); answerable ones alternate within each answer kind
 * (`splitsByKind` in `../grade.ts`).
 */
import type { QuestionSet } from './types.js';

const file = (name: string): string[] => [`${name}/README.md`];

export const readmes: QuestionSet = {
  corpus: 'readmes',
  source:
    'READMEs of agentkeepalive, chalk, chokidar, cli-table3, debug, fastq, form-data, ignore, ' +
    'js-yaml, lru-cache, magic-string, mri, mustache, tinybench, ufo, yargs-parser (each ' +
    'with its LICENSE)',
  answerable: [
    {
      question: 'What is the default maxFreeSockets of agentkeepalive?',
      fact: 'Default = `256`',
      files: file('agentkeepalive'),
      pattern: /\b256\b/,
      kind: 'list',
    },
    {
      question: 'Which environment variable hides the date from debug output?',
      fact: '`DEBUG_HIDE_DATE`',
      files: file('debug'),
      pattern: /DEBUG_HIDE_DATE/,
      kind: 'table',
    },
    {
      question: 'How do I install mri?',
      fact: '`npm install --save mri`',
      files: file('mri'),
      pattern: /npm install (--save )?mri/,
      kind: 'code',
    },
    {
      question: 'What does chalk level 2 mean?',
      fact: '256 color support',
      files: file('chalk'),
      pattern: /256 colou?r/i,
      kind: 'table',
    },
    {
      question: 'How do I force truecolor output in chalk with an environment variable?',
      fact: '`FORCE_COLOR=3`',
      files: file('chalk'),
      pattern: /FORCE_COLOR=3/,
      kind: 'prose',
    },
    {
      question: 'What is the default indentation of js-yaml dump?',
      fact: '`indent` (default: 2)',
      files: file('js-yaml'),
      pattern: /\b2\b/,
      kind: 'list',
    },
    {
      question: 'Which debug formatter pretty-prints an object on a single line?',
      fact: '`%o`',
      files: file('debug'),
      pattern: /%o(?![A-Za-z])/,
      kind: 'table',
    },
    {
      question: 'What is the default lineWidth of js-yaml dump?',
      fact: '`lineWidth` (default: `80`)',
      files: file('js-yaml'),
      pattern: /\b80\b/,
      kind: 'list',
    },
    {
      question: 'What is the default polling interval of chokidar?',
      fact: '`interval` (default: `100`) milliseconds',
      files: file('chokidar'),
      pattern: /\b100\b/,
      kind: 'list',
    },
    {
      question: 'How do I render unescaped HTML in a mustache template?',
      fact: 'the triple mustache `{{{name}}}` (or `&`)',
      files: file('mustache'),
      pattern: /\{\{\{|\{\{&/,
      kind: 'prose',
    },
    {
      question: 'How long does a tinybench task run by default?',
      fact: '@default 500 (milliseconds)',
      files: file('tinybench'),
      pattern: /\b500\b/,
      kind: 'code',
    },
    {
      question: 'What does the default form-data boundary consist of?',
      fact: '26 `-` followed by 24 numbers',
      files: file('form-data'),
      pattern: /26[\s\S]{0,30}24/,
      kind: 'prose',
    },
    {
      question: 'How do I add a task to the front of a fastq queue?',
      fact: '`queue.unshift(task, done)`',
      files: file('fastq'),
      pattern: /unshift/,
      kind: 'heading',
    },
    {
      question: 'What is the default awaitWriteFinish stabilityThreshold in chokidar?',
      fact: '(default: 2000) milliseconds',
      files: file('chokidar'),
      pattern: /2000|2 ?000|2 seconds/,
      kind: 'list',
    },
    {
      question: 'Which magic-string method trims whitespace from the start only?',
      fact: '`s.trimStart([ charType ])`',
      files: file('magic-string'),
      pattern: /trimStart/,
      kind: 'heading',
    },
    {
      question: 'How do I install cli-table3?',
      fact: '`npm install cli-table3`',
      files: file('cli-table3'),
      pattern: /npm install cli-table3/,
      kind: 'code',
    },
    {
      question: 'Which options must be set on an LRUCache, at least one of them?',
      fact: "at least one of 'max', 'ttl', or 'maxSize'",
      files: file('lru-cache'),
      pattern: /\bmax\b[\s\S]*\bttl\b|\bttl\b[\s\S]*\bmax\b/,
      kind: 'code',
    },
    {
      question: 'How many warmup iterations does tinybench run by default?',
      fact: 'warmup iterations @default 5',
      files: file('tinybench'),
      pattern: /\b5\b/,
      kind: 'code',
    },
    {
      question: 'Which ufo function parses a URL into its parts?',
      fact: '`parseURL(input, defaultProto?)`',
      files: file('ufo'),
      pattern: /parseURL/,
      kind: 'heading',
    },
    {
      question: 'How do I give yargs-parser default values for keys?',
      fact: "`opts.default`: `{default: {x: 33, y: 'hello world!'}}`",
      files: file('yargs-parser'),
      pattern: /opts\.default|default: \{/,
      kind: 'list',
    },
    {
      question: 'What do I require to use ignore on node < 6?',
      fact: "`require('ignore/legacy')`",
      files: file('ignore'),
      pattern: /ignore\/legacy/,
      kind: 'prose',
    },
    {
      question: 'Which values make a mustache section block not render?',
      fact: '`null`, `undefined`, `false`, `0`, `NaN`, an empty string or an empty list',
      files: file('mustache'),
      pattern: /NaN/,
      kind: 'prose',
    },
    {
      question: 'What is the default maximum nesting depth when js-yaml loads a document?',
      fact: '`maxDepth` (default: 100)',
      files: file('js-yaml'),
      pattern: /\b100\b/,
      kind: 'list',
    },
    // Round 14 (lead): questions that ask with a verb governing "whether"/"if", written
    // before the engine was run on them.
    {
      question: 'With ignore, how do I check whether a path is ignored?',
      fact: '`.ignores(pathname: Pathname): boolean`',
      files: file('ignore'),
      pattern: /\.ignores\(/,
      kind: 'code',
    },
  ],
  unanswerable: [
    'Does js-yaml support YAML 1.3?',
    'How do I stream a very large YAML file with js-yaml?',
    'How do I persist an LRU cache to disk?',
    'How do I encrypt a form-data upload?',
    'How do I give a task a priority in a fastq queue?',
    'Can mustache.js templates be compiled to WebAssembly?',
  ],
  offTopic: [
    'What is the tallest mountain in Africa?',
    'How do I make a cup of green tea?',
    'When did the Western Roman Empire fall?',
  ],
  followUps: [
    {
      turns: [
        'How do I use the debug package?',
        'Which environment variable sets the object inspection depth?',
      ],
      fact: '`DEBUG_DEPTH`',
      files: file('debug'),
      pattern: /DEBUG_DEPTH/,
      kind: 'table',
    },
    {
      turns: ['What color levels does chalk have?', 'Which level means truecolor?'],
      fact: '`3`: Truecolor support (16 million colors)',
      files: file('chalk'),
      pattern: /\b3\b/,
      kind: 'table',
    },
    {
      turns: ['What options does chokidar watch take?', 'What is the default of followSymlinks?'],
      fact: '`followSymlinks` (default: `true`)',
      files: file('chokidar'),
      pattern: /followSymlinks[\s\S]{0,30}true/,
      kind: 'list',
    },
    {
      turns: ['What does js-yaml dump do?', 'How do I sort the keys?'],
      fact: '`sortKeys` (default: `false`): if `true`, sort keys when dumping YAML',
      files: file('js-yaml'),
      pattern: /sortKeys/,
      kind: 'list',
    },
    {
      turns: ['How do I create a fastq queue?', 'How do I pause it?'],
      fact: '`queue.pause()`',
      files: file('fastq'),
      pattern: /pause\(\)/,
      kind: 'heading',
    },
    {
      turns: [
        'What does the unknown option of mri do?',
        'When does mri actually check for unknown flags?',
      ],
      fact: '`mri` _only_ checks for unknown flags if `options.unknown` **and** `options.alias` are populated',
      files: file('mri'),
      pattern: /only_? checks for unknown flags/,
      kind: 'prose',
    },
    {
      turns: [
        'What is the freeSocketTimeout of agentkeepalive?',
        'And the timeout of a working socket?',
      ],
      fact: 'Default is `freeSocketTimeout * 2` so long as that value is greater than or equal to 8 seconds',
      files: file('agentkeepalive'),
      pattern: /freeSocketTimeout \* 2|8 seconds/,
      kind: 'list',
    },
    {
      turns: [
        'What does the parseHost function of ufo do?',
        'Show me an example of this function.',
      ],
      fact: "`parseHost(\"foo.com:8080\");` \u2192 `{ hostname: 'foo.com', port: '8080' }`",
      files: file('ufo'),
      pattern: /parseHost\("foo\.com:8080"\)|hostname: 'foo\.com'/,
      kind: 'code',
    },
    {
      turns: [
        'What does parseURL of ufo return?',
        'And how do I turn that object back into a string?',
      ],
      fact: '`stringifyParsedURL(parsed)`',
      files: file('ufo'),
      pattern: /stringifyParsedURL/,
      kind: 'heading',
    },
  ],
};
