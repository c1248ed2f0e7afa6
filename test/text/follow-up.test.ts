import { describe, expect, it } from 'vitest';

import { namedSubjects, resolveFollowUp, subjectOf } from '../../src/text/follow-up.js';

describe('resolveFollowUp', () => {
  it('needs an earlier question, and leaves a question that needs nothing from it alone', () => {
    expect(resolveFollowUp('And what is the default?', [])).toBeNull();
    expect(resolveFollowUp('What is the error code of SocketError?', ['Which errors exist?'])).toBe(
      null,
    );
    expect(resolveFollowUp('How long does shipping take?', ['What is the refund policy?'])).toBe(
      null,
    );
    // "And" that leads nothing, or a fragment that asks nothing, is left alone.
    expect(resolveFollowUp('Andromeda?', ['How do I set the timeout?'])).toBeNull();
    expect(resolveFollowUp('And synchronously?', ['How do I read a file?'])).toBeNull();
  });

  it('makes the question of a fragment after a lead word the question', () => {
    expect(resolveFollowUp('And what is the default?', ['How do I set the timeout?'])).toEqual({
      question: 'What is the default?',
      subject: '',
    });
    expect(resolveFollowUp('but, how do I stop it', ['How do I start a worker pool?'])).toEqual({
      question: 'How do I stop it?',
      subject: '',
    });
    expect(resolveFollowUp('Also which flag turns it off?', ['What does the cache do?'])).toEqual({
      question: 'Which flag turns it off?',
      subject: '',
    });
    expect(resolveFollowUp('So does it retry?', ['What does `fetchWithRetry()` do?'])).toEqual({
      question: 'Does it retry?',
      subject: 'fetchWithRetry()',
    });
  });

  it('carries a named subject to a question that names nothing of its own', () => {
    expect(
      resolveFollowUp('Which headers does the request send?', [
        'How do I call Google Cloud Storage?',
      ]),
    ).toEqual({
      question: 'Which headers does the request send?',
      subject: 'Google Cloud Storage',
    });
    expect(
      resolveFollowUp('What does the error look like?', ['How do I use the yaml package?']),
    ).toEqual({ question: 'What does the error look like?', subject: 'yaml package' });
    // A question with a name of its own keeps it; an unnamed earlier subject is not carried.
    expect(
      resolveFollowUp('What does the `strict` flag do?', ['How do I use the yaml package?']),
    ).toBeNull();
    expect(resolveFollowUp('Which setting limits the queue?', ['How are jobs scheduled?'])).toBe(
      null,
    );
  });

  it('resolves a chain of follow-ups from the first question on', () => {
    expect(
      resolveFollowUp('And what is its type?', [
        'What is the `retryDelay` option?',
        'And what is the default?',
      ]),
    ).toEqual({ question: 'What is its type?', subject: 'retryDelay' });
    // Three questions back at most.
    expect(
      resolveFollowUp('Which setting limits the queue?', [
        'What is a WorkerPool?',
        'How are jobs scheduled?',
        'How do I stop a job?',
        'How do I restart it?',
      ]),
    ).toBeNull();
  });
});

describe('resolveFollowUp reads a final "it"', () => {
  it('as the name the question inherits', () => {
    expect(
      resolveFollowUp('Where do I register it?', ['What does the `onRetry` hook do?']),
    ).toEqual({ question: 'Where do I register onRetry?', subject: 'onRetry' });
    expect(
      resolveFollowUp('And how do I reset it ?', ['What is the `retryDelay` option?']),
    ).toEqual({ question: 'How do I reset retryDelay?', subject: 'retryDelay' });
    // Down a chain: the name travels with the questions resolved for it.
    expect(
      resolveFollowUp('Can I turn off it?', [
        'What does the Token Bucket limiter do?',
        'And what is the default rate?',
      ]),
    ).toEqual({ question: 'Can I turn off Token Bucket?', subject: 'Token Bucket' });
  });

  it('and an "it" whose state a condition asks about', () => {
    expect(
      resolveFollowUp('What does a{b,c}d match when it is set?', [
        'What does the braceExpansion option do?',
      ]),
    ).toEqual({
      question: 'What does a{b,c}d match when braceExpansion is set?',
      subject: 'braceExpansion',
    });
    expect(
      resolveFollowUp('Which error is thrown if it is closed?', ['How is `Pool` used?']),
    ).toEqual({ question: 'Which error is thrown if Pool is closed?', subject: 'Pool' });
    // "it" as part of a word after "when" is not the subject ("when items …").
    expect(
      resolveFollowUp('What happens when items run out?', ['What does `fetchWithRetry()` do?']),
    ).toEqual({ question: 'What happens when items run out?', subject: 'fetchWithRetry()' });
  });

  it('and leaves every other "it" alone', () => {
    // Not last, part of a word, or with no name to stand for.
    expect(resolveFollowUp('Does it retry twice?', ['What does `fetchWithRetry()` do?'])).toEqual({
      question: 'Does it retry twice?',
      subject: 'fetchWithRetry()',
    });
    expect(resolveFollowUp('How do I submit?', ['What is the `FormData` helper?'])).toEqual({
      question: 'How do I submit?',
      subject: 'FormData',
    });
    expect(resolveFollowUp('How do I stop it?', ['How do I start a worker pool?'])).toBeNull();
    // A question naming its own subject keeps its words.
    expect(resolveFollowUp('How does `close()` end it?', ['What does the `Pool` class do?'])).toBe(
      null,
    );
  });
});

