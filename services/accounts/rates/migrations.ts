import type { Migration } from "../../../lib/db.js";

export const workspaceRatesMigration: Migration = {
  // The history of the rates of workspaces and workspace users (POST/GET .../rates, served by the
  // tracking service, kept here beside the values they set): as the tracking service's `rates`.
  name: "0092_workspace_rates",
  async up(knex) {
    await knex.schema.createTable("workspace_rates", (t) => {
      t.bigIncrements("id");
      t.bigInteger("workspace_id").notNullable();
      // workspace or workspace_user, and that entity's id (the workspace's, the membership's).
      t.string("level", 20).notNullable();
      t.bigInteger("level_id").notNullable();
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
      // When the entity's value followed the rate (it had begun); NULL while it lies ahead.
      t.dateTime("applied_at", { precision: 6 }).nullable();
      t.index(["workspace_id", "level", "level_id", "type", "start"], "workspace_rates_entity");
      t.index(["applied_at", "start"], "workspace_rates_due");
    });
  },
  async down(knex) {
    await knex.schema.dropTable("workspace_rates");
  },
};
