/**
 * Questions about this repository's `docs/` for the trust benchmark (`bench/trust.ts`):
 * answerable ones with the page that answers and a short fact the answer must state
 * (case-insensitive substring of the page), and off-topic ones no page answers.
 * Split deterministically: even positions tune, odd positions test.
 */
import { OFF_TOPIC_QUESTIONS } from './quality.js';

/** A question the docs answer. */
export interface DocsQuestion {
  /** The question, as a user would type it. */
  readonly question: string;
  /** The docs page (file name without `.md`) that answers it. */
  readonly page: string;
  /** A short string of that page the answer must contain. */
  readonly fact: string;
}

export const DOCS_QUESTIONS: readonly DocsQuestion[] = [
  // resilience
  {
    question: 'How many retries happen after the first attempt?',
    page: 'resilience',
    fact: '3 attempts at most',
  },
  {
    question: 'How many consecutive failures open the circuit breaker?',
    page: 'resilience',
    fact: 'failureThreshold` (5)',
  },
  {
    question: 'How long does an open breaker refuse calls before a trial call?',
    page: 'resilience',
    fact: 'cooldownMs` (30 s)',
  },
  {
    question: 'Is a stream retried after its first text delta?',
    page: 'resilience',
    fact: 'only before its first text delta',
  },
  {
    question: 'What does a call that failed after several attempts reject with?',
    page: 'resilience',
    fact: 'RetryError',
  },
  {
    question: 'What happens in the half-open breaker state?',
    page: 'resilience',
    fact: 'one trial call goes through',
  },
  {
    question: 'Does a streamed answer have a total timeout?',
    page: 'resilience',
    fact: 'no total timeout',
  },
  {
    question: 'How is the backoff jitter computed before a retry?',
    page: 'resilience',
    fact: 'equal jitter',
  },
  // memory
  {
    question: 'When does compaction run?',
    page: 'memory',
    fact: "after the turn's answer is stored",
  },
  {
    question: 'Are the last user messages ever summarised?',
    page: 'memory',
    fact: 'last 2 user messages are never summarised',
  },
  {
    question: 'What role does the stored summary message have?',
    page: 'memory',
    fact: 'system-summary',
  },
  {
    question: 'Which custom compaction profile does validation reject?',
    page: 'memory',
    fact: 'summaryTokens` is not below',
  },
  {
    question: 'Can a user message and its answer be split by compaction?',
    page: 'memory',
    fact: 'never split',
  },
  // errors
  {
    question: 'What is the base class of every error cortexis throws?',
    page: 'errors',
    fact: 'CortexisError',
  },
  {
    question: 'How do I check an error type when two copies of cortexis are installed?',
    page: 'errors',
    fact: 'isInstance',
  },
  {
    question: 'What happens to the user message when the turn fails later?',
    page: 'errors',
    fact: 'stored before retrieval and generation',
  },
  {
    question: 'What status does a broken stream store the partial answer with?',
    page: 'errors',
    fact: 'incomplete',
  },
  // learning
  { question: 'What reward does a bad rating give?', page: 'learning', fact: 'bad −0.5' },
  {
    question: 'What is the half-life of the learned boost?',
    page: 'learning',
    fact: 'half-life 30',
  },
  {
    question: 'In what range is the learned boost of a chunk?',
    page: 'learning',
    fact: '[0.5, 2]',
  },
  {
    question: 'After how long idle is a learning trajectory abandoned?',
    page: 'learning',
    fact: 'default 30 minutes',
  },
  {
    question: 'Can corrections be ingested through the public feedback endpoint?',
    page: 'learning',
    fact: 'ingesting corrections is not',
  },
  // http
  {
    question: 'What does the HTTP handler answer when authenticate returns null?',
    page: 'http',
    fact: '401',
  },
  { question: 'What status does a body larger than maxBodyBytes get?', page: 'http', fact: '413' },
  {
    question: 'What happens when the client disconnects during a streamed answer?',
    page: 'http',
    fact: 'the turn is aborted',
  },
  {
    question: 'How does a retried POST with the same messageId behave?',
    page: 'http',
    fact: 'idempotency key',
  },
  {
    question: 'Why can a browser not use EventSource for the chat stream?',
    page: 'http',
    fact: 'the request is a POST',
  },
  // getting-started
  {
    question: 'Which Node.js version does cortexis need?',
    page: 'getting-started',
    fact: 'Node.js 20.19',
  },
  {
    question: 'Which file types does the cortexis command index?',
    page: 'getting-started',
    fact: 'Markdown, HTML, PDF, DOCX, text, JSON',
  },
  {
    question: 'Does cortexis need an API key or network to run?',
    page: 'getting-started',
    fact: 'no API key',
  },
  {
    question: 'How does the extractive model answer without a provider?',
    page: 'getting-started',
    fact: 'quoting the most relevant sentences',
  },
  // grounding
  { question: 'When is a claim verdict supported?', page: 'grounding', fact: 'score ≥ threshold' },
  {
    question: 'When is a cited claim contradicted?',
    page: 'grounding',
    fact: 'states it otherwise',
  },
  {
    question: 'What is the evidence span of a grounded claim?',
    page: 'grounding',
    fact: 'best-matching source sentence',
  },
  {
    question: 'How were the support weights of the lexical checker fitted?',
    page: 'grounding',
    fact: 'logistic regression',
  },
  // retrieval
  {
    question: 'What is the default rrfK constant of the fusion?',
    page: 'retrieval',
    fact: 'is **3**',
  },
  {
    question: 'How many built-in labelled example questions does the router use?',
    page: 'retrieval',
    fact: '18 built-in labelled example questions',
  },
  {
    question: 'When is a term node removed from the knowledge graph?',
    page: 'retrieval',
    fact: 'linked to more than',
  },
  { question: 'What does searchDepth shallow do?', page: 'retrieval', fact: 'at most 3 sources' },
  // web-chat
  {
    question: 'How long does the web chat example pause per word?',
    page: 'web-chat',
    fact: '20 ms per',
  },
  {
    question: 'What Content-Security-Policy do the static files of the web chat have?',
    page: 'web-chat',
    fact: "default-src 'self'",
  },
  {
    question: 'Which browser drives the web chat end-to-end test?',
    page: 'web-chat',
    fact: 'headless Chromium',
  },
  // scaling-out
  {
    question: 'How do I route a conversation when feedback must be seen at once on every instance?',
    page: 'scaling-out',
    fact: 'sticky',
  },
  {
    question: 'Which script starts PostgreSQL and Redis for the multi-instance test in CI?',
    page: 'scaling-out',
    fact: '.ci/run',
  },
];

