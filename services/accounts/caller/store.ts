import type { JsonValue } from "@bufbuild/protobuf";
import type { Knex } from "../../../lib/db.js";

/** The user's flags, by key. */
export async function flagsOf(db: Knex, userId: bigint): Promise<Map<string, JsonValue>> {
  const rows: { flag: string; value: string }[] = await db("user_flags").where({ user_id: userId }).orderBy("flag").select("flag", "value");
  return new Map(rows.map((r) => [String(r.flag), JSON.parse(String(r.value)) as JsonValue]));
}

/** Locks the user's flags for a change (the user's row: a user with no flags has none to lock). */
export async function lockFlags(trx: Knex.Transaction, userId: bigint): Promise<void> {
  await trx("users").where({ id: userId }).first("id").forUpdate();
}

/** Sets (or, for null, removes) each flag. */
export async function writeFlags(trx: Knex.Transaction, userId: bigint, changes: Map<string, JsonValue>, now: Date): Promise<void> {
  for (const [flag, value] of changes) {
    await trx("user_flags").where({ user_id: userId, flag }).delete();
    if (value !== null) await trx("user_flags").insert({ user_id: userId, flag, value: JSON.stringify(value), updated_at: now });
  }
}
