import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/adapters/extractive/provider.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';

const ask = (question: string, sources: PromptSource[]) =>
  composeAnswer({ messages: [{ role: 'user', content: question }], sources }).text;

// Three chunks of debug's README (bench/docs/corpora/readmes, MIT), as retrieval returned them
// for the follow-up below.
const DEBUG_VARIABLES: PromptSource[] = [
  {
    label: 'S1',
    text: '## Environment Variables\n\nWhen running through Node.js, you can set a few environment variables that will\nchange the behavior of the debug logging:\n\nName | Purpose\nDEBUG | Enables/disables specific debugging namespaces.\nDEBUG_HIDE_DATE | Hide date from debug output (non-TTY).\nDEBUG_COLORS | Whether or not to use colors in the debug output.\nDEBUG_DEPTH | Object inspection depth.\nDEBUG_SHOW_HIDDEN | Shows hidden properties on inspected objects.\n\nNote: The environment variables beginning with DEBUG_ end up being\nconverted into an Options object that gets used with %o/%O formatters.\nSee the Node.js documentation for\nutil.inspect()\nfor the complete list.',
    title: 'debug',
    section: 'debug \u203a Environment Variables',
  },
  {
    label: 'S2',
    text: '## Conventions\n\nIf you\'re using this in one or more of your libraries, you should use the name of your library so that developers may toggle debugging as desired without guessing names. If you have more than one debuggers you should prefix them with your library name and use ":" to separate features. For example "bodyParser" from Connect would then be "connect:bodyParser".  If you append a "*" to the end of your name, it will always be enabled regardless of the setting of the DEBUG environment variable.  You can then use it for normal output as well as debug output.',
    title: 'debug',
    section: 'debug \u203a Conventions',
  },
  {
    label: 'S3',
    text: "## Usage in child processes\n\nDue to the way debug detects if the output is a TTY or not, colors are not shown in child processes when stderr is piped. A solution is to pass the DEBUG_COLORS=1 environment variable to the child process.\nFor example:\n\n```javascript\nworker = fork(WORKER_WRAP_PATH, [workerPath], {\n  stdio: [\n    /* stdin: */ 0,\n    /* stdout: */ 'pipe',\n    /* stderr: */ 'pipe',\n    'ipc',\n  ],\n  env: Object.assign({}, process.env, {\n    DEBUG_COLORS: 1 // without this settings, colors won't be shown\n  }),\n});\n\nworker.stderr.pipe(process.stderr, { end: false });\n```",
    title: 'debug',
    section: 'debug \u203a Usage in child processes',
  },
];

// Two chunks of semver's README (bench/docs/corpora/semver-readme, ISC), as retrieval returned
// them for the question below.
const SEMVER: PromptSource[] = [
  {
    label: 'S1',
    text: '#### Hyphen Ranges X.Y.Z - A.B.C\n\nSpecifies an inclusive set.\n\n- 1.2.3 - 2.3.4 := >=1.2.3 <=2.3.4\n\nIf a partial version is provided as the first version in the inclusive\nrange, then the missing pieces are replaced with zeroes.\n\n- 1.2 - 2.3.4 := >=1.2.0 <=2.3.4\n\nIf a partial version is provided as the second version in the\ninclusive range, then all versions that start with the supplied parts\nof the tuple are accepted, but nothing that would be greater than the\nprovided tuple parts.\n\n- 1.2.3 - 2.3 := >=1.2.3 <2.4.0-0\n- 1.2.3 - 2 := >=1.2.3 <3.0.0-0',
    title: 'semver(1) -- The semantic versioner for npm',
    section:
      'semver(1) -- The semantic versioner for npm › Ranges › Advanced Range Syntax › Hyphen Ranges X.Y.Z - A.B.C',
  },
  {
    label: 'S2',
    text: "## Usage\n\nAs a node module:\n\n```js\nconst semver = require('semver')\n\nsemver.valid('1.2.3') // '1.2.3'\nsemver.valid('a.b.c') // null\nsemver.clean('  =v1.2.3   ') // '1.2.3'\nsemver.satisfies('1.2.3', '1.x || >=2.5.0 || 5.0.0 - 7.2.3') // true\nsemver.gt('1.2.3', '9.8.7') // false\nsemver.lt('1.2.3', '9.8.7') // true\nsemver.minVersion('>=1.0.0') // '1.0.0'\nsemver.valid(semver.coerce('v2')) // '2.0.0'\nsemver.valid(semver.coerce('42.6.7.9.3-alpha')) // '42.6.7'\n```",
    title: 'semver(1) -- The semantic versioner for npm',
    section: 'semver(1) -- The semantic versioner for npm › Usage',
  },
];

describe('the row a question names, and code that writes what the question writes', () => {
  it('answers with the row whose key the question names, without the lead-in of its table', () => {
    // A follow-up to "How do I use the debug package?", as the engine passes it: the user's
    // words and the query retrieval was rewritten to.
    const text = composeAnswer({
      messages: [
        { role: 'user', content: 'Which environment variable sets the object inspection depth?' },
      ],
      retrievalQuery: 'environment variable sets object inspection depth debug package use',
      sources: DEBUG_VARIABLES,
    }).text;
    expect(text).toMatch(/^DEBUG_DEPTH — Object inspection depth/);
    expect(text).not.toContain('When running through Node.js');
  });

  it('quotes an example of the very call the question writes', () => {
    // Not a how-to: code is quoted because it writes `semver.valid('a.b.c')`.
    const text = ask("What does `semver.valid('a.b.c')` return?", SEMVER);
    expect(text).toContain("semver.valid('a.b.c') // null");
  });

  it('does not quote code that only shares words with the question', () => {
    const text = ask('What does semver valid return for a hyphen range?', SEMVER);
    expect(text).not.toContain('```');
  });
});
