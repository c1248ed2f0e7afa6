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
    expect(resolveFollowUp('Is it possible to cancel?', ['Is it possible to retry?'])).toBeNull();
  });

  it('makes a fragment after a lead word the question, about the previous subject', () => {
    expect(resolveFollowUp('And what is the default?', ['How do I set the timeout?'])).toEqual({
      question: 'What is the default?',
      subject: 'timeout',
      named: false,
    });
    expect(resolveFollowUp('but, how do I stop it', ['How do I start a worker pool?'])).toEqual({
      question: 'How do I stop it?',
      subject: 'worker pool',
      named: false,
    });
    expect(resolveFollowUp('Also, which flag turns it off?', ['What does the cache do?'])).toEqual({
      question: 'Which flag turns it off?',
      subject: 'cache',
      named: false,
    });
    // Words of its own: a new question, without its lead, inheriting only a named subject.
    expect(
      resolveFollowUp('But which setting limits the queue length?', ['How are jobs scheduled?']),
    ).toEqual({ question: 'Which setting limits the queue length?', subject: '', named: false });
    expect(
      resolveFollowUp('And which setting limits the queue length?', ['What is a WorkerPool?']),
    ).toEqual({
      question: 'Which setting limits the queue length?',
      subject: 'WorkerPool',
      named: true,
    });
    // "And" inside a question, or a fragment that asks nothing, is left alone.
    expect(resolveFollowUp('Andromeda?', ['How do I set the timeout?'])).toBeNull();
    expect(resolveFollowUp('And synchronously?', ['How do I read a file?'])).toBeNull();
  });

  it('carries a named subject to a question that names nothing of its own', () => {
    expect(
      resolveFollowUp('Which headers does the request send?', [
        'How do I call Google Cloud Storage?',
      ]),
    ).toEqual({
      question: 'Which headers does the request send?',
      subject: 'Google Cloud Storage',
      named: true,
    });
    expect(
      resolveFollowUp('What does the error look like?', ['How do I use the yaml package?']),
    ).toMatchObject({ subject: 'yaml package', named: true });
    expect(
      resolveFollowUp('What does the `strict` flag do?', ['How do I use the yaml package?']),
    ).toBeNull();
  });

  it('resolves a chain of follow-ups from the first question on', () => {
    const resolved = resolveFollowUp('And what is its type?', [
      'What is the `retryDelay` option?',
      'And what is the default?',
    ]);
    expect(resolved).toEqual({ question: 'What is its type?', subject: 'retryDelay', named: true });
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