/** Questions no docs page answers (the guard should refuse them). */
export const DOCS_OFF_TOPIC: readonly string[] = [
  ...OFF_TOPIC_QUESTIONS,
  'What is the boiling point of water at high altitude?',
  'Who wrote the novel War and Peace?',
  'How many players are on a football team?',
  'What is the tallest mountain in Africa?',
  'How do I make cold brew coffee?',
  'What vaccines does a kitten need?',
  'Which planet has the most moons?',
  'How do I remove a red wine stain from a carpet?',
];

/** Even positions tune, odd positions test. */
export function splitHalves<T>(items: readonly T[]): { tune: T[]; test: T[] } {
  return {
    tune: items.filter((_, index) => index % 2 === 0),
    test: items.filter((_, index) => index % 2 === 1),
  };
}

/**
 * Questions about the 8-page e-bike handbook of `test/fixtures/bike-share-handbook.ts` (a
 * small corpus of another kind, with vocabulary gaps between questions and answers).
 */
export const BIKE_QUESTIONS: readonly DocsQuestion[] = [
  { question: 'How old do I have to be to ride?', page: 'age', fact: 'at least 16 years old' },
  {
    question: 'Do students get a discount?',
    page: 'pricing',
    fact: 'Students with a valid card pay 19 euros',
  },
  {
    question: 'What time does the service start in the morning?',
    page: 'hours',
    fact: 'from 5:00 to 1:00',
  },
  { question: 'How much does a single ride cost?', page: 'pricing', fact: '1 euro to unlock' },
  { question: 'Do I have to wear a helmet?', page: 'helmets', fact: 'not required for adults' },
  { question: 'How far does a full battery last?', page: 'battery', fact: '60 kilometres' },
  { question: 'What is the fine for parking outside a zone?', page: 'parking', fact: '20 euros' },
  { question: 'How do I unlock a bike?', page: 'getting-started', fact: 'Scan the QR code' },
  {
    question: 'Am I charged for damage I report?',
    page: 'damage',
    fact: 'not charged for damage they report',
  },
  { question: 'Can I ride on the sidewalk?', page: 'helmets', fact: 'sidewalks is not allowed' },
  { question: 'Do riders under 18 need permission?', page: 'age', fact: 'consent of a parent' },
  { question: 'How much is the monthly pass?', page: 'pricing', fact: '29 euros' },
  {
    question: 'Can I unlock a bike with a low battery?',
    page: 'battery',
    fact: 'less than 15 percent',
  },
  { question: 'How quickly are damaged bikes collected?', page: 'damage', fact: 'within 24 hours' },
];
