import { limitNegative, stateInvalid } from "../errors.js";
import type { NotificationState } from "./store.js";

/**
 * The rules of notifications: the retry schedule, when one is given up, and what the operators'
 * RPCs accept. Pure functions; the dispatcher and the RPCs call them.
 */

/** A notification is given up after this many consecutive failed attempts. */
export const FAILURES_BEFORE_GIVING_UP = 10;

/** Delay before the next attempt after `failures` failed attempts: about 10 + x^4 seconds. */
export function nextRetryDelayMs(failures: number): number {
  return (10 + failures ** 4) * 1000;
}

/** What the `attempt`-th attempt makes of a notification: delivered, failed (retried later) or given up. */
export function attemptOutcome(ok: boolean, attempt: number): "delivered" | "failed" | "given_up" {
  return ok ? "delivered" : attempt >= FAILURES_BEFORE_GIVING_UP ? "given_up" : "failed";
}

const STATES = new Set<NotificationState>(["pending", "delivered", "given_up"]);

/** The state a list asks for: none (every state), or one of the three. */
export function stateFilter(raw: string): NotificationState | undefined {
  if (raw && !STATES.has(raw as NotificationState)) throw stateInvalid();
  return (raw || undefined) as NotificationState | undefined;
}

/** Rows per page of a list: 100 unless asked, at most 1,000. */
export function pageSize(limit: number): number {
  if (limit < 0) throw limitNegative();
  return Math.min(limit || 100, 1000);
}
