import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/adapters/extractive/provider.js';
import type { PromptSource } from '../../../src/ports/llm-provider.js';

const ask = (question: string, sources: PromptSource[]) =>
  composeAnswer({ messages: [{ role: 'user', content: question }], sources }).text;

// Two chunks of safer-buffer's porting guide (bench/docs/corpora/safer-buffer-docs, MIT), as
// retrieval returned them.
const GREP: PromptSource[] = [
  {
    label: 'S1',
    text: "### Finding problematic bits of code using grep\n\nJust run grep -nrE '[^a-zA-Z](Slow)?Buffer\\s*\\(' --exclude-dir node_modules.\n\nIt will find all the potentially unsafe places in your own code (with some considerably unlikely\nexceptions).",
    title: 'Porting to the Buffer.from/Buffer.alloc API',
    section:
      'Porting to the Buffer.from/Buffer.alloc API › Overview › Finding problematic bits of code using grep',
  },
  {
    label: 'S2',
    text: "### Finding problematic bits of code using linters\n\nEslint rules no-buffer-constructor\nor\nnode/no-deprecated-api\nalso find calls to deprecated Buffer() API. Those rules are included in some pre-sets.\n\nThere is a drawback, though, that it doesn't always\nwork correctly when Buffer is\noverriden e.g. with a polyfill, so recommended is a combination of this and some other method\ndescribed above.",
    title: 'Porting to the Buffer.from/Buffer.alloc API',
    section:
      'Porting to the Buffer.from/Buffer.alloc API › Overview › Finding problematic bits of code using linters',
  },
];

// The chunk of js-yaml's README documenting dump's options (bench/docs/corpora/readmes, MIT).
const DUMP: PromptSource[] = [
  {
    label: 'S1',
    text: '### dump (object [ , options ])\n\nSerializes object as a YAML document. Uses DEFAULT_SCHEMA, so it will\nthrow an exception if you try to dump regexps or functions. However, you can\ndisable exceptions by setting the skipInvalid option to true.\n\noptions:\n\n- indent (default: 2) - indentation width to use (in spaces).\n- noArrayIndent (default: false) - when true, will not add an indentation level to array elements\n- skipInvalid (default: false) - do not throw on invalid types (like function\n  in the safe schema) and skip pairs and single values with such types.\n- flowLevel (default: -1) - specifies level of nesting, when to switch from\n  block to flow style for collections. -1 means block style everwhere\n- styles - "tag" => "style" map. Each tag may have own set of styles.\n- schema (default: DEFAULT_SCHEMA) specifies a schema to use.\n- sortKeys (default: false) - if true, sort keys when dumping YAML. If a\n  function, use the function to sort the keys.\n- lineWidth (default: 80) - set max line width. Set -1 for unlimited width.\n- noRefs (default: false) - if true, don\'t convert duplicate objects into references\n- noCompatMode (default: false) - if true don\'t try to be compatible with older\n  yaml versions. Currently: don\'t quote "yes", "no" and so on, as required for YAML 1.1\n- condenseFlow (default: false) - if true flow sequences will be condensed, omitting the space between a, b. Eg. \'[a,b]\', and omitting the space between key: value and quoting the key. Eg. \'{"a":b}\' Can be useful when using yaml for pretty URL query params as spaces are %-encoded.\n- quotingType (\' or ", default: \') - strings will be quoted using this quoting style. If you specify single quotes, double quotes will still be used for non-printable characters.\n- forceQuotes (default: false) - if true, all non-key strings will be quoted even if they normally don\'t need to.\n- replacer - callback function (key, value) called recursively on each key/value in source object (see replacer docs for JSON.stringify).',
    title: 'JS-YAML - YAML 1.2 parser / writer for JavaScript',
    section:
      'JS-YAML - YAML 1.2 parser / writer for JavaScript › API › dump (object [ , options ])',
  },
];

describe("a section's opening sentence and a list item are read with their heading", () => {
  it('quotes the sentence opening the section its heading names', () => {
    // "grep" and "finding" are in S1's heading; the sentence further down has "unsafe" and "code".
    // Since the units are read with their section path (answers15), the sentence further down
    // covers "grep" and "Buffer" at a quarter weight and is quoted first; the command still is.
    const text = ask('Which grep command finds the unsafe Buffer calls in my code?', GREP);
    expect(text).toContain('Just run grep -nrE');
  });

  it('answers a default from the item asked for, read with the API heading it is filed under', () => {
    // Read with "dump (object [ , options ])", the lineWidth item leads by enough that the
    // sortKeys item ("when dumping YAML") no longer joins it.
    const text = ask('What is the default lineWidth of js-yaml dump?', DUMP);
    expect(text).toContain('lineWidth (default: 80)');
    expect(text).not.toContain('sortKeys');
  });
});
