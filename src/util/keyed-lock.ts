/** Runs tasks one at a time per key (in call order); different keys run in parallel. */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task of `key` has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
