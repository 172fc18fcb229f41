import type { Migration } from "../../../lib/db.js";

export const goalMigrations: Migration[] = [
  {
    name: "0071_goals",
    async up(knex) {
      await knex.schema.createTable("goals", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("user_id").notNullable();
        t.bigInteger("creator_id").notNullable();
        t.string("name", 255).notNullable();
        t.string("icon", 50).notNullable();
        t.string("comparison", 20).notNullable();
        t.string("recurrence", 20).notNullable();
        t.bigInteger("target_seconds").notNullable();
        t.boolean("billable").notNullable().defaultTo(false);
        t.json("project_ids").notNullable();
        t.json("task_ids").notNullable();
        t.json("tag_ids").notNullable();
        t.string("start_date", 10).notNullable();
        t.string("end_date", 10).nullable();
        t.boolean("active").notNullable().defaultTo(true);
        t.dateTime("last_notified_at", { precision: 6 }).nullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.dateTime("deleted_at", { precision: 6 }).nullable();
        t.index(["workspace_id", "user_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("goals");
    },
  },
];
