/** How the CLI reads files besides the paths: the same for indexing, source stamps and `mcp`. */

/** The ignore file the CLI reads at the top of each folder it is given. */
export const CLI_IGNORE_FILE = '.cortexisignore';

/** The CLI's flags that decide what is read: record fields and `--ignore`. */
export interface ReadFlags {
  readonly textField?: string | undefined;
  readonly titleField?: string | undefined;
  readonly ignore?: readonly string[] | undefined;
}

/** The `loadDocuments` options of the CLI's flags: record fields, `--ignore`, `.cortexisignore`. */
export function readOptions(flags: ReadFlags): {
  textField?: string;
  titleField?: string;
  ignore?: readonly string[];
  ignoreFile: string;
} {
  return {
    ...(flags.textField === undefined ? {} : { textField: flags.textField }),
    ...(flags.titleField === undefined ? {} : { titleField: flags.titleField }),
    ...(flags.ignore === undefined ? {} : { ignore: flags.ignore }),
    ignoreFile: CLI_IGNORE_FILE,
  };
}
