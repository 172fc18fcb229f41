import type { Migration } from "../../../lib/db.js";

export const taskMigrations: Migration[] = [
  {
    name: "0011_tasks",
    async up(knex) {
      await knex.schema.createTable("tasks", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("project_id").notNullable();
        t.string("name", 255).notNullable();
        t.string("sort_name", 255).notNullable();
        t.boolean("active").notNullable();
        t.bigInteger("user_id").nullable();
        t.bigInteger("estimated_seconds").nullable();
        t.double("rate").nullable();
        t.dateTime("rate_last_updated", { precision: 6 }).nullable();
        t.bigInteger("creator_id").notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.dateTime("server_deleted_at", { precision: 6 }).nullable();
        t.index(["workspace_id", "project_id", "sort_name", "id"], "tasks_ws_project_name");
        t.index(["workspace_id", "sort_name", "id"], "tasks_ws_name");
        t.index(["workspace_id", "created_at", "id"], "tasks_ws_created");
        t.index(["workspace_id", "at"], "tasks_ws_at");
      });
    },
    async down(knex) {
      await knex.schema.dropTable("tasks");
    },
  },
];
