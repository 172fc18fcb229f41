import type { Migration } from "../../../lib/db.js";

export const timeEntryMigrations: Migration[] = [
  {
    name: "0030_time_entries",
    async up(knex) {
      await knex.schema.createTable("time_entries", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("user_id").notNullable();
        t.bigInteger("project_id").nullable();
        t.bigInteger("task_id").nullable();
        t.text("description").nullable();
        t.boolean("billable").notNullable().defaultTo(false);
        t.dateTime("start", { precision: 0 }).notNullable();
        t.dateTime("stop", { precision: 0 }).nullable();
        t.bigInteger("duration").notNullable();
        // The user's id while the entry runs, NULL once stopped: the unique index lets a user have
        // one running entry at most, on either engine (NULLs never collide).
        t.bigInteger("running_user_id").nullable().unique();
        t.json("tag_ids").notNullable();
        t.json("shared_with_user_ids").notNullable();
        t.string("created_with", 255).notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.dateTime("server_deleted_at", { precision: 6 }).nullable();
        t.index(["user_id", "start"]);
        t.index(["user_id", "at"]);
        t.index(["workspace_id", "project_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("time_entries");
    },
  },
  {
    // Reports read a workspace's entries by start (a range, in start order).
    name: "0031_time_entries_workspace_start",
    async up(knex) {
      await knex.schema.alterTable("time_entries", (t) => t.index(["workspace_id", "start"]));
    },
    async down(knex) {
      await knex.schema.alterTable("time_entries", (t) => t.dropIndex(["workspace_id", "start"]));
    },
  },
  {
    // The reports' sums (summary, totals, weekly) read every column they group and sum by from
    // this index alone: a year of a workspace's entries is read in index order, with no lookup
    // of each entry's row (on MariaDB that lookup was most of a year's summary).
    name: "0032_time_entries_report_sums",
    async up(knex) {
      await knex.schema.alterTable("time_entries", (t) =>
        t.index(["workspace_id", "start", "server_deleted_at", "stop", "user_id", "project_id", "task_id", "billable", "duration"], "time_entries_report_sums"),
      );
    },
    async down(knex) {
      await knex.schema.alterTable("time_entries", (t) => t.dropIndex([], "time_entries_report_sums"));
    },
  },
];
