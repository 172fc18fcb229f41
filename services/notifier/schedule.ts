/** A notification is given up after this many consecutive failed attempts. */
export const MAX_ATTEMPTS = 10;

/** Delay before the next attempt after `failures` failed attempts: about 10 + x^4 seconds. */
export function nextRetryDelayMs(failures: number): number {
  return (10 + failures ** 4) * 1000;
}
