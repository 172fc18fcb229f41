import type { Migration } from "../../../lib/db.js";

export const clientMigrations: Migration[] = [
  {
    name: "0001_clients",
    async up(knex) {
      await knex.schema.createTable("clients", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.string("name", 100).notNullable();
        t.text("notes").nullable();
        t.boolean("archived").notNullable().defaultTo(false);
        t.bigInteger("creator_id").notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.unique(["workspace_id", "name"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("clients");
    },
  },
];
