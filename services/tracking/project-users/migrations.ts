import type { Migration } from "../../../lib/db.js";

export const projectUserMigrations: Migration[] = [
  {
    name: "0021_project_users",
    async up(knex) {
      await knex.schema.createTable("project_users", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("project_id").notNullable();
        t.bigInteger("user_id").notNullable();
        t.boolean("manager").notNullable().defaultTo(false);
        t.double("rate").nullable();
        t.double("labour_cost").nullable();
        t.dateTime("rate_last_updated", { precision: 6 }).nullable();
        t.dateTime("labour_cost_last_updated", { precision: 6 }).nullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.unique(["project_id", "user_id"]);
        t.index(["workspace_id", "user_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("project_users");
    },
  },
];
