import type { Migration } from "../../../lib/db.js";

export const scheduledReportMigrations: Migration[] = [
  {
    // A workspace's scheduled reports (scheduled-reports/): which saved report goes to whom, how often.
    name: "0051_scheduled_reports",
    async up(knex) {
      await knex.schema.createTable("scheduled_reports", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        // The saved report (`bookmark_id`).
        t.bigInteger("saved_report_id").notNullable();
        // Days: 1, 7 or 30 (a calendar month).
        t.integer("frequency").notNullable();
        // JSON arrays of ids (a handful per schedule; never queried by element).
        t.text("user_ids").notNullable();
        t.text("group_ids").notNullable();
        t.bigInteger("creator_id").notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.index(["workspace_id", "saved_report_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("scheduled_reports");
    },
  },
  {
    // The last period mailed to each recipient of a schedule, written in the change that records
    // the mail in the outbox: a period is mailed once, and what committed is never lost.
    name: "0052_scheduled_report_sends",
    async up(knex) {
      await knex.schema.createTable("scheduled_report_sends", (t) => {
        t.bigIncrements("id");
        t.bigInteger("scheduled_report_id").notNullable();
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("user_id").notNullable();
        t.dateTime("period_start", { precision: 3 }).notNullable();
        t.dateTime("sent_at", { precision: 3 }).notNullable();
        t.unique(["scheduled_report_id", "user_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("scheduled_report_sends");
    },
  },
];
