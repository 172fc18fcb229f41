import type { Migration } from "../../../lib/db.js";

export const timeEntryNoteMigrations: Migration[] = [
  {
    name: "0074_time_entry_notes",
    async up(knex) {
      await knex.schema.createTable("time_entry_notes", (t) => {
        t.bigIncrements("id");
        t.bigInteger("user_id").notNullable();
        t.bigInteger("time_entry_id").notNullable().unique();
        t.text("notes").notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable("time_entry_notes");
    },
  },
];
