/**
 * Recalled statements as evidence (issue 30 item 1): how often a user's own earlier statement
 * answers a later question that no document answers, and how often an off-topic question is
 * answered from the user's statements instead of refused. `createChatEngine()` defaults
 * (offline) with `recall: { scope: 'user' }`, the 8-page e-bike handbook of
 * `test/fixtures/bike-share-handbook.ts` as documents.
 *
 * Each statement is made in a conversation of its own; the questions are asked in a new
 * conversation of the same user, then the off-topic questions of the trust benchmark
 * (`DOCS_OFF_TOPIC`), then the handbook questions (`BIKE_QUESTIONS`: answered from the
 * documents as before, or taken over by a statement). Then the same in one conversation of
 * another user: each question right after its statement, then the off-topic questions.
 * Counts, no timings.
 *
 *   node --import tsx bench/recall-evidence.ts
 */
import { createChatEngine } from '../src/index.js';
import { bikeShareHandbook } from '../test/fixtures/bike-share-handbook.js';
import { BIKE_QUESTIONS, DOCS_OFF_TOPIC } from './trust-docs-questions.js';

/** A statement, a question it answers, and the fact the answer must state. */
const FACTS: readonly (readonly [statement: string, question: string, fact: string])[] = [
  [
    'My bicycle serial number is QX-7781 and it is dark green',
    'What was my bicycle serial number and colour?',
    'QX-7781',
  ],
  ['My locker code is 5521, locker number 12', 'What is my locker code?', '5521'],
  [
    "My dentist appointment is on March 14 at 9 o'clock",
    'When is my dentist appointment?',
    'March 14',
  ],
  ['My sister Hannah lives in Rotterdam', 'Where does my sister Hannah live?', 'Rotterdam'],
  [
    'Our wifi password at home is tulip-42-river',
    'What is our wifi password at home?',
    'tulip-42-river',
  ],
  ['My passport expires in August 2031', 'When does my passport expire?', 'August 2031'],
  ['My cat is called Miso and she is four years old', 'What is my cat called?', 'Miso'],
  ['I parked the car on level 3, row F of the garage', 'Where did I park the car?', 'level 3'],
  ['My employee number is E-20931', 'What is my employee number?', 'E-20931'],
  [
    'The plumber quoted 240 euros for the boiler repair',
    'How much did the plumber quote for the boiler?',
    '240 euros',
  ],
  [
    'My favourite running route is the river loop of 7 km',
    'What is my favourite running route?',
    'river loop',
  ],
  ['My flight to Lisbon is TP 671 on Friday', 'What is my flight number to Lisbon?', 'TP 671'],
];

const engine = createChatEngine({ recall: { scope: 'user' } });
await engine.ingest(bikeShareHandbook);
for (const [statement] of FACTS) {
  const session = await engine.createSession({ userId: 'u' });
  await engine.chat({ sessionId: session.id, userId: 'u', message: statement });
}
await engine.flush();

const asking = await engine.createSession({ userId: 'u' });
const ask = (message: string) => engine.chat({ sessionId: asking.id, userId: 'u', message });
/** Whether a user's statement is among an answer's sources. */
const fromMemory = (sources: readonly { readonly metadata: Record<string, unknown> }[]) =>
  sources.some((source) => source.metadata['recalled'] === true);

let answered = 0;
let stated = 0;
for (const [, question, fact] of FACTS) {
  const reply = await ask(question);
  if (!reply.guard && fromMemory(reply.sources)) answered++;
  if (!reply.guard && reply.text.includes(fact)) stated++;
}
let offTopicAnswered = 0;
for (const question of DOCS_OFF_TOPIC) {
  const reply = await ask(question);
  if (!reply.guard) offTopicAnswered++;
}
let handbookFromDocuments = 0;
let handbookFromMemory = 0;
for (const { question } of BIKE_QUESTIONS) {
  const reply = await ask(question);
  if (reply.guard) continue;
  if (fromMemory(reply.sources)) handbookFromMemory++;
  else handbookFromDocuments++;
}
console.log(
  `statements' questions answered with the statement among the sources: ${answered}/${FACTS.length}`,
);
console.log(`  answers stating the fact: ${stated}/${FACTS.length}`);
console.log(
  `off-topic questions answered (not refused): ${offTopicAnswered}/${DOCS_OFF_TOPIC.length}`,
);
console.log(
  `handbook questions: ${handbookFromDocuments} answered from documents only, ${handbookFromMemory} with a statement among the sources, ${BIKE_QUESTIONS.length - handbookFromDocuments - handbookFromMemory} refused (of ${BIKE_QUESTIONS.length})`,
);

// The same, in one conversation: each question right after its statement (the statement is
// in the recent history, which recall leaves to the history), then the off-topic questions.
const together = await engine.createSession({ userId: 'v' });
const say = (message: string) => engine.chat({ sessionId: together.id, userId: 'v', message });
let sameAnswered = 0;
for (const [statement, question, fact] of FACTS) {
  await say(statement);
  await engine.flush();
  const reply = await say(question);
  if (!reply.guard && fromMemory(reply.sources) && reply.text.includes(fact)) sameAnswered++;
}
let sameOffTopic = 0;
for (const question of DOCS_OFF_TOPIC) if (!(await say(question)).guard) sameOffTopic++;
console.log(
  `in one conversation: ${sameAnswered}/${FACTS.length} answered with the fact from the statement, ${sameOffTopic}/${DOCS_OFF_TOPIC.length} off-topic answered`,
);
await engine.flush();
