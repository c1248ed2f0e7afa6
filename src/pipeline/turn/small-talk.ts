/**
 * Small talk (seed 004's `shouldUseRAG`, inverted): greetings, thanks, goodbyes, "how are you"
 * and acknowledgements skip retrieval and guard mode and get a short friendly reply. A message
 * is small talk only when every part of it is: "hi, what is the refund policy?" is a question.
 * Pure.
 *
 * @example
 * ```ts
 * isSmallTalk('Thanks a lot!'); // true
 * isSmallTalk('Hi, what is the refund policy?'); // false
 * smallTalkReply('Good morning'); // 'Hello! Ask me anything about your documents.'
 * ```
 * @module
 */

/** What kind of small talk a message is. */
export type SmallTalkKind = 'greeting' | 'thanks' | 'goodbye' | 'how-are-you' | 'acknowledgement';

// Each pattern matches one whole phrase; a message is small talk when it is nothing but such
// phrases (with names, emoji and punctuation between them).
const ACKNOWLEDGEMENT =
  /^(?:ok(?:ay)?|k|kk|alright|all\s+right|cool|great|nice|perfect|awesome|excellent|wonderful|fine|good|got\s+it|i\s+see|understood|makes\s+sense|sounds\s+good|that\s+helps|that\s+helped|that'?s\s+(?:great|helpful|perfect|all|it|fine|good)|no\s+worries|no\s+problem|np|lol|haha|wow|d'accord|genial|vale|va\s+bene)$/;

const PHRASES: readonly (readonly [SmallTalkKind, RegExp])[] = [
  [
    'how-are-you',
    /^(?:how\s+are\s+(?:you|u|ya)(?:\s+(?:doing|today))*|how(?:'s|\s+is)\s+it\s+going|how\s+do\s+you\s+do|what'?s\s+up|wh?at\s*up|sup|how\s+have\s+you\s+been|you\s+ok(?:ay)?|are\s+you\s+(?:ok(?:ay)?|there)|ça\s+va|comment\s+(?:ça|ca)\s+va|wie\s+geht'?s(?:\s+dir)?|qu[eé]\s+tal|c[oó]mo\s+est[aá]s|come\s+stai)$/,
  ],
  [
    'greeting',
    /^(?:hi+|hello+|hey+|heya|hiya|howdy|yo|greetings|good\s+(?:morning|afternoon|evening|day)|morning|evening|hi\s+there|hello\s+there|hey\s+there|bonjour|salut|coucou|hallo|guten\s+(?:morgen|tag|abend)|servus|moin|hola|buenos\s+d[ií]as|buenas(?:\s+(?:tardes|noches))?|ciao|buongiorno|ol[aá]|bom\s+dia|hej|hallå|namaste|konnichiwa)$/,
  ],
  [
    'thanks',
    /^(?:(?:thanks|thank\s+you|thank\s+u|thx|tks|ty|tyvm|cheers|much\s+appreciated|appreciate\s+it|i\s+appreciate\s+(?:it|that|your\s+help))(?:\s+(?:so|very)\s+much|\s+a\s+(?:lot|ton|bunch)|\s+again|\s+for\s+(?:the|your)\s+(?:help|answer|info(?:rmation)?|time|explanation)|\s+anyway)*|merci(?:\s+beaucoup)?|danke(?:\s+sch[oö]n)?|gracias|grazie|obrigad[oa])$/,
  ],
  [
    'goodbye',
    /^(?:bye+|bye\s+bye|goodbye|good\s+bye|see\s+(?:you|ya)(?:\s+(?:later|soon|tomorrow))?|later|cya|farewell|take\s+care|have\s+a\s+(?:good|nice|great)\s+(?:day|one|evening|night|weekend)|good\s+night|night|au\s+revoir|tsch[uü]ss|adi[oó]s|arrivederci|tchau)$/,
  ],
  ['acknowledgement', ACKNOWLEDGEMENT],
];

// Words allowed around phrases without changing their meaning ("hi Bot", "thanks, that's all").
const FILLER =
  /^(?:so|very|really|again|then|there|everyone|all|folks|guys|friend|buddy|bot|assistant|mate|sir|madam|and|oh|well|ok(?:ay)?|great|cool)$/;

const MAX_SMALL_TALK_LENGTH = 80;

/** Splits a message into candidate phrases at punctuation and emoji. */
function phrasesOf(message: string): string[] {
  return message
    .toLowerCase()
    .replace(/[’`]/g, "'")
    .split(/[.,!;:…\n()\-–—~*]+|\p{Extended_Pictographic}|(?<!\s)\s+(?=(?:and|but)\s)/u)
    .map((part) =>
      part
        .replace(/[^\p{L}\p{N}'\s]/gu, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((part) => part.length > 0);
}

/** The kind of one phrase, allowing filler words around it ("oh thanks", "thanks bot"). */
function phraseKind(phrase: string): SmallTalkKind | 'filler' | undefined {
  const words = phrase.split(' ');
  if (words.every((word) => FILLER.test(word))) {
    return words.some((word) => ACKNOWLEDGEMENT.test(word)) ? 'acknowledgement' : 'filler';
  }
  for (let from = 0; from < words.length; from++) {
    if (from > 0 && !FILLER.test(words[from - 1]!)) break;
    for (let to = words.length; to > from; to--) {
      if (to < words.length && !FILLER.test(words[to]!)) break;
      const core = words.slice(from, to).join(' ');
      const match = PHRASES.find(([, pattern]) => pattern.test(core));
      if (match) return match[0];
    }
  }
  return undefined;
}

// When a message mixes kinds, the reply answers the most specific one ("hi, thanks, bye!").
const PRIORITY: readonly SmallTalkKind[] = [
  'goodbye',
  'thanks',
  'how-are-you',
  'greeting',
  'acknowledgement',
];

/** The kind of small talk a message is, or undefined when it asks or says anything else. */
export function smallTalkKind(message: string): SmallTalkKind | undefined {
  const text = message.trim();
  if (text.length === 0 || text.length > MAX_SMALL_TALK_LENGTH) return undefined;
  // A question mark is fine only around "how are you"-like phrases: the phrases decide.
  const phrases = phrasesOf(text.replace(/\?/g, '.'));
  const kinds = new Set<SmallTalkKind>();
  for (const phrase of phrases) {
    const kind = phraseKind(phrase);
    if (kind === undefined) return undefined;
    if (kind !== 'filler') kinds.add(kind);
  }
  return PRIORITY.find((kind) => kinds.has(kind));
}

/** Whether a message is small talk (no question about content): skip retrieval and guard. */
export function isSmallTalk(message: string): boolean {
  return smallTalkKind(message) !== undefined;
}

/** The fixed friendly replies, by kind. */
export const SMALL_TALK_REPLIES: Readonly<Record<SmallTalkKind, string>> = {
  greeting: 'Hello! Ask me anything about your documents.',
  thanks: "You're welcome! Let me know if you have another question.",
  goodbye: 'Goodbye! Come back any time.',
  'how-are-you': "I'm doing well, thanks for asking! What would you like to know?",
  acknowledgement: 'Glad to help. Anything else you would like to know?',
};

/** A short fixed reply to a small-talk message (the greeting reply for anything else). */
export function smallTalkReply(message: string): string {
  return SMALL_TALK_REPLIES[smallTalkKind(message) ?? 'greeting'];
}
