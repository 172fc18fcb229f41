import type { Migration } from "../../../lib/db.js";

export const icalMigrations: Migration[] = [
  {
    name: "0073_ical_feeds",
    async up(knex) {
      await knex.schema.createTable("ical_feeds", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("user_id").notNullable();
        // SHA-256 of the link's token (hex): the link is looked up by it, the token itself is not kept.
        t.string("token_hash", 64).notNullable().unique();
        t.boolean("enabled").notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.unique(["workspace_id", "user_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("ical_feeds");
    },
  },
];
