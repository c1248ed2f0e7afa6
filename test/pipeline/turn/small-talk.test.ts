import { describe, expect, it } from 'vitest';
import {
  isSmallTalk,
  SMALL_TALK_REPLIES,
  smallTalkKind,
  smallTalkReply,
} from '../../../src/pipeline/turn/small-talk.js';

describe('isSmallTalk', () => {
  it.each([
    ['hi', 'greeting'],
    ['Hello!', 'greeting'],
    ['hey there 👋', 'greeting'],
    ['Good morning', 'greeting'],
    ['Bonjour', 'greeting'],
    ['hola', 'greeting'],
    ['Thanks!', 'thanks'],
    ['thank you so much', 'thanks'],
    ['great, thanks!', 'thanks'],
    ['OK thanks', 'thanks'],
    ['Hi there, thanks for the help!', 'thanks'],
    ['merci beaucoup', 'thanks'],
    ['bye', 'goodbye'],
    ['Thanks, bye!', 'goodbye'],
    ['See you later!', 'goodbye'],
    ['how are you?', 'how-are-you'],
    ['Hi, how are you doing today?', 'how-are-you'],
    ['ok', 'acknowledgement'],
    ['Got it.', 'acknowledgement'],
    ['ok cool', 'acknowledgement'],
  ])('%j is small talk (%s)', (message, kind) => {
    expect(isSmallTalk(message)).toBe(true);
    expect(smallTalkKind(message)).toBe(kind);
  });

  it.each([
    'hi, what is the refund policy?',
    'Hello, can you help me with refunds?',
    'thanks, but what about shipping?',
    'ok so how long do refunds take',
    'What is a greeting?',
    'How are refunds processed?',
    'how are you supposed to reset a password?',
    'Good morning routine tips',
    'bye-laws of the company',
    'hi-fi speakers warranty',
    'Hello world program in Python',
    'thank you notes policy',
    'great depression causes',
    'yes',
    '',
    '   ',
    `thanks ${'really '.repeat(20)}`,
  ])('%j is not small talk', (message) => {
    expect(isSmallTalk(message)).toBe(false);
  });
});

describe('smallTalkReply', () => {
  it('answers each kind with its own fixed reply', () => {
    expect(smallTalkReply('hello')).toBe(SMALL_TALK_REPLIES.greeting);
    expect(smallTalkReply('thanks!')).toBe(SMALL_TALK_REPLIES.thanks);
    expect(smallTalkReply('goodbye')).toBe(SMALL_TALK_REPLIES.goodbye);
    expect(smallTalkReply('how are you')).toBe(SMALL_TALK_REPLIES['how-are-you']);
    expect(smallTalkReply('ok')).toBe(SMALL_TALK_REPLIES.acknowledgement);
    expect(new Set(Object.values(SMALL_TALK_REPLIES)).size).toBe(5);
  });

  it('falls back to the greeting reply for anything else', () => {
    expect(smallTalkReply('What is the refund policy?')).toBe(SMALL_TALK_REPLIES.greeting);
  });
});
