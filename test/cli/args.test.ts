import { describe, expect, it } from 'vitest';
import { COMMANDS, parseCommandLine, USAGE, UsageError } from '../../src/cli/args.js';

describe('CLI arguments', () => {
  it('reads every flag of ask', () => {
    expect(
      parseCommandLine([
        'ask',
        'docs',
        'notes',
        '--json',
        '--stream',
        '--top-k',
        '3',
        '--provider',
        'ollama',
        '--model',
        'llama3.2',
        '--no-cache',
        '--progress',
        'What is the policy?',
      ]),
    ).toEqual({
      command: 'ask',
      paths: ['docs', 'notes'],
      question: 'What is the policy?',
      stream: true,
      json: true,
      noCache: true,
      progress: true,
      topK: 3,
      provider: 'ollama',
      model: 'llama3.2',
    });
  });

  it('rejects unknown flags instead of reading them as paths', () => {
    expect(() => parseCommandLine(['ask', 'docs', '--jsn', 'question'])).toThrow(UsageError);
    expect(() => parseCommandLine(['ask', 'docs', '--jsn', 'question'])).toThrow(/'--jsn'/);
    expect(() => parseCommandLine(['--verbose'])).toThrow(/Unknown option '--verbose'/);
    expect(() => parseCommandLine(['serve'])).toThrow(/Unknown command 'serve'/);
  });

  it('names the flag of a bad value', () => {
    expect(() => parseCommandLine(['ask', 'docs', '--top-k', '0', 'q'])).toThrow(/--top-k/);
    expect(() => parseCommandLine(['ask', 'docs', '--top-k', '2.5', 'q'])).toThrow(/--top-k/);
    expect(() => parseCommandLine(['ask', 'docs', '--provider', 'gpt', 'q'])).toThrow(
      /--provider must be one of openai, anthropic, ollama, extractive/,
    );
    expect(() => parseCommandLine(['sessions', '--limit', 'all'])).toThrow(/--limit/);
    expect(() => parseCommandLine(['chat', 'docs', '--session'])).toThrow(UsageError);
  });

  it('has help for every command and a version flag', () => {
    for (const command of COMMANDS) {
      expect(parseCommandLine([command, '--help'])).toEqual({ command: 'help', topic: command });
      expect(parseCommandLine(['help', command])).toEqual({ command: 'help', topic: command });
      expect(USAGE[command]).toMatch(new RegExp(`^Usage: cortexis ${command}`));
    }
    expect(parseCommandLine([])).toEqual({ command: 'help' });
    expect(parseCommandLine(['--version'])).toEqual({ command: 'version' });
    expect(parseCommandLine(['-v'])).toEqual({ command: 'version' });
  });

  it('asks for the missing arguments', () => {
    expect(() => parseCommandLine(['ask', 'docs'])).toThrow(/one path and a question/);
    expect(() => parseCommandLine(['chat'])).toThrow(/at least one path/);
    expect(() => parseCommandLine(['index'])).toThrow(/at least one path/);
  });
});
