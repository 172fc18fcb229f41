import type { Migration } from "../../lib/db.js";

export const migrations: Migration[] = [
  {
    name: "0001_subscriptions_notifications",
    async up(knex) {
      await knex.schema.createTable("subscriptions", (t) => {
        t.string("id", 40).primary();
        t.string("service", 20).notNullable();
        t.string("workspace_id", 40).notNullable();
        t.string("url", 2048).notNullable();
        t.string("description", 200).notNullable().defaultTo("");
        t.string("secret", 100).notNullable();
        t.text("event_filters").notNullable();
        t.boolean("enabled").notNullable().defaultTo(true);
        t.dateTime("created_at", { precision: 3 }).notNullable();
        t.index(["service", "workspace_id"]);
      });
      await knex.schema.createTable("notifications", (t) => {
        t.bigIncrements("seq");
        t.string("id", 40).notNullable().unique();
        t.string("subscription_id", 40).notNullable();
        t.string("event_id", 40).notNullable();
        t.text("body", "mediumtext").notNullable();
        t.string("state", 12).notNullable();
        t.integer("attempts").notNullable().defaultTo(0);
        t.bigInteger("next_attempt_at_ms").notNullable();
        t.dateTime("created_at", { precision: 3 }).notNullable();
        t.dateTime("finished_at", { precision: 3 }).nullable();
        t.unique(["subscription_id", "event_id"]);
        t.index(["state", "subscription_id", "seq"]);
      });
      await knex.schema.createTable("delivery_attempts", (t) => {
        t.bigIncrements("id");
        t.string("notification_id", 40).notNullable().index();
        t.string("subscription_id", 40).notNullable();
        t.dateTime("attempted_at", { precision: 3 }).notNullable();
        t.integer("status_code").nullable();
        t.string("error", 500).nullable();
        t.integer("latency_ms").notNullable();
        t.index(["subscription_id", "id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("delivery_attempts");
      await knex.schema.dropTable("notifications");
      await knex.schema.dropTable("subscriptions");
    },
  },
];
