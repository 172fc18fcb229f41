import type { Migration } from "../../../lib/db.js";

/**
 * A user's preferences (preferences/): only what the user changed is stored, as JSON over the
 * declared defaults (fields.ts), with the alpha features the user switched on or off; `updated_at`
 * answers `GET /me/preferences/{client}?since=`.
 */
export const preferencesMigration: Migration = {
  name: "0050_preferences",
  async up(knex) {
    await knex.schema.createTable("preferences", (t) => {
      t.bigInteger("user_id").primary();
      t.text("overrides").notNullable();
      t.text("alpha_features").notNullable();
      t.dateTime("updated_at", { precision: 6 }).notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTable("preferences");
  },
};
