import type { Migration } from "../../../lib/db.js";

/**
 * A user's flags (caller/): free keys a client sets for itself (seen dialogs, dismissed tips),
 * each with a JSON value. At most 128 per user (rules.ts); a key is at most 32 characters, a
 * value's JSON text at most 64.
 */
export const userFlagsMigration: Migration = {
  name: "0090_user_flags",
  async up(knex) {
    await knex.schema.createTable("user_flags", (t) => {
      t.bigInteger("user_id").notNullable();
      t.string("flag", 32).notNullable();
      // The value's JSON text: a string of 64 characters is longer once quoted and escaped.
      t.text("value").notNullable();
      t.dateTime("updated_at", { precision: 6 }).notNullable();
      t.primary(["user_id", "flag"]);
    });
  },
  async down(knex) {
    await knex.schema.dropTable("user_flags");
  },
};
