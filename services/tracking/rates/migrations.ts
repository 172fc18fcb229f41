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
  {
    // A rate that begins later is applied to its entity when it begins (rates/scheduler.ts):
    // applied_at says it has been. Rates that began by their creation were applied then; those
    // that began since are left unapplied, so the scheduler applies them at its first pass.
    name: "0091_rates_applied",
    async up(knex) {
      await knex.schema.alterTable("rates", (t) => {
        t.dateTime("applied_at", { precision: 6 }).nullable();
        t.index(["applied_at", "start"], "rates_due");
      });
      await knex("rates").whereRaw("start <= created_at").update({ applied_at: knex.ref("created_at") });
    },
    async down(knex) {
      await knex.schema.alterTable("rates", (t) => {
        t.dropIndex(["applied_at", "start"], "rates_due");
        t.dropColumn("applied_at");
      });
    },
  },
];
