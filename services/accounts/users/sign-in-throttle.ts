import { randomInt } from "node:crypto";
import { sha256Hex } from "../../../lib/digest.js";
import type { ConnectError } from "@connectrpc/connect";
import type { Clock } from "../../../lib/clock.js";
import { dbDate, isConflictVictim, isUniqueViolation, type Knex } from "../../../lib/db.js";
import { signInThrottled } from "../errors.js";

/** How many failed password checks an account may have within the window. */
export interface SignInPolicy {
  maxFailures: number;
  windowMs: number;
}

export const SIGN_IN_POLICY: SignInPolicy = { maxFailures: 10, windowMs: 15 * 60_000 };

/**
 * The key an account's failures are counted under: the e-mail as given, trimmed and
 * lower-cased (never looser than the lookup by e-mail, so spelling variants cannot escape the
 * count), hashed so the table holds no addresses. Unknown e-mails have keys like any other, so
 * the answers do not tell which accounts exist.
 */
export function accountKey(email: string): string {
  return sha256Hex(email.trim().toLowerCase());
}

/**
 * SignInThrottle counts failed password checks per account in the accounts database, so every
 * replica sees the same counts. While an account has `maxFailures` failures within the window,
 * every check of it, right or wrong, is refused with 429 until the oldest leaves the window.
 *
 * A failure takes one of `maxFailures` slots of its account (primary key account_key, slot); a
 * slot is free again once its failure has left the window and is purged. So however many checks
 * run at once, on however many replicas, no account ever holds more failures than the limit:
 * a concurrent wrong check that finds no free slot is refused like the next one would be. The
 * password is verified before the failure is written (a slow hash), so checks that start
 * together all verify; only the slots decide which of them may answer "wrong".
 */
export class SignInThrottle {
  constructor(
    private readonly db: Knex,
    private readonly clock: Clock,
    private readonly policy: SignInPolicy = SIGN_IN_POLICY,
  ) {}

  /**
   * Runs one password check of the account `email`: `verify` says whether the password is
   * right. Answers what `verify` answered, or throws 429 while the account is over the limit
   * (before verifying, so a locked account costs no hashing, and after it).
   */
  async check(email: string, verify: () => Promise<boolean>): Promise<boolean> {
    const key = accountKey(email);
    await this.refuseWhenFull(key);
    if (await verify()) {
      // A right password answered only while under the limit: one that raced the last
      // failure in is refused like the failure's followers.
      await this.refuseWhenFull(key);
      return true;
    }
    await this.recordFailure(key);
    return false;
  }

  /** Forgets the account's failures (its owner proved control of the mailbox with a reset code). */
  async forget(trx: Knex.Transaction, email: string): Promise<void> {
    await trx("sign_in_failures").where({ account_key: accountKey(email) }).delete();
  }

  private async recentFailures(key: string, now: Date): Promise<Date[]> {
    const cutoff = this.cutoff(now);
    const times: (Date | string | number)[] = await this.db("sign_in_failures").where({ account_key: key }).pluck("failed_at");
    return times.map(dbDate).filter((at) => at > cutoff);
  }

  private async refuseWhenFull(key: string): Promise<void> {
    const now = this.clock.now();
    const recent = await this.recentFailures(key, now);
    if (recent.length >= this.policy.maxFailures) throw this.refusal(recent, now);
  }

  /**
   * Writes a failure into a free slot of the account, or throws 429 when none is free. A slot
   * taken at once by another check (a unique-key violation) sends it round again; every round
   * lost means another failure was written, so within `maxFailures` rounds it has a slot or
   * finds them all taken. Picking a free slot at random keeps checks that run at once from
   * all trying the same one.
   */
  private async recordFailure(key: string): Promise<void> {
    const now = this.clock.now();
    await this.purge(now);
    for (let round = 0; round < this.policy.maxFailures; round++) {
      const taken = new Set((await this.db("sign_in_failures").where({ account_key: key }).pluck("slot")).map(Number));
      const free = Array.from({ length: this.policy.maxFailures }, (_, slot) => slot).filter((slot) => !taken.has(slot));
      if (free.length === 0) break;
      try {
        await this.db("sign_in_failures").insert({ account_key: key, slot: free[randomInt(free.length)], failed_at: now });
        return;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
    }
    throw this.refusal(await this.recentFailures(key, now), now);
  }

  /**
   * Deletes the failures that left the window, of every account, so the table holds no more
   * than the window's failures. Housekeeping: a purge that lost a deadlock to concurrent
   * writers is left to the next failure.
   */
  private async purge(now: Date): Promise<void> {
    try {
      await this.db("sign_in_failures").where("failed_at", "<=", this.cutoff(now)).delete();
    } catch (err) {
      if (!isConflictVictim(err)) throw err;
    }
  }

  private cutoff(now: Date): Date {
    return new Date(now.getTime() - this.policy.windowMs);
  }

  /** The 429, with the seconds until the oldest failure leaves the window. */
  private refusal(recent: Date[], now: Date): ConnectError {
    const oldest = recent.length ? Math.min(...recent.map((d) => d.getTime())) : now.getTime();
    const retryAfterSeconds = (oldest + this.policy.windowMs - now.getTime()) / 1000;
    return signInThrottled(retryAfterSeconds);
  }
}
