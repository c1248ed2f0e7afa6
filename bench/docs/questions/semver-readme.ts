/**
 * Questions on semver's README (one large file whose facts are mostly in bullet lists: range
 * equivalences "`^0.2.3` := `>=0.2.3 <0.3.0-0`", function definitions "`name(args)`: what it
 * returns", a CLI usage block of options with their defaults, constants stated by a heading
 * and one line). Written and committed before the engine was run on it. Split: unanswerable,
 * off-topic and follow-up questions alternate (even positions tune, odd test); answerable ones
 * alternate within each answer kind (`splitsByKind` in `../grade.ts`).
 */
import type { QuestionSet } from './types.js';

const README = ['README.md'];

export const semverReadme: QuestionSet = {
  corpus: 'semver-readme',
  source: 'semver@7.8.6, README.md (ISC)',
  answerable: [
    {
      question: 'How do I install semver?',
      fact: '`npm install semver`',
      files: README,
      pattern: /npm install semver/,
      kind: 'code',
    },
    {
      question: 'What range does `^0.2.3` allow?',
      fact: '`^0.2.3` := `>=0.2.3 <0.3.0-0`',
      files: README,
      pattern: />=0\.2\.3 <0\.3\.0/,
      kind: 'list',
    },
    {
      question: 'What does the tilde range `~1.2` desugar to?',
      fact: '`~1.2` := `>=1.2.0 <1.(2+1).0` := `>=1.2.0 <1.3.0-0`',
      files: README,
      pattern: />=1\.2\.0 <1\.3\.0/,
      kind: 'list',
    },
    {
      question: 'Which command-line flag makes semver interpret versions and ranges loosely?',
      fact: '`-l --loose`',
      files: README,
      pattern: /--loose\b/,
      kind: 'code',
    },
    {
      question: 'What is the default increment level of the semver command-line utility?',
      fact: "Default level is 'patch'.",
      files: README,
      pattern: /level is '?patch/i,
      kind: 'default',
    },
    {
      question:
        'Which number does the command line use as the base of a prerelease identifier by default?',
      fact: 'Base number for prerelease identifier (default: 0).',
      files: README,
      pattern: /default:?\s*0\b|zero-based/i,
      kind: 'default',
    },
    {
      question: 'What does the hyphen range `1.2.3 - 2.3.4` mean?',
      fact: '`1.2.3 - 2.3.4` := `>=1.2.3 <=2.3.4`',
      files: README,
      pattern: />=1\.2\.3 <=2\.3\.4/,
      kind: 'list',
    },
    {
      question: 'Which operators can a comparator use?',
      fact: '`<` Less than, `<=`, `>` Greater than, `>=`, `=` Equal',
      files: README,
      pattern: /Less than[\s\S]*Greater than/,
      kind: 'list',
    },
    {
      question: 'How do I increment a version to a beta prerelease?',
      fact: "`semver.inc('1.2.3', 'prerelease', 'beta')` or `semver 1.2.3 -i prerelease --preid beta`",
      files: README,
      pattern: /inc\('1\.2\.3', 'prerelease', 'beta'|-i prerelease --preid beta/,
      kind: 'code',
    },
    {
      question: 'How do I get out of the prerelease phase on the command line?',
      fact: '`semver 1.2.4-beta.1 -i release`',
      files: README,
      pattern: /-i release/,
      kind: 'code',
    },
    {
      question: "What does `semver.valid('a.b.c')` return?",
      fact: "`semver.valid('a.b.c') // null`",
      files: README,
      pattern: /\bnull\b/,
      kind: 'code',
    },
    {
      question: 'What does the clean function do?',
      fact: 'Clean a string to be a valid semver if possible; returns a cleaned and trimmed version',
      files: README,
      pattern: /cleaned and trimmed|valid semver if possible/,
      kind: 'list',
    },
    {
      question: 'Which function returns the highest version in a list that satisfies a range?',
      fact: '`maxSatisfying(versions, range)`',
      files: README,
      pattern: /maxSatisfying/,
      kind: 'list',
    },
    {
      question: 'What does compare return when v2 is greater?',
      fact: '`-1`',
      files: README,
      pattern: /(?:^|[\s`(])-1\b/,
      kind: 'list',
    },
    {
      question: 'What is the longest string that coerce will consider?',
      fact: 'up to the max permitted length (256 characters)',
      files: README,
      pattern: /256/,
      kind: 'prose',
    },
    {
      question: 'How long can a single version component be to be considered for coercion?',
      fact: 'The maximum length for any semver component considered for coercion is 16 characters',
      files: README,
      pattern: /16 characters/,
      kind: 'prose',
    },
    {
      question: 'Which options does every semver function accept?',
      fact: '`loose` and `includePrerelease`',
      files: README,
      pattern: /loose[\s\S]*includePrerelease|includePrerelease[\s\S]*loose/,
      kind: 'list',
    },
    {
      question: 'What value do the options of the options object have unless set?',
      fact: 'All options in this object are `false` by default.',
      files: README,
      pattern: /`?false`? by default/,
      kind: 'default',
    },
    {
      question: 'Why are prerelease versions excluded from range matching?',
      fact: 'they are updated very quickly and contain breaking changes not yet fit for public consumption',
      files: README,
      pattern: /updated very quickly|not yet fit for public consumption/,
      kind: 'prose',
    },
    {
      question: 'How do I make range matching include prerelease versions?',
      fact: 'set the `includePrerelease` flag on the options object (CLI: `-p --include-prerelease`)',
      files: README,
      pattern: /includePrerelease|include-prerelease/,
      kind: 'prose',
    },
    {
      question: 'Which release types does the RELEASE_TYPES constant list?',
      fact: 'major, premajor, minor, preminor, patch, prepatch, prerelease',
      files: README,
      pattern: /premajor[\s\S]*preminor[\s\S]*prepatch/,
      kind: 'list',
    },
    {
      question: 'Which version of the SemVer specification does node-semver implement?',
      fact: '2.0.0 (`SEMVER_SPEC_VERSION`)',
      files: README,
      pattern: /2\.0\.0/,
      kind: 'prose',
    },
    {
      question: 'Which versions does the X-range `*` match?',
      fact: '`*` := `>=0.0.0` (any non-prerelease version)',
      files: README,
      pattern: />=0\.0\.0|any non-prerelease version/,
      kind: 'list',
    },
    {
      question: "What does coerce make of the string 'v3.4 replaces v3.3.1'?",
      fact: '`3.4.0`',
      files: README,
      pattern: /3\.4\.0/,
      kind: 'prose',
    },
    {
      question: 'Which module do I require to load only the compare function?',
      fact: "`require('semver/functions/compare')`",
      files: README,
      pattern: /semver\/functions\/compare'/,
      kind: 'code',
    },
    {
      question:
        'Which function tells whether a version is greater than every version a range allows?',
      fact: '`gtr(version, range)`',
      files: README,
      pattern: /\bgtr\b/,
      kind: 'list',
    },
    // Round 14 (lead): questions that ask with a verb governing "whether"/"if", written
    // before the engine was run on them.
    {
      question: 'How do I check whether a version satisfies a range?',
      fact: '`satisfies(version, range)`: Return true if the version satisfies the range.',
      files: README,
      pattern: /satisfies\(version, range\)/,
      kind: 'list',
    },
    {
      question: 'How can I check if a version string is valid?',
      fact: "`valid(v)`: Return the parsed version, or null if it's not valid.",
      files: README,
      pattern: /valid\(v\)/,
      kind: 'list',
    },
  ],
  unanswerable: [
    'Which Node.js version does semver require?',
    'How do I compare Python package versions that follow PEP 440?',
    'Can semver parse Maven version ranges such as [1.0,2.0)?',
    'Is semver faster than the compare-versions package?',
    'Does semver ship TypeScript type definitions?',
    'How do I publish a new version of my package to the npm registry?',
  ],
  offTopic: [
    'What is the capital of Australia?',
    'How long should I boil an egg for a soft yolk?',
    'Who wrote the novel War and Peace?',
  ],
  followUps: [
    {
      turns: ['What does the caret range `^1.2.3` allow?', 'And `^0.0.3`?'],
      fact: '`^0.0.3` := `>=0.0.3 <0.0.4-0`',
      files: README,
      pattern: />=0\.0\.3 <0\.0\.4/,
      kind: 'list',
    },
    {
      turns: ['What does the gt function do?', 'And lte?'],
      fact: '`lte(v1, v2)`: `v1 <= v2`',
      files: README,
      pattern: /v1 <= v2/,
      kind: 'list',
    },
    {
      turns: ['What does the satisfies function do?', 'And minSatisfying?'],
      fact: 'Return the lowest version in the list that satisfies the range, or `null`',
      files: README,
      pattern: /lowest version in the list/,
      kind: 'list',
    },
    {
      turns: ['What does the coerce function do?', 'What does its rtl option change?'],
      fact: 'coerce returns the right-most coercible tuple that does not share an ending index with a longer coercible tuple',
      files: README,
      pattern: /right-most\s+coercible\s+tuple/,
      kind: 'prose',
    },
    {
      turns: [
        'Which flag increments a version on the semver command line?',
        'And which one sets the prerelease identifier?',
      ],
      fact: '`--preid <identifier>`',
      files: README,
      pattern: /--preid/,
      kind: 'code',
    },
    {
      turns: ['What does the sort function do?', 'How do I sort in descending order instead?'],
      fact: '`rsort(versions)`: The reverse of `sort`',
      files: README,
      pattern: /rsort/,
      kind: 'list',
    },
    {
      turns: ['What does the tilde range `~1.2.3` allow?', 'What about `~0`?'],
      fact: '`~0` := `>=0.0.0 <(0+1).0.0` := `>=0.0.0 <1.0.0-0`',
      files: README,
      pattern: />=0\.0\.0 <1\.0\.0/,
      kind: 'list',
    },
    {
      turns: ['What does the diff function return?', 'And when the versions are the same?'],
      fact: 'or null if the versions are the same',
      files: README,
      pattern: /null if the versions are the same/,
      kind: 'list',
    },
    {
      turns: ['What does the `outside` function do?', 'Which values can its hilo argument take?'],
      fact: "The `hilo` argument must be either the string `'>'` or `'<'`.",
      files: README,
      pattern: /'>'[^\n]{0,20}'<'|either the string/,
      kind: 'list',
    },
  ],
};
