import type { Migration } from "../../../lib/db.js";

export const projectGroupMigrations: Migration[] = [
  {
    name: "0022_project_groups",
    async up(knex) {
      await knex.schema.createTable("project_groups", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("project_id").notNullable();
        t.bigInteger("group_id").notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.unique(["project_id", "group_id"]);
        t.index(["workspace_id", "group_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("project_groups");
    },
  },
];
