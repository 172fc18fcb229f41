import type { Migration } from "../../lib/db.js";

export const migrations: Migration[] = [
  {
    name: "0001_workspaces_keys_openings",
    async up(knex) {
      await knex.schema.createTable("workspaces", (t) => {
        t.string("id", 40).primary();
        t.string("name", 200).notNullable();
        t.dateTime("created_at", { precision: 3 }).notNullable();
      });
      await knex.schema.createTable("api_keys", (t) => {
        t.string("id", 40).primary();
        t.string("workspace_id", 40).notNullable().index();
        t.string("secret_hash", 64).notNullable();
        t.dateTime("created_at", { precision: 3 }).notNullable();
        t.dateTime("revoked_at", { precision: 3 }).nullable();
      });
      await knex.schema.createTable("openings", (t) => {
        t.string("workspace_id", 40).notNullable();
        t.string("id", 64).notNullable();
        t.string("name", 500).notNullable();
        t.string("slug", 500).notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("published_at", { precision: 6 }).nullable();
        t.dateTime("closed_at", { precision: 6 }).nullable();
        t.text("tests").notNullable();
        t.primary(["workspace_id", "id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("openings");
      await knex.schema.dropTable("api_keys");
      await knex.schema.dropTable("workspaces");
    },
  },
];
