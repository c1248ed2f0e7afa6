import { describe, expect, it } from 'vitest';

import { namedSubjects, resolveFollowUp, subjectOf } from '../../src/text/follow-up.js';

describe('resolveFollowUp', () => {
  it('needs an earlier question, and leaves a question that needs nothing from it alone', () => {
    expect(resolveFollowUp('And synchronously?', [])).toBeNull();
    expect(resolveFollowUp('What is the error code of SocketError?', ['Which errors exist?'])).toBe(
      null,
    );
    expect(resolveFollowUp('How long does shipping take?', ['What is the refund policy?'])).toBe(
      null,
    );
    expect(resolveFollowUp('Is it possible to cancel?', ['Is it possible to retry?'])).toBeNull();
  });

  it('puts a bare fragment in the place of its sibling word in the previous question', () => {
    expect(resolveFollowUp('And synchronously?', ['How do I read a file asynchronously?'])).toEqual(
      {
        question: 'How do I read a file synchronously?',
        subject: '',
        named: false,
        replaced: ['asynchronously'],
      },
    );
    expect(
      resolveFollowUp('What about recursively?', ['Can I copy folders non-recursively?']),
    ).toMatchObject({ question: 'Can I copy folders recursively?' });
    expect(
      resolveFollowUp('and onlyDirectories?', ['What does onlyFiles default to?']),
    ).toMatchObject({ question: 'What does onlyDirectories default to?', replaced: ['onlyfiles'] });
  });

  it('replaces a name by a name, a phrase by a phrase, else the last topic word', () => {
    expect(resolveFollowUp('And RetryHandler?', ['What does RetryAgent accept?'])).toMatchObject({
      question: 'What does RetryHandler accept?',
    });
    expect(
      resolveFollowUp('How about on Windows?', ['How do I install it on Linux?']),
    ).toMatchObject({ question: 'How do I install it on Windows?', replaced: ['linux'] });
    expect(resolveFollowUp('And timeouts?', ['How do I configure retries?'])).toMatchObject({
      question: 'How do I configure timeouts?',
      replaced: ['retries'],
    });
  });

  it('makes a fragment that asks something the question, about the previous subject', () => {
    expect(resolveFollowUp('And what is the default?', ['How do I set the timeout?'])).toEqual({
      question: 'What is the default?',
      subject: 'timeout',
      named: false,
      replaced: [],
    });
    expect(
      resolveFollowUp('Also, which flag turns it off?', ['What does the cache do?']),
    ).toMatchObject({ question: 'Which flag turns it off?', subject: 'cache' });
    // Words of its own: a new question, without its lead, inheriting only a named subject.
    expect(
      resolveFollowUp('But which setting limits the queue length?', ['How are jobs scheduled?']),
    ).toEqual({
      question: 'Which setting limits the queue length?',
      subject: '',
      named: false,
      replaced: [],
    });
  });

  it('gives the previous subject for a pronoun, beside the user’s words', () => {
    expect(resolveFollowUp('How do I stop it?', ['How do I start a worker pool?'])).toEqual({
      question: 'How do I stop it?',
      subject: 'worker pool',
      named: false,
      replaced: [],
    });
    expect(
      resolveFollowUp('What is its maximum?', ['What is the retryDelay option?']),
    ).toMatchObject({ subject: 'retryDelay' });
    expect(
      resolveFollowUp('Can this option be a function?', ['What does the `filter` do?']),
    ).toMatchObject({ subject: 'filter' });
  });

  it('carries a named subject to a question that names nothing of its own', () => {
    expect(
      resolveFollowUp('Which headers does the request send?', [
        'How do I call Google Cloud Storage?',
      ]),
    ).toMatchObject({ subject: 'Google Cloud Storage', named: true });
    expect(
      resolveFollowUp('What does the error look like?', ['How do I use the yaml package?']),
    ).toMatchObject({ subject: 'yaml package' });
  });

  it('resolves a chain of follow-ups from the first question on', () => {
    const resolved = resolveFollowUp('What is its default?', [
      'How do I read a file asynchronously?',
      'And synchronously?',
    ]);
    expect(resolved?.subject).toContain('synchronously');
    expect(resolved?.subject).not.toContain('asynchronously');
  });
});

describe('subjects', () => {
  it('names identifiers and capitalised names past the first word', () => {
    expect(namedSubjects('Does `fs.readFile()` use Amazon S3 or fetchImpl?')).toEqual([
      'fs.readFile()',
      'Amazon S3',
      'fetchImpl',
    ]);
    expect(namedSubjects('What does the deep option do?')).toEqual([]);
  });

  it('falls back to the kind phrase, then to the topic words without a how-to verb', () => {
    expect(subjectOf('What does the deep option do?')).toEqual({
      text: 'deep option',
      named: true,
    });
    expect(subjectOf('How do I create a job queue?')).toEqual({ text: 'job queue', named: false });
  });
});
