/**
 * Held-out questions on body-parser's README (one README: option sections with "Defaults to"
 * lines, an errors section, Express examples). Written and committed before the engine was run
 * on it, after the offline model's changes of this round were done: measured, never tuned on.
 */
import type { QuestionSet } from '../../questions/types.js';

const README = ['README.md'];

export const bodyParserReadme: QuestionSet = {
  corpus: 'body-parser-readme',
  source: 'body-parser@2.4.0, README.md (MIT)',
  answerable: [
    {
      question: 'What is the default maximum request body size?',
      fact: "Defaults to `'100kb'`.",
      files: README,
      pattern: /100 ?kb/i,
      kind: 'default',
    },
    {
      question: 'How do I install body-parser?',
      fact: '`npm install body-parser`',
      files: README,
      pattern: /npm install body-parser/,
      kind: 'code',
    },
    {
      question: 'What is the default depth of the urlencoded parser?',
      fact: 'Defaults to `32`.',
      files: README,
      pattern: /\b32\b/,
      kind: 'default',
    },
    {
      question: 'How many parameters does the urlencoded parser allow by default?',
      fact: 'Defaults to `1000`.',
      files: README,
      pattern: /\b1,?000\b/,
      kind: 'default',
    },
    {
      question: 'What is the default value of the extended option?',
      fact: 'Defaults to `false`.',
      files: README,
      pattern: /\bfalse\b/,
      kind: 'default',
    },
    {
      question: 'Which modules can I use to parse multipart bodies?',
      fact: 'busboy, multiparty, formidable, multer',
      files: README,
      pattern: /busboy|multiparty|formidable|multer/,
      kind: 'list',
    },
    {
      question: 'Which content encodings are inflated automatically?',
      fact: '`gzip`, `br` (brotli), `deflate` and `zstd`',
      files: README,
      pattern: /gzip[\s\S]*deflate/,
      kind: 'prose',
    },
    {
      question: 'What is the error type when the request body exceeds the limit?',
      fact: "`'entity.too.large'`",
      files: README,
      pattern: /entity\.too\.large/,
      kind: 'heading',
    },
    {
      question: 'How do I import only the JSON parser?',
      fact: "`require('body-parser/json')`",
      files: README,
      pattern: /body-parser\/json/,
      kind: 'code',
    },
    {
      question: 'What is the default media type of the raw parser?',
      fact: 'Defaults to `application/octet-stream`.',
      files: README,
      pattern: /application\/octet-stream/,
      kind: 'default',
    },
    {
      question: 'Which media type does the text parser parse by default?',
      fact: 'Defaults to `text/plain`.',
      files: README,
      pattern: /text\/plain/,
      kind: 'default',
    },
    {
      question: 'What is req.body when no body was parsed in version 2?',
      fact: '`req.body` is left `undefined`',
      files: README,
      pattern: /undefined/,
      kind: 'prose',
    },
    {
      question: 'Which body encodings does the urlencoded parser accept?',
      fact: 'only UTF-8 and ISO-8859-1',
      files: README,
      pattern: /8859/,
      kind: 'prose',
    },
    {
      question: 'With which arguments is the verify option called?',
      fact: '`verify(req, res, buf, encoding)`',
      files: README,
      pattern: /req, res, buf, encoding/,
      kind: 'prose',
    },
    {
      question: 'Which Node.js versions support zstd?',
      fact: '`^22.15.0` and `>=23.8.0`',
      files: README,
      pattern: /22\.15/,
      kind: 'prose',
    },
    {
      question: 'How do I parse custom JSON media types such as application/vnd.api+json?',
      fact: "`bodyParser.json({ type: 'application/*+json' })`",
      files: README,
      pattern: /type: 'application\/\*\+json'/,
      kind: 'code',
    },
    {
      question: 'Which error occurs when req.setEncoding was called before the middleware?',
      fact: "stream encoding should not be set (`'stream.encoding.set'`, status 500)",
      files: README,
      pattern: /stream\.encoding\.set|stream encoding should not be set/i,
      kind: 'heading',
    },
    {
      question: 'How do I add a JSON parser to a single Express route?',
      fact: "`app.post('/api/users', jsonParser, …)`",
      files: README,
      pattern: /app\.post\(/,
      kind: 'code',
    },
    {
      question: 'What is the default character set of the json parser?',
      fact: 'Defaults to `utf-8`.',
      files: README,
      pattern: /utf-8/i,
      kind: 'default',
    },
    {
      question: 'What does the strict option of the json parser do?',
      fact: 'only accept arrays and objects',
      files: README,
      pattern: /arrays and objects/,
      kind: 'prose',
    },
  ],
  unanswerable: [
    'How do I parse XML request bodies with body-parser?',
    'How do I limit how many requests a client can send per minute?',
    'What is the default timeout for reading a request body?',
    'How do I stream a large JSON body without buffering it in memory?',
    'Does body-parser work with Fastify?',
    'How do I decompress bodies compressed with LZ4?',
  ],
  offTopic: [
    'What is the largest planet in the solar system?',
    'How many strings does a violin have?',
    'Who discovered penicillin?',
  ],
  followUps: [
    {
      turns: ['What does bodyParser.urlencoded do?', 'What is its default parameter limit?'],
      fact: 'Defaults to `1000`.',
      files: README,
      pattern: /\b1,?000\b/,
      kind: 'default',
    },
    {
      turns: ['What is the limit option?', 'What is its default?'],
      fact: "Defaults to `'100kb'`.",
      files: README,
      pattern: /100 ?kb/i,
      kind: 'default',
    },
    {
      turns: [
        'Which error occurs when the request is aborted?',
        'Which property holds the number of bytes received?',
      ],
      fact: '`received`',
      files: README,
      pattern: /received\W+property/,
      kind: 'prose',
    },
    {
      turns: [
        'How do I use body-parser with Express?',
        'And how do I parse an HTML body into a string?',
      ],
      fact: "`bodyParser.text({ type: 'text/html' })`",
      files: README,
      pattern: /text\/html/,
      kind: 'code',
    },
  ],
};
