import type { Migration } from "../../../lib/db.js";

export const reminderMigrations: Migration[] = [
  {
    name: "0041_track_reminders",
    async up(knex) {
      await knex.schema.createTable("track_reminders", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable().index();
        // Days: 1 (daily) or 7 (weekly).
        t.integer("frequency").notNullable();
        // Hours: members who tracked less in a period are reminded.
        t.integer("threshold").notNullable();
        // JSON arrays of ids (a handful per reminder; never queried by element).
        t.text("user_ids").notNullable();
        t.text("group_ids").notNullable();
        t.bigInteger("creator_id").notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable("track_reminders");
    },
  },
  {
    name: "0042_track_reminder_checks",
    async up(knex) {
      // One row per reminder, user and period the scheduler settled: mailed or not, never again.
      await knex.schema.createTable("track_reminder_checks", (t) => {
        t.bigIncrements("id");
        t.bigInteger("reminder_id").notNullable();
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("user_id").notNullable();
        t.dateTime("period_start", { precision: 3 }).notNullable();
        t.bigInteger("tracked_seconds").notNullable();
        t.boolean("mailed").notNullable();
        t.dateTime("checked_at", { precision: 3 }).notNullable();
        t.unique(["reminder_id", "user_id", "period_start"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("track_reminder_checks");
    },
  },
];
