import type { Migration } from "../../../lib/db.js";

export const timesheetMigrations: Migration[] = [
  {
    name: "0072_timesheets",
    async up(knex) {
      await knex.schema.createTable("timesheet_setups", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("member_id").notNullable();
        t.json("approver_ids").notNullable();
        t.string("periodicity", 20).notNullable();
        t.string("reminder_day", 20).nullable();
        t.string("reminder_time", 20).nullable();
        t.string("start_date", 10).notNullable();
        t.string("end_date", 10).nullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.dateTime("deleted_at", { precision: 6 }).nullable();
        t.index(["workspace_id", "member_id"]);
      });
      // A period's timesheet is stored once something happens to it (a submission, a review);
      // until then it is pending and exists only as a period of its setup.
      await knex.schema.createTable("timesheets", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("setup_id").notNullable();
        t.bigInteger("member_id").notNullable();
        t.string("start_date", 10).notNullable();
        t.string("status", 20).notNullable();
        t.dateTime("submitted_at", { precision: 6 }).nullable();
        t.dateTime("approved_or_rejected_at", { precision: 6 }).nullable();
        t.bigInteger("approved_or_rejected_id").nullable();
        t.text("rejection_comment").nullable();
        t.dateTime("reminder_sent_at", { precision: 6 }).nullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.unique(["setup_id", "start_date"]);
        t.index(["member_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("timesheets");
      await knex.schema.dropTable("timesheet_setups");
    },
  },
];
