import { describe, expect, it } from 'vitest';
import {
  answerHolds,
  definedSubject,
  definesSubject,
  givesInstruction,
  intentsOf,
  namesIdentifier,
  questionLiterals,
} from '../../src/text/question-intent.js';

describe('question intents', () => {
  it('reads what a question asks for', () => {
    expect(intentsOf('How do I install it?')).toEqual(['how-to']);
    expect(intentsOf('Which environment variables can set the region?')).toEqual(['list']);
    expect(intentsOf('What is the default maxRetries?')).toEqual(['value']);
    expect(intentsOf('Which function parses cookies?')).toEqual(['api']);
    expect(intentsOf('What is a dispatcher?')).toEqual(['definition']);
    expect(intentsOf('What status does a broken stream get?')).toEqual([]);
    expect(intentsOf('Does it have a default timeout?')).toEqual([]);
    expect(definedSubject('What is the error code of X?')).toBeUndefined();
  });

  it('reads the term of a "what is" question without a trailing run of white space', () => {
    expect(definedSubject('  what   is the   keep-alive timeout \t ? \n')).toBe(
      'keep-alive timeout',
    );
    expect(definedSubject('What are dispatchers')).toBe('dispatchers');
    expect(definedSubject('What is a?')).toBe('a');
    expect(definedSubject('What is ?')).toBeUndefined();
    expect(definedSubject(`What is ${'x'.repeat(61)}?`)).toBeUndefined();
    expect(definedSubject('What is it? Really?')).toBeUndefined();
    // The run recheck found: a term then 50k tabs and a letter is a 60+ character term.
    expect(definedSubject(`WHAT\tIS\tTS${'\t'.repeat(50_000)}N`)).toBeUndefined();
  });

  it('tells whether an answer holds it', () => {
    expect(answerHolds('Run `npm install x`.', 'how-to')).toBe(true);
    expect(answerHolds('Scan the QR code first.', 'how-to')).toBe(true);
    expect(answerHolds('Colours are enabled by the theme.', 'how-to')).toBe(false);
    // a property named is not a way to do something; an instruction after an adverb is
    expect(answerHolds('queue.paused: true when the queue is paused.', 'how-to')).toBe(false);
    expect(answerHolds('Enable it by explicitly setting the flag.', 'how-to')).toBe(true);
    expect(answerHolds('- a\n- b', 'list')).toBe(true);
    expect(answerHolds('Default: 5', 'value')).toBe(true);
    expect(answerHolds('Use getSetCookies(headers).', 'api')).toBe(true);
    expect(answerHolds('A dispatcher is the base class.', 'definition', 'dispatcher')).toBe(true);
    expect(namesIdentifier('plain words only')).toBe(false);
    expect(givesInstruction('It is enabled.')).toBe(false);
    expect(givesInstruction('If the option is set, the client retries.')).toBe(false);
    expect(givesInstruction('To be fair, most users do.')).toBe(false);
    expect(
      givesInstruction(
        'If you write the pattern to exclude directories, then the directory is skipped.',
      ),
    ).toBe(false);
    expect(questionLiterals('What does 401 mean for ^1.2.3?')).toEqual(['401', '^1.2.3']);
  });

  it('stays linear and total on hostile text', () => {
    const hostile = [
      '\u0000\ud800',
      '\n'.repeat(100_000),
      '['.repeat(100_000),
      '('.repeat(100_000),
      'a'.repeat(100_000),
      '. '.repeat(50_000),
      '…'.repeat(100_000),
    ];
    for (const text of hostile) {
      intentsOf(text);
      definedSubject(text);
      questionLiterals(text);
      namesIdentifier(text);
      givesInstruction(text);
      expect(definesSubject(text, text)).toBe(false);
      for (const intent of ['how-to', 'list', 'value', 'api', 'definition'] as const) {
        expect(typeof answerHolds(text, intent, text)).toBe('boolean');
      }
    }
  });
});
