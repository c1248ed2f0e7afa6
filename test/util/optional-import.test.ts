import { describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { importOptional } from '../../src/util/optional-import.js';

interface Greeter {
  greet(): string;
}

const greeter: Greeter = { greet: () => 'hello' };
const missing = () => Promise.reject(new Error("Cannot find package 'greeter'"));

describe('importOptional', () => {
  it('returns an injected module without importing the package', async () => {
    const load = vi.fn(missing);
    const library = await importOptional<Greeter>({
      name: 'greeter',
      load,
      injected: greeter,
      neededBy: 'test',
    });
    expect(library).toBe(greeter);
    expect(load).not.toHaveBeenCalled();
  });

  it('calls an injected loader instead of importing the package', async () => {
    const load = vi.fn(missing);
    const loader = vi.fn(() => Promise.resolve(greeter));
    const library = await importOptional<Greeter>({
      name: 'greeter',
      load,
      injected: loader,
      neededBy: 'test',
    });
    expect(library).toBe(greeter);
    expect(loader).toHaveBeenCalledOnce();
    expect(load).not.toHaveBeenCalled();
  });

  it('takes an injected class as the library when the library is a class', async () => {
    class Database {}
    const library = await importOptional<typeof Database>({
      name: 'database',
      load: missing,
      injected: Database,
      neededBy: 'test',
      isClass: true,
    });
    expect(library).toBe(Database);
  });

  it('imports the package when nothing is injected, unwrapping a CommonJS default', async () => {
    const imported = await importOptional<Greeter>({
      name: 'greeter',
      load: () => Promise.resolve({ default: greeter }),
      neededBy: 'test',
    });
    expect(imported).toBe(greeter);
    const namespace = { greet: greeter.greet, default: { other: true } };
    const byExport = await importOptional<Greeter>({
      name: 'greeter',
      load: () => Promise.resolve(namespace),
      neededBy: 'test',
      exportName: 'greet',
    });
    expect(byExport).toBe(namespace);
  });

  it('throws a ConfigError naming the package, the install command and the setting', async () => {
    const error = await importOptional<Greeter>({
      name: 'greeter',
      load: missing,
      neededBy: 'cortexis/greeting',
      purpose: 'for greetings',
      setting: 'greeterLibrary',
    }).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'config_error',
      message: 'cortexis/greeting needs greeter for greetings: npm install greeter',
      issues: [{ path: 'greeterLibrary', message: 'greeter could not be imported' }],
    });
    expect((error as Error).cause).toBeInstanceOf(Error);

    const pinned = await importOptional<Greeter>({
      name: 'greeter',
      load: missing,
      neededBy: 'cortexis/greeting',
      install: 'npm install greeter@2',
    }).catch((caught: unknown) => caught);
    expect(pinned).toMatchObject({
      message: 'cortexis/greeting needs greeter: npm install greeter@2',
      issues: [{ path: 'library' }],
    });
  });

  it('lets a failing injected loader throw its own error unless told to wrap it', async () => {
    const failure = new Error('loader failed');
    const loader = () => Promise.reject(failure);
    const request = { name: 'greeter', load: missing, injected: loader, neededBy: 'test' };
    await expect(importOptional<Greeter>(request)).rejects.toBe(failure);
    const wrapped = await importOptional<Greeter>({ ...request, wrapInjected: true }).catch(
      (caught: unknown) => caught,
    );
    expect(ConfigError.isInstance(wrapped)).toBe(true);
    expect((wrapped as Error).cause).toBe(failure);
  });
});
