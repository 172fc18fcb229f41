import type { Migration } from "../../../lib/db.js";

export const timeEntryInvitationMigrations: Migration[] = [
  {
    name: "0075_time_entry_invitations",
    async up(knex) {
      await knex.schema.createTable("time_entry_invitations", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("time_entry_id").notNullable();
        t.bigInteger("shared_by_user_id").notNullable();
        t.bigInteger("user_id").notNullable();
        t.string("status", 20).notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.unique(["time_entry_id", "user_id"]);
        t.index(["workspace_id", "user_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("time_entry_invitations");
    },
  },
];
