import type { Migration } from "../../../lib/db.js";

export const rateMigrations: Migration[] = [
  {
    // The history of the rates of projects, project users and tasks (POST/GET .../rates).
    name: "0090_rates",
    async up(knex) {
      await knex.schema.createTable("rates", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        // project, project_user or task, and that entity's id.
        t.string("level", 20).notNullable();
        t.bigInteger("level_id").notNullable();
        t.bigInteger("project_id").nullable();
        t.bigInteger("project_user_id").nullable();
        t.bigInteger("task_id").nullable();
        // billable_rates or labor_costs.
        t.string("type", 20).notNullable();
        t.double("amount").notNullable();
        t.dateTime("start", { precision: 6 }).notNullable();
        t.dateTime("end", { precision: 6 }).nullable();
        t.string("rate_change_mode", 20).nullable();
        t.bigInteger("creator_id").notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("updated_at", { precision: 6 }).notNullable();
        t.dateTime("deleted_at", { precision: 6 }).nullable();
        t.index(["workspace_id", "level", "level_id", "type", "start"], "rates_ws_level");
      });
    },
    async down(knex) {
      await knex.schema.dropTable("rates");
    },
  },
];
