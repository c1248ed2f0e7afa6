/**
 * Composing the answer to a request, before `maxTokens`: a quote of the source sentences that
 * answer the question, a summary when one is asked for, or a small-talk reply when there are
 * no sources.
 */
import type { LLMRequest } from '../../ports/llm-provider.js';
import { answerKindOf } from './answer-kind.js';
import {
  type ExtractiveAnswer,
  type ExtractiveAnswerOptions,
  NO_SOURCES_TEXT,
  answerOptions,
} from './answer.js';
import { conversationSentences, sourceSentences, withoutQuestions } from './candidates.js';
import { SUMMARY_REQUEST, instructionsOf, lastUserMessage, questionTerms } from './prompt.js';
import { questionShape } from './quote.js';
import { answerFromSources } from './select-sentences.js';
import { summarize } from './summarize.js';

const GREETING = /^\s*(?:hi|hello|hey|hiya|howdy|greetings|good (?:morning|afternoon|evening))\b/i;
const THANKS = /\b(?:thanks|thank you|thx|cheers|much appreciated)\b/i;
const FAREWELL = /^\s*(?:bye|goodbye|see you|farewell)\b/i;

/** The answer to a request, before `maxTokens`: pure and deterministic. */
export function composeAnswer(
  request: Pick<LLMRequest, 'system' | 'messages' | 'sources' | 'retrievalQuery'>,
  options: ExtractiveAnswerOptions = {},
): ExtractiveAnswer {
  const settings = answerOptions(options);
  const question = lastUserMessage(request.messages)?.content ?? '';
  const sources = request.sources ?? [];
  const wantsSummary =
    SUMMARY_REQUEST.test(instructionsOf(request.system ?? '', sources)) ||
    SUMMARY_REQUEST.test(question);
  if (sources.length > 0) {
    const sentences = sourceSentences(sources);
    // A follow-up ("and how long does it take?") is answered by its standalone form; the
    // user's own words still say what kind of answer is asked for.
    const terms = questionTerms(
      request.retrievalQuery ? `${question} ${request.retrievalQuery}` : question,
      wantsSummary,
    );
    if (terms.length === 0 && wantsSummary) {
      return summarize(sentences, settings.maxSummarySentences, true);
    }
    // The terms the user wrote weigh more than those the rewrite carried over from earlier
    // turns: "How long does shipping take?" after a refund question is about shipping.
    const own = request.retrievalQuery ? new Set(questionTerms(question, wantsSummary)) : undefined;
    return answerFromSources(
      sentences,
      terms,
      answerKindOf(question),
      settings,
      own,
      questionShape(question),
    );
  }
  if (wantsSummary) {
    const sentences = withoutQuestions(conversationSentences(request.messages, question));
    if (sentences.length > 0) return summarize(sentences, settings.maxSummarySentences, false);
  }
  return smallTalk(question);
}

function smallTalk(question: string): ExtractiveAnswer {
  if (GREETING.test(question)) return { text: 'Hello! Ask me a question about your documents.' };
  if (FAREWELL.test(question)) return { text: 'Goodbye!' };
  if (THANKS.test(question)) return { text: "You're welcome." };
  return { text: NO_SOURCES_TEXT, certainty: 0 };
}
