/**
 * Whether a quotable unit holds what the question asks for (the question's intents are read in
 * `src/text/question-intent.ts`): a unit also holds what the block it introduces holds.
 */
import {
  COMMAND,
  VALUE_TEXT,
  definesSubject,
  givesInstruction,
  namesIdentifier,
  type Intent,
} from '../../text/question-intent.js';
import type { Candidate } from './candidates.js';

export {
  definedSubject,
  intentsOf,
  namesIdentifier,
  questionLiterals,
  type Intent,
} from '../../text/question-intent.js';

// An instruction after the goal it serves: "If you want to render unescaped HTML, use the triple
// mustache", "To enable pre-flighting, you must add a new OPTIONS handler".
const CONDITIONAL_INSTRUCTION =
  /^(?:(?:If|When)\s+you\s+(?:want|need|wish|would\s+like)\s+to|To)\s+[a-z][^,;.]{2,120},\s+(?:you\s+(?:can|could|must|should|need\s+to|may)\s+|just\s+|simply\s+)?[a-z]{2,15}\s+(?:the|a|an|your|its|this|that|these|those|it|them|one|each|all|[A-Z][\w-]{0,40}|[a-z_$][\w$]{0,40}[.(])/;

/** Whether a unit holds what the intent asks for. */
export function holds(candidate: Candidate, intent: Intent, subject?: string): boolean {
  const text = candidate.text;
  switch (intent) {
    case 'how-to':
      return (
        candidate.unit === 'code' ||
        candidate.blockKind === 'code' ||
        COMMAND.test(text) ||
        givesInstruction(text) ||
        CONDITIONAL_INSTRUCTION.test(text)
      );
    case 'list':
      return (
        candidate.blockKind === 'list' ||
        candidate.blockKind === 'table' ||
        candidate.unit === 'item' ||
        candidate.unit === 'row' ||
        /\[[^\][\n]{0,200},[^\][\n]{0,200}\]/.test(text) ||
        (text.match(/,/g)?.length ?? 0) >= 2
      );
    case 'value':
      return (
        VALUE_TEXT.test(text) || (candidate.block !== undefined && VALUE_TEXT.test(candidate.block))
      );
    case 'api':
      return namesIdentifier(text) || namesIdentifier(candidate.headingText ?? '');
    case 'definition':
      return subject !== undefined && definesSubject(text, subject);
  }
}
