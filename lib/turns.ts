/**
 * Work run one piece at a time, in the order it was handed in: each piece starts once the one
 * before it has settled, and one that fails does not stop the next (its caller sees the failure).
 */
export class Turns {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const run = this.last.then(work);
    this.last = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every piece handed in so far has settled. */
  settled(): Promise<void> {
    return this.last.then(() => undefined);
  }
}
