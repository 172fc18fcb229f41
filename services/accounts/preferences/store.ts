import { dbDate, type Knex } from "../../../lib/db.js";
import type { StoredPreferences } from "./rules.js";

interface PreferencesRow {
  user_id: bigint;
  overrides: string;
  alpha_features: string;
  updated_at: Date;
}

/** A user's stored preferences and when they last changed; none stored: nothing changed yet. */
export interface UserPreferences extends StoredPreferences {
  updatedAt?: Date;
}

const NOTHING: UserPreferences = { overrides: {}, features: {} };

function read(row: PreferencesRow | undefined): UserPreferences {
  if (!row) return NOTHING;
  return { overrides: JSON.parse(row.overrides), features: JSON.parse(row.alpha_features), updatedAt: dbDate(row.updated_at) };
}

/** The `preferences` table: one row per user who changed anything. */
export const preferencesStore = {
  async read(db: Knex, userId: bigint): Promise<UserPreferences> {
    return read(await db<PreferencesRow>("preferences").where({ user_id: userId }).first());
  },

  /**
   * The user's preferences in a change, locked until it commits. The lock is the user's row, which
   * always exists: two first changes of one user would otherwise both find no row and deadlock on
   * the gap where it goes.
   */
  async readForChange(trx: Knex.Transaction, userId: bigint): Promise<UserPreferences> {
    await trx("users").where({ id: userId }).forUpdate().first("id");
    return read(await trx<PreferencesRow>("preferences").where({ user_id: userId }).forUpdate().first());
  },

  /** Stores the user's preferences after `before`, read with readForChange. */
  async write(trx: Knex.Transaction, userId: bigint, before: UserPreferences, after: StoredPreferences, now: Date): Promise<void> {
    const values = { overrides: JSON.stringify(after.overrides), alpha_features: JSON.stringify(after.features), updated_at: now };
    if (before.updatedAt) await trx("preferences").where({ user_id: userId }).update(values);
    else await trx("preferences").insert({ user_id: userId, ...values });
  },
};
