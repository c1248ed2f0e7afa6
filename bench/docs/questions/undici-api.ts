/**
 * Questions on undici's API reference pages (28 pages of `docs/docs/api`). Written before the
 * engine was run on them. Split: unanswerable, off-topic and follow-up questions
 * alternate (even positions tune, odd test); answerable ones alternate within each answer kind
 * (`splitsByKind` in `../grade.ts`).
 */
import type { QuestionSet } from './types.js';

const RETRY = ['RetryAgent.md', 'RetryHandler.md'];

export const undiciApi: QuestionSet = {
  corpus: 'undici-api',
  source: 'undici@6.29.1, docs/docs/api/*.md (MIT)',
  answerable: [
    {
      question: 'What is the default keepAliveTimeout of a Client?',
      fact: 'Default: `4e3` (milliseconds)',
      files: ['Client.md'],
      pattern: /4e3|4000|4 seconds/,
      kind: 'default',
    },
    {
      question: 'Which error code does HeadersTimeoutError have?',
      fact: '`UND_ERR_HEADERS_TIMEOUT`',
      files: ['Errors.md'],
      pattern: /UND_ERR_HEADERS_TIMEOUT/,
      kind: 'table',
    },
    {
      question: 'Which status codes does RetryAgent retry by default?',
      fact: '`[429, 500, 502, 503, 504]`',
      files: RETRY,
      pattern: /429\D+500\D+502\D+503\D+504/,
      kind: 'default',
    },
    {
      question: 'How do I enable debug output for fetch?',
      fact: '`NODE_DEBUG=fetch node script.js`',
      files: ['Debug.md'],
      pattern: /NODE_DEBUG=fetch/,
      kind: 'code',
    },
    {
      question: 'Which environment variables does EnvHttpProxyAgent read?',
      fact: '`http_proxy`, `https_proxy` and `no_proxy`',
      files: ['EnvHttpProxyAgent.md'],
      pattern: /no_proxy/i,
      kind: 'prose',
    },
    {
      question: 'Which function parses all Set-Cookie headers?',
      fact: '`getSetCookies(headers)`',
      files: ['Cookies.md'],
      pattern: /getSetCookies/,
      kind: 'heading',
    },
    {
      question: 'What is the maximum number of retries of RetryAgent by default?',
      fact: 'Default: `5`',
      files: RETRY,
      pattern: /\b5\b/,
      kind: 'default',
    },
    {
      question:
        'Which error is thrown when throwOnError is true and the status code is 400 or above?',
      fact: '`ResponseStatusCodeError`',
      files: ['Errors.md'],
      pattern: /ResponseStatusCodeError/,
      kind: 'table',
    },
    {
      question: 'What does parseMIMEType return when it cannot parse the input?',
      fact: "the string literal `'failure'`",
      files: ['ContentType.md'],
      pattern: /failure/,
      kind: 'prose',
    },
    {
      question: 'How many Client instances does a Pool create when connections is null?',
      fact: 'an unlimited amount',
      files: ['Pool.md'],
      pattern: /unlimited/i,
      kind: 'default',
    },
    {
      question: 'How do I make MockAgent throw for requests that match no intercept?',
      fact: '`MockAgent.disableNetConnect()`',
      files: ['MockAgent.md'],
      pattern: /disableNetConnect/,
      kind: 'heading',
    },
    {
      question: 'How do I import the error objects of undici?',
      fact: "`import { errors } from 'undici'`",
      files: ['Errors.md'],
      pattern: /import \{ errors \}/,
      kind: 'code',
    },
    {
      question: 'What is the default maximum payload size of WebSocket messages?',
      fact: '`134217728` (128 MB)',
      files: ['Client.md'],
      pattern: /134217728|128 ?MB/i,
      kind: 'default',
    },
    {
      question: 'Which PoolStats property counts open connections that have no active request?',
      fact: '`PoolStats.free`',
      files: ['PoolStats.md'],
      pattern: /\bfree\b/,
      kind: 'heading',
    },
    {
      question: 'How do I let MockAgent make real requests to one host?',
      fact: "`mockAgent.enableNetConnect('example-1.com')`",
      files: ['MockAgent.md'],
      pattern: /enableNetConnect/,
      kind: 'code',
    },
    {
      question: 'Which diagnostics channel is published when a new request is created?',
      fact: '`undici:request:create`',
      files: ['DiagnosticsChannel.md'],
      pattern: /undici:request:create/,
      kind: 'heading',
    },
    {
      question: 'What is the default maxHeaderSize?',
      fact: '`--max-http-header-size` or `16384` (16KiB)',
      files: ['Client.md'],
      pattern: /16384|16 ?KiB/i,
      kind: 'default',
    },
    {
      question: 'Which protocols must a WebSocket url use?',
      fact: '`ws` or `wss`',
      files: ['WebSocket.md'],
      pattern: /\bws\b[^.]*\bwss\b/,
      kind: 'prose',
    },
    {
      question: 'What is the default maxTTL of the DNS interceptor cache?',
      fact: 'Default: `10000` (milliseconds)',
      files: ['Dispatcher.md'],
      pattern: /10000|10 ?000|10 seconds/,
      kind: 'list',
    },
    {
      question: 'How do I parse the Cookie header of a request?',
      fact: '`getCookies(headers)`',
      files: ['Cookies.md'],
      pattern: /getCookies\b/,
      kind: 'heading',
    },
    {
      question: 'What is the default pipelining factor of a Client?',
      fact: 'Default: `1`',
      files: ['Client.md'],
      pattern: /\b1\b/,
      kind: 'default',
    },
    {
      question: 'What is the default headersTimeout?',
      fact: '`300e3` (300 seconds)',
      files: ['Client.md', 'Dispatcher.md'],
      pattern: /300e3|300 seconds|300000|300 000/,
      kind: 'default',
    },
  ],
  unanswerable: [
    'Does undici support SOCKS5 proxies?',
    'How do I make HTTP/3 requests over QUIC with undici?',
    'How do I set the passphrase of a client certificate?',
    'How do I compress request bodies with brotli?',
    'How many requests per second can a single Client sustain?',
    'How do I persist the CacheStorage to disk between restarts?',
  ],
  offTopic: [
    'What is the boiling point of water at sea level?',
    'Who painted the Mona Lisa?',
    'How many players are on a basketball team?',
  ],
  followUps: [
    {
      turns: ['What does RetryAgent do?', 'Which HTTP methods does it retry by default?'],
      fact: "`['GET', 'PUT', 'HEAD', 'OPTIONS', 'DELETE']`",
      files: RETRY,
      pattern: /GET[\s\S]*PUT[\s\S]*DELETE/,
      kind: 'default',
    },
    {
      turns: ['What is MockAgent?', 'How do I turn the mocking off again?'],
      fact: '`MockAgent.deactivate()`',
      files: ['MockAgent.md'],
      pattern: /deactivate/,
      kind: 'heading',
    },
    {
      turns: ['What is a BalancedPool?', 'Which factory does it use by default?'],
      fact: '`(origin, opts) => new Pool(origin, opts)`',
      files: ['BalancedPool.md'],
      pattern: /new Pool\(/,
      kind: 'default',
    },
    {
      turns: ['How do I enable debug statements in undici?', 'And for the WebSocket API?'],
      fact: '`NODE_DEBUG=websocket`',
      files: ['Debug.md'],
      pattern: /NODE_DEBUG=websocket/,
      kind: 'code',
    },
    {
      turns: ['Which errors does undici expose?', 'What is the error code of SocketError?'],
      fact: '`UND_ERR_SOCKET`',
      files: ['Errors.md'],
      pattern: /UND_ERR_SOCKET\b/,
      kind: 'table',
    },
    {
      turns: [
        'What is the minTimeout of RetryHandler?',
        'And the longest it waits before retrying?',
      ],
      fact: '**maxTimeout** \u2026 Default: `30000` (30 seconds)',
      files: ['RetryHandler.md', 'RetryAgent.md'],
      pattern: /30000|30 seconds/,
      kind: 'default',
    },
    {
      turns: ['How do I read the cookies of a Cookie header?', 'And how do I delete one?'],
      fact: '`deleteCookie(headers, name[, attributes])`',
      files: ['Cookies.md'],
      pattern: /deleteCookie/,
      kind: 'heading',
    },
    {
      turns: ['What does the bodyTimeout option of a Client do?', 'How do I turn it off?'],
      fact: 'Use `0` to disable it entirely.',
      files: ['Client.md'],
      pattern: /Use `?0`? to disable/,
      kind: 'list',
    },
    {
      turns: ['What does the allowH2 option do?', 'Is that option on by default?'],
      fact: '**allowH2**: `boolean` - Default: `false`.',
      files: ['Client.md'],
      // The option's own line: another option's "Default: `false`" is not this answer (the base
      // quoted `autoSelectFamily`'s line and this pattern's second branch took it; round 14).
      pattern: /allowH2[^\n]{0,40}\bfalse\b/i,
      kind: 'default',
    },
  ],
};
