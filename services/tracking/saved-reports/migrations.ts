import type { Migration } from "../../../lib/db.js";

export const savedReportMigrations: Migration[] = [
  {
    // A workspace's saved reports (saved-reports/): a report's kind and parameters under a name,
    // run by a token that is looked up by its SHA-256 and kept sealed so the lists can show it.
    name: "0050_saved_reports",
    async up(knex) {
      await knex.schema.createTable("saved_reports", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        // The owner (`uid`).
        t.bigInteger("user_id").notNullable();
        t.string("name", 255).notNullable();
        // The JSON object of the report's parameters, `report_type` among them.
        t.text("params", "mediumtext").notNullable();
        t.boolean("public").notNullable();
        t.boolean("fixed_daterange").notNullable();
        t.string("token_hash", 64).notNullable().unique();
        t.text("token_sealed").notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("updated_at", { precision: 6 }).notNullable();
        t.bigInteger("updated_by").notNullable();
        t.index(["workspace_id", "user_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("saved_reports");
    },
  },
];
