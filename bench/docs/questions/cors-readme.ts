/**
 * Questions on cors's README (one file: Express code examples whose comments state the headers
 * they add, a bullet list of configuration options with nested value types and "If not
 * specified" defaults, a JSON block of the default configuration, an FAQ whose headings are
 * misconceptions). Written and committed before the engine was run on it (issue 26, round 10,
 * task `signals10`). Split: unanswerable, off-topic and follow-up questions alternate (even
 * positions tune, odd test); answerable ones alternate within each answer kind (`splitsByKind`
 * in `../grade.ts`).
 */
import type { QuestionSet } from './types.js';

const README = ['README.md'];

export const corsReadme: QuestionSet = {
  corpus: 'cors-readme',
  source: 'cors@2.8.6, README.md (MIT)',
  answerable: [
    {
      question: 'How do I install cors?',
      fact: '`$ npm install cors`',
      files: README,
      pattern: /npm install cors/,
      kind: 'code',
    },
    {
      question: 'How do I enable CORS for every route of an Express app?',
      fact: '`app.use(cors())`',
      files: README,
      pattern: /app\.use\(cors\(\)\)/,
      kind: 'code',
    },
    {
      question: 'How do I enable CORS on a single route only?',
      fact: "`app.get('/products/:id', cors(), function (req, res, next) {`",
      files: README,
      pattern: /app\.get\([^)\n]*, cors\(\)/,
      kind: 'code',
    },
    {
      question: 'What is the default value of the origin option?',
      fact: '`"origin": "*"` in the default configuration',
      files: README,
      pattern: /"origin":\s*"\*"|default[^.\n]{0,40}\*/i,
      kind: 'code',
    },
    {
      question: 'Which HTTP methods are allowed by default?',
      fact: '`"methods": "GET,HEAD,PUT,PATCH,POST,DELETE"`',
      files: README,
      pattern: /GET,\s*HEAD,\s*PUT,\s*PATCH,\s*POST,\s*DELETE/,
      kind: 'code',
    },
    {
      question: 'Which status code is sent for a successful OPTIONS request by default?',
      fact: '`"optionsSuccessStatus": 204`',
      files: README,
      pattern: /"optionsSuccessStatus":\s*204|default[^\n]{0,60}\b204\b/i,
      kind: 'code',
    },
    {
      question: 'Which header does the origin option configure?',
      fact: '**Access-Control-Allow-Origin**',
      files: README,
      pattern: /Access-Control-Allow-Origin/,
      kind: 'list',
    },
    {
      question: 'How do I allow requests from any subdomain of one domain?',
      fact: 'set `origin` to a `RegExp`, e.g. `/\\.example2\\.com$/`',
      files: README,
      pattern: /RegExp|regular expression/i,
      kind: 'list',
    },
    {
      question: 'What happens when I set origin to true?',
      fact: "reflect the request origin, as defined by `req.header('Origin')`",
      files: README,
      pattern: /reflect/i,
      kind: 'list',
    },
    {
      question: 'How do I disable CORS through the origin option?',
      fact: 'set it to `false` to disable CORS',
      files: README,
      pattern: /false`?\s+to\s+disable/i,
      kind: 'list',
    },
    {
      question: 'Which request headers are allowed when allowedHeaders is not set?',
      fact: "reflecting the headers specified in the request's Access-Control-Request-Headers header",
      files: README,
      pattern: /Access-Control-Request-Headers/,
      kind: 'list',
    },
    {
      question: 'Which custom headers are exposed when exposedHeaders is not set?',
      fact: 'If not specified, no custom headers are exposed.',
      files: README,
      pattern: /no custom headers/i,
      kind: 'list',
    },
    {
      question: 'How do I send the Access-Control-Allow-Credentials header?',
      fact: 'set `credentials` to `true` to pass the header',
      files: README,
      pattern: /credentials[\s\S]{0,80}\btrue\b/,
      kind: 'list',
    },
    {
      question: 'Which option sets the Access-Control-Max-Age header?',
      fact: '`maxAge`',
      files: README,
      pattern: /maxAge/,
      kind: 'list',
    },
    {
      question: 'Why would I set optionsSuccessStatus to 200?',
      fact: 'some legacy browsers (IE11, various SmartTVs) choke on `204`',
      files: README,
      pattern: /IE11|SmartTVs|legacy browsers/i,
      kind: 'list',
    },
    {
      question: 'How do I enable pre-flight requests for all routes?',
      fact: "`app.options('*', cors())`",
      files: README,
      pattern: /app\.options\('\*', cors\(\)\)/,
      kind: 'code',
    },
    {
      question: 'Which CORS requests need a pre-flight request?',
      fact: 'one that uses an HTTP verb other than GET/HEAD/POST (such as DELETE) or custom headers',
      files: README,
      pattern: /other than\s+GET\/HEAD\/POST|custom headers/i,
      kind: 'prose',
    },
    {
      question: 'Does the cors middleware block requests from origins that are not allowed?',
      fact: "No: it sets response headers, it doesn't block requests; the server processes every request",
      files: README,
      pattern: /doesn.t block|processes every request|enforced by browsers/i,
      kind: 'prose',
    },
    {
      question: 'Does CORS protect my API from unauthorized access?',
      fact: 'No. CORS is not access control; use authentication and authorization',
      files: README,
      pattern: /not access control|authentication and authorization/i,
      kind: 'prose',
    },
    {
      question: 'Which arguments does a dynamic origin function receive?',
      fact: 'the origin (or `undefined`) and a `callback` with the signature `callback(error, origin)`',
      files: README,
      pattern: /callback\(err(?:or)?, origin\)/,
      kind: 'prose',
    },
    {
      question: 'How do I choose the CORS options for each request?',
      fact: 'pass a function `(req, callback)` that calls `callback(null, corsOptions)`',
      files: README,
      pattern: /callback\(null, corsOptions\)|function\s*\(req, callback\)/,
      kind: 'code',
    },
    {
      question: 'What does the preflightContinue option do?',
      fact: 'Pass the CORS preflight response to the next handler.',
      files: README,
      pattern: /next handler/i,
      kind: 'list',
    },
    {
      question: 'Who is the original author of cors?',
      fact: 'Troy Goode',
      files: README,
      pattern: /Troy Goode/,
      kind: 'prose',
    },
    {
      question: 'Which types of value can the origin option take?',
      fact: '`Boolean`, `String`, `RegExp`, `Array`, `Function`',
      files: README,
      pattern: /Boolean[\s\S]*String[\s\S]*RegExp[\s\S]*Array[\s\S]*Function/,
      kind: 'list',
    },
    {
      question: 'Do curl and Postman respect CORS?',
      fact: 'No: non-browser clients ignore CORS entirely',
      files: README,
      pattern: /ignore CORS|regardless of CORS/i,
      kind: 'prose',
    },
    {
      question: 'In which format does the methods option expect its value?',
      fact: "a comma-delimited string (ex: 'GET,PUT,POST') or an array",
      files: README,
      pattern: /comma-delimited/,
      kind: 'list',
    },
  ],
  unanswerable: [
    'How do I use cors with Koa?',
    'How do I log the requests that cors rejects?',
    'Which Node.js versions does cors support?',
    'Can cors rate-limit requests per origin?',
    'How do I set the Content-Security-Policy header with cors?',
    'Does cors cache the result of a dynamic origin function?',
  ],
  offTopic: [
    'How tall is Mount Kilimanjaro?',
    'What is the boiling point of ethanol?',
    'Which planet is closest to the sun?',
  ],
  followUps: [
    {
      turns: ['What does the maxAge option configure?', 'What happens if I do not set it?'],
      fact: 'otherwise it is omitted',
      files: README,
      pattern: /omitted/i,
      kind: 'list',
    },
    {
      turns: ['How do I install cors?', 'How do I enable it for a single route?'],
      fact: "`app.get('/products/:id', cors(), function (req, res, next) {`",
      files: README,
      pattern: /app\.get\([^)\n]*, cors\(\)/,
      kind: 'code',
    },
    {
      turns: ['What is the optionsSuccessStatus option?', 'What is its default?'],
      fact: '`"optionsSuccessStatus": 204`',
      files: README,
      pattern: /"optionsSuccessStatus":\s*204|default[^\n]{0,60}\b204\b/i,
      kind: 'code',
    },
    {
      turns: [
        'How does the origin option work with a function?',
        'How would that function load the origins from a database?',
      ],
      fact: '`db.loadOrigins(function (error, origins) {`',
      files: README,
      pattern: /db\.loadOrigins/,
      kind: 'code',
    },
    {
      turns: [
        'What does the exposedHeaders option configure?',
        'In which format does it expect its value?',
      ],
      fact: "a comma-delimited string (ex: 'Content-Range,X-Content-Range') or an array",
      files: README,
      pattern: /comma-delimited/,
      kind: 'list',
    },
    {
      turns: ['What does the preflightContinue option do?', 'What is it set to by default?'],
      fact: '`"preflightContinue": false`',
      files: README,
      pattern: /"preflightContinue":\s*false|default[^\n]{0,60}\bfalse\b/i,
      kind: 'code',
    },
    {
      turns: [
        'How do I enable pre-flight for a single route?',
        'Do I still need that when I use app.use(cors())?',
      ],
      fact: 'pre-flight requests are already handled for all routes',
      files: README,
      pattern: /already handled/,
      kind: 'prose',
    },
  ],
};
