import type { Migration } from "../../../lib/db.js";

/**
 * A workspace's preferences beyond its settings columns (workspace-preferences/): the date from
 * which its time entries are locked (POST /workspaces/{id}/preferences `report_locked_at`), one row
 * per workspace that set one.
 */
export const workspacePreferencesMigration: Migration = {
  name: "0091_workspace_preferences",
  async up(knex) {
    await knex.schema.createTable("workspace_preferences", (t) => {
      t.bigInteger("workspace_id").primary();
      t.dateTime("report_locked_at", { precision: 6 }).nullable();
      t.dateTime("updated_at", { precision: 6 }).notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTable("workspace_preferences");
  },
};
