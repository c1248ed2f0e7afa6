/**
 * Builds and packs the package into a temporary directory, as `npm publish` would ship it,
 * without touching the shared `dist/`: the tsup configuration of the repository with another
 * output directory, then `npm pack` of a staging directory holding that build and the files
 * `package.json#files` lists.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root. */
export const root = join(import.meta.dirname, '../..');

/** The parts of package.json the package tests read. */
export interface PackageJson {
  readonly name: string;
  readonly files: readonly string[];
  readonly exports: Record<string, unknown>;
  readonly typesVersions?: Record<string, Record<string, readonly string[]>>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

/** The repository's package.json. */
export function readPackageJson(): PackageJson {
  return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
}

/** One file of the tarball, as `npm pack --json` lists it. */
export interface PackedFile {
  readonly path: string;
  readonly size: number;
}

/** A packed build. */
export interface PackedPackage {
  /** The `.tgz` file. */
  readonly tarball: string;
  /** Compressed size in bytes. */
  readonly size: number;
  /** Sum of the file sizes in bytes. */
  readonly unpackedSize: number;
  /** Every file in the tarball (paths relative to the package root). */
  readonly files: readonly PackedFile[];
}

/** Runs a command; a failure carries its output. */
async function exec(command: string, args: readonly string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await run(command, args, {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1', npm_config_update_notifier: 'false' },
    });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`, { cause: error });
  }
}

/** `tsup` with the repository's configuration, writing to `outDir`. */
export async function buildInto(outDir: string): Promise<void> {
  const tsup = JSON.parse(readFileSync(join(root, 'node_modules/tsup/package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  const cli = join(root, 'node_modules/tsup', tsup.bin['tsup']!);
  await exec(process.execPath, [cli, '--out-dir', outDir, '--silent'], root);
}

/** Builds the package into `work/stage` and packs it into `work`. */
export async function buildAndPack(work: string): Promise<PackedPackage> {
  const stage = join(work, 'stage');
  mkdirSync(stage, { recursive: true });
  await buildInto(join(stage, 'dist'));
  for (const file of ['package.json', ...readPackageJson().files]) {
    if (file !== 'dist' && existsSync(join(root, file))) {
      copyFileSync(join(root, file), join(stage, file));
    }
  }
  const output = await exec(
    'npm',
    ['pack', '--json', '--ignore-scripts', '--pack-destination', work],
    stage,
  );
  const [packed] = JSON.parse(output) as [
    { filename: string; size: number; unpackedSize: number; files: PackedFile[] },
  ];
  return {
    tarball: join(work, packed.filename),
    size: packed.size,
    unpackedSize: packed.unpackedSize,
    files: packed.files,
  };
}

/**
 * Installs a tarball into `project/node_modules/<name>` without the network: the tarball is
 * extracted there and each of `links` (dependencies, peers, type packages) is linked from the
 * repository's node_modules.
 */
export async function installOffline(
  tarball: string,
  project: string,
  name: string,
  links: Iterable<string>,
): Promise<void> {
  const target = join(project, 'node_modules', name);
  mkdirSync(target, { recursive: true });
  await exec('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], project);
  for (const link of new Set(links)) {
    const source = join(root, 'node_modules', link);
    const destination = join(project, 'node_modules', link);
    if (!existsSync(source) || existsSync(destination)) continue;
    mkdirSync(dirname(destination), { recursive: true });
    symlinkSync(source, destination, 'dir');
  }
}

/** Runs the repository's TypeScript compiler on a project; resolves with its diagnostics. */
export async function typeCheck(project: string, tsconfig: string): Promise<string> {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  try {
    await run(process.execPath, [tsc, '-p', tsconfig, '--pretty', 'false'], {
      cwd: project,
      maxBuffer: 64 * 1024 * 1024,
    });
    return '';
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return `${stdout}${stderr}`.trim() || String(error);
  }
}

/** A runner of async tasks, at most `limit` at a time (the rest wait in order). */
export function limitConcurrency(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}
