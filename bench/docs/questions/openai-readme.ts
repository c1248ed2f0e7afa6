/**
 * Questions on the `openai` package's README (one large file). Written before the engine was
 * run on it. Split: unanswerable, off-topic and follow-up questions
 * alternate (even positions tune, odd test); answerable ones alternate within each answer kind
 * (`splitsByKind` in `../grade.ts`).
 */
import type { QuestionSet } from './types.js';

const README = ['README.md'];

export const openaiReadme: QuestionSet = {
  corpus: 'openai-readme',
  source: 'openai@6.49.0, README.md (Apache-2.0)',
  answerable: [
    {
      question: 'How do I install the openai package?',
      fact: '`npm install openai`',
      files: README,
      pattern: /npm install openai/,
      kind: 'code',
    },
    {
      question: 'How many times are failed requests retried by default?',
      fact: 'retried 2 times by default',
      files: README,
      pattern: /\b(2|two) times|twice|default is 2/i,
      kind: 'prose',
    },
    {
      question: 'Which error is thrown for a 429 status code?',
      fact: '`RateLimitError`',
      files: README,
      pattern: /RateLimitError/,
      kind: 'table',
    },
    {
      question: 'What is the default request timeout?',
      fact: '10 minutes',
      files: README,
      pattern: /10 minutes/i,
      kind: 'prose',
    },
    {
      question: 'How do I install the library from JSR with Deno?',
      fact: '`deno add jsr:@openai/openai`',
      files: README,
      pattern: /deno add jsr:@openai\/openai/,
      kind: 'code',
    },
    {
      question: 'What is the default log level?',
      fact: "'warn' (Show warnings and errors)",
      files: README,
      pattern: /\bwarn\b/i,
      kind: 'list',
    },
    {
      question: 'Which error type corresponds to a 401 status code?',
      fact: '`AuthenticationError`',
      files: README,
      pattern: /AuthenticationError/,
      kind: 'table',
    },
    {
      question: 'How do I disable retries?',
      fact: '`maxRetries: 0`',
      files: README,
      pattern: /maxRetries:\s*0\b/,
      kind: 'code',
    },
    {
      question: 'Which environment variable sets the log level?',
      fact: '`OPENAI_LOG`',
      files: README,
      pattern: /OPENAI_LOG/,
      kind: 'list',
    },
    {
      question: 'What is the default token refresh buffer for workload identity authentication?',
      fact: '1200 seconds (20 minutes) before expiration',
      files: README,
      pattern: /1200 seconds|20 minutes/i,
      kind: 'prose',
    },
    {
      question: 'Which Node.js versions are supported?',
      fact: 'Node.js 20 LTS or later',
      files: README,
      pattern: /Node\.js 20|20 LTS/i,
      kind: 'list',
    },
    {
      question: 'Which error is thrown when a request times out?',
      fact: '`APIConnectionTimeoutError`',
      files: README,
      pattern: /APIConnectionTimeoutError/,
      kind: 'prose',
    },
    {
      question: 'How do I route requests through a proxy in Node?',
      fact: "undici's `ProxyAgent` passed as `fetchOptions.dispatcher`",
      files: README,
      pattern: /ProxyAgent\(|dispatcher:\s*proxyAgent/,
      kind: 'code',
    },
    {
      question: 'Which TypeScript version is supported?',
      fact: 'TypeScript >= 4.9',
      files: README,
      pattern: /4\.9/,
      kind: 'prose',
    },
    {
      question: 'How do I check whether there is another page of results when paginating manually?',
      fact: '`page.hasNextPage()`',
      files: README,
      pattern: /hasNextPage/,
      kind: 'code',
    },
    {
      question: 'How can I get the request ID of a response?',
      fact: 'the `_request_id` property',
      files: README,
      pattern: /_request_id/,
      kind: 'prose',
    },
    {
      question: 'How do I enable browser support?',
      fact: 'set `dangerouslyAllowBrowser` to `true`',
      files: README,
      pattern: /dangerouslyAllowBrowser/,
      kind: 'list',
    },
    {
      question: 'Which method verifies a webhook and parses its payload at the same time?',
      fact: '`client.webhooks.unwrap()`',
      files: README,
      pattern: /unwrap\(/,
      kind: 'prose',
    },
    {
      question: 'Which packages must I install before importing the Bedrock AWS entrypoint?',
      fact: '`npm install @aws-sdk/credential-provider-node @smithy/hash-node @smithy/signature-v4`',
      files: README,
      pattern: /@smithy\/hash-node/,
      kind: 'code',
    },
    {
      question: 'Which helper normalizes output items when I manage conversation history manually?',
      fact: '`toResponseInputItems()`',
      files: README,
      pattern: /toResponseInputItems/,
      kind: 'prose',
    },
    {
      question: 'Which fields are required for workload identity authentication?',
      fact: '`identityProviderId`, `serviceAccountId`, and `provider`',
      files: README,
      pattern:
        /identityProviderId[\s\S]*serviceAccountId|serviceAccountId[\s\S]*identityProviderId/,
      kind: 'prose',
    },
    {
      question: 'Which class should I use with Azure OpenAI?',
      fact: '`AzureOpenAI`',
      files: README,
      pattern: /AzureOpenAI\b/,
      kind: 'prose',
    },
    {
      question: 'Which endpoint does the Bedrock provider use?',
      fact: '`https://bedrock-mantle.<region>.api.aws/openai/v1`',
      files: README,
      pattern: /bedrock-mantle/,
      kind: 'prose',
    },
  ],
  unanswerable: [
    'How do I set a custom base URL for the client?',
    'What is the maximum file size for uploads?',
    'How do I cancel a streaming response halfway through?',
    'How many requests per minute can I send to gpt-5.5?',
    'How much does the Responses API cost per token?',
    'How do I set the organization ID on the client?',
  ],
  offTopic: [
    'What is the capital of Australia?',
    'How long should I boil an egg?',
    'Who won the 1998 football World Cup?',
  ],
  followUps: [
    {
      turns: ['How do I configure retries?', 'And what is the default?'],
      fact: 'default is 2',
      files: README,
      pattern: /default is 2|\b(2|two) times|twice/i,
      kind: 'code',
    },
    {
      turns: ['What does the Realtime API support?', 'Which class do I import to use it?'],
      fact: '`OpenAIRealtimeWebSocket`',
      files: README,
      pattern: /OpenAIRealtimeWebSocket/,
      kind: 'code',
    },
    {
      turns: [
        'How do I use the library with Amazon Bedrock?',
        'Which environment variables can set the region?',
      ],
      fact: '`AWS_REGION` or `AWS_DEFAULT_REGION`',
      files: README,
      pattern: /AWS_REGION|AWS_DEFAULT_REGION/,
      kind: 'prose',
    },
    {
      turns: ['What log levels are available?', 'How do I send the logs to pino?'],
      fact: 'pass `logger: logger.child({ name: ... })` to the client',
      files: README,
      pattern: /logger\.child|logger:\s*logger/,
      kind: 'code',
    },
    {
      turns: ['Which runtimes are supported?', 'And which TypeScript version?'],
      fact: 'TypeScript >= 4.9',
      files: README,
      pattern: /4\.9/,
      kind: 'prose',
    },
  ],
};
