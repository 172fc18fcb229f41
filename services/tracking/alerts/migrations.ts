import type { Migration } from "../../../lib/db.js";

export const alertMigrations: Migration[] = [
  {
    // A workspace's alerts (alerts/): stored, listed and deleted; nothing evaluates them yet.
    name: "0040_alerts",
    async up(knex) {
      await knex.schema.createTable("alerts", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable().index();
        t.bigInteger("project_id").nullable();
        t.integer("object_type").notNullable();
        t.string("source_kind", 40).notNullable();
        t.string("threshold_type", 40).notNullable();
        t.text("thresholds").notNullable();
        t.integer("receivers").notNullable();
        t.text("receiver_roles").notNullable();
        t.text("receiver_users").notNullable();
        t.bigInteger("creator_id").notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable("alerts");
    },
  },
];
