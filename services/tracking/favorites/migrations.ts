import type { Migration } from "../../../lib/db.js";

export const favoriteMigrations: Migration[] = [
  {
    name: "0070_favorites",
    async up(knex) {
      await knex.schema.createTable("favorites", (t) => {
        t.bigIncrements("id");
        t.bigInteger("user_id").notNullable();
        t.bigInteger("workspace_id").notNullable();
        t.text("description").nullable();
        t.bigInteger("project_id").nullable();
        t.bigInteger("task_id").nullable();
        t.boolean("billable").notNullable().defaultTo(false);
        t.json("tag_ids").notNullable();
        t.boolean("public").notNullable().defaultTo(false);
        t.integer("rank").notNullable();
        t.dateTime("was_public_at", { precision: 6 }).nullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.dateTime("deleted_at", { precision: 6 }).nullable();
        t.index(["user_id", "at"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("favorites");
    },
  },
];