describe('resolveFollowUp reads what a follow-up points back at', () => {
  it('an "it" before a final particle or adverb', () => {
    expect(
      resolveFollowUp('How do I shut it off?', ['What does the `bodyTimeout` option do?']),
    ).toEqual({ question: 'How do I shut bodyTimeout off?', subject: 'bodyTimeout' });
    expect(
      resolveFollowUp('And how do I set it up again?', ['What is the `FormData` helper?']),
    ).toEqual({ question: 'How do I set FormData up again?', subject: 'FormData' });
    expect(resolveFollowUp('How do I pause it then?', ['How is `Pool` used?'])).toEqual({
      question: 'How do I pause Pool then?',
      subject: 'Pool',
    });
  });

  it('"that" or "this" (option, method, …) at the end, or naming a kind anywhere', () => {
    expect(
      resolveFollowUp('Is that option on by default?', ['What does the `allowH2` option do?']),
    ).toEqual({ question: 'Is allowH2 on by default?', subject: 'allowH2' });
    expect(
      resolveFollowUp('What does this method return?', ['What does `cli.outputHelp()` do?']),
    ).toEqual({ question: 'What does cli.outputHelp() return?', subject: 'cli.outputHelp()' });
    expect(resolveFollowUp('How do I disable that?', ['What is the `cache` option?'])).toEqual({
      question: 'How do I disable cache?',
      subject: 'cache',
    });
  });

  it('and leaves a "that" or "this" that points at no thing alone', () => {
    // A demonstrative before a noun that is no kind, a conjunction, a question's own subject.
    expect(resolveFollowUp('Why is that the default?', ['What is the `cache` option?'])).toEqual({
      question: 'Why is that the default?',
      subject: 'cache',
    });
    expect(
      resolveFollowUp('Does it say that it retries often?', ['What is the `cache` option?']),
    ).toEqual({ question: 'Does it say that it retries often?', subject: 'cache' });
    expect(resolveFollowUp('Is this a problem?', ['What is the `cache` option?'])).toEqual({
      question: 'Is this a problem?',
      subject: 'cache',
    });
  });
});

describe('resolveFollowUp reads a state the follow-up sets as the value the docs write', () => {
  it('turning the thing off or on', () => {
    expect(
      resolveFollowUp('And what happens to ** when I turn it off?', [
        'What does the `globstar` option do?',
      ]),
    ).toEqual({
      question: 'What happens to ** when I set globstar to false?',
      subject: 'globstar',
    });
    expect(
      resolveFollowUp('How do I turn it on?', ['What does the `bodyTimeout` option do?']),
    ).toEqual({ question: 'How do I set bodyTimeout to true?', subject: 'bodyTimeout' });
  });

  it('a condition on its state', () => {
    expect(
      resolveFollowUp('Which errors are suppressed when it is off?', [
        'What does the `suppressErrors` option do?',
      ]),
    ).toEqual({
      question: 'Which errors are suppressed when suppressErrors is false?',
      subject: 'suppressErrors',
    });
  });

  it('and nothing when the name does not replace the switched thing', () => {
    // The question's own subject is switched, not the inherited name.
    expect(resolveFollowUp('Does it turn the cache off?', ['What is the `cache` option?'])).toEqual(
      { question: 'Does it turn the cache off?', subject: 'cache' },
    );
    expect(resolveFollowUp('Is it on by default?', ['What does the `allowH2` option do?'])).toEqual(
      { question: 'Is it on by default?', subject: 'allowH2' },
    );
  });
});

describe('resolveFollowUp after statements', () => {
  it('takes no subject from a statement, only from questions', () => {
    // The name is in what the user said, not asked: an unrelated question stays unrelated.
    expect(
      resolveFollowUp('How do I bake sourdough bread at home?', [
        'My bicycle serial number is QX-7781 and it is dark green',
        'What was my bicycle serial number and colour?',
      ]),
    ).toBeNull();
    expect(
      resolveFollowUp('Which region does it use?', [
        'How do I call Amazon Bedrock?',
        'Thanks, that worked for me.',
      ]),
    ).toEqual({ question: 'Which region does it use?', subject: 'Amazon Bedrock' });
  });
});

describe('subjectOf', () => {
  it('names identifiers and capitalised names past the first word', () => {
    expect(namedSubjects('Does `fs.readFile()` use Amazon S3 or fetchImpl?')).toEqual([
      'fs.readFile()',
      'Amazon S3',
      'fetchImpl',
    ]);
    expect(namedSubjects('What does the deep option do?')).toEqual([]);
  });

  it('falls back to the thing "the X option" names, else nothing', () => {
    expect(subjectOf('What does the deep option do?')).toBe('deep option');
    expect(subjectOf('How do I create a job queue?')).toBe('');
  });
});
