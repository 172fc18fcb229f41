import type { Migration } from "../../lib/db.js";

const foundation: Migration = {
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
};

export const migrations: Migration[] = [
  foundation,
  {
    // The foundation's tables only ever held development data; the complete design needs numeric
    // subscription ids (the time-tracking API shows them as numbers), validation, delivery claims
    // for replicas, and the ingest position, so they are replaced rather than altered.
    name: "0002_webhooks_complete",
    async up(knex) {
      await knex.schema.dropTable("delivery_attempts");
      await knex.schema.dropTable("notifications");
      await knex.schema.dropTable("subscriptions");
      await knex.schema.createTable("subscriptions", (t) => {
        t.bigIncrements("id");
        // hiring or tracking: which services' events the subscription receives.
        t.string("family", 10).notNullable();
        t.string("workspace_id", 40).notNullable();
        t.bigInteger("user_id").notNullable().defaultTo(0);
        t.string("description", 200).notNullable().defaultTo("");
        // The description where it must be unique in the workspace (time-tracking API), else null.
        t.string("unique_description", 200).nullable();
        t.string("url", 2048).notNullable();
        t.string("secret", 200).notNullable();
        t.text("event_filters").notNullable();
        t.boolean("enabled").notNullable().defaultTo(true);
        t.string("validation_code", 64).nullable();
        t.dateTime("validated_at", { precision: 3 }).nullable();
        t.dateTime("created_at", { precision: 3 }).notNullable();
        t.dateTime("updated_at", { precision: 3 }).notNullable();
        // Which notifier replica delivers this subscription now, and until when (claim).
        t.string("claimed_by", 40).nullable();
        t.bigInteger("claim_expires_ms").notNullable().defaultTo(0);
        t.index(["family", "workspace_id"]);
        t.unique(["family", "workspace_id", "unique_description"]);
      });
      await knex.schema.createTable("notifications", (t) => {
        // Delivery order within a subscription.
        t.bigIncrements("seq");
        t.string("id", 40).notNullable().unique();
        t.bigInteger("subscription_id").notNullable();
        t.string("event_id", 40).notNullable();
        t.string("state", 12).notNullable();
        t.integer("attempts").notNullable().defaultTo(0);
        t.bigInteger("next_attempt_at_ms").notNullable();
        t.dateTime("created_at", { precision: 3 }).notNullable();
        t.dateTime("finished_at", { precision: 3 }).nullable();
        t.unique(["subscription_id", "event_id"]);
        t.index(["state", "subscription_id", "seq"]);
      });
      // An event's notification body, once for all its subscriptions (the parts that differ per
      // subscription are filled in when it is sent).
      await knex.schema.createTable("event_payloads", (t) => {
        t.string("event_id", 40).primary();
        t.text("template", "mediumtext").notNullable();
        t.dateTime("created_at", { precision: 3 }).notNullable();
      });
      await knex.schema.createTable("delivery_attempts", (t) => {
        t.bigIncrements("id");
        t.bigInteger("subscription_id").notNullable();
        t.string("notification_id", 40).nullable();
        t.integer("attempt").notNullable();
        t.dateTime("attempted_at", { precision: 3 }).notNullable();
        t.integer("status_code").nullable();
        t.string("error", 500).nullable();
        t.integer("latency_ms").notNullable();
        t.string("outcome", 12).notNullable();
        t.index(["subscription_id", "id"]);
        t.index(["notification_id"]);
      });
      // The ingest position in the stream and which replica ingests (one at a time).
      await knex.schema.createTable("ingest_state", (t) => {
        t.string("name", 40).primary();
        t.bigInteger("position").notNullable().defaultTo(0);
        t.string("holder", 40).nullable();
        t.bigInteger("expires_at_ms").notNullable().defaultTo(0);
      });
      // Live replicas, so that each can take its share of the subscriptions.
      await knex.schema.createTable("replicas", (t) => {
        t.string("id", 40).primary();
        t.bigInteger("seen_at_ms").notNullable();
      });
    },
    async down(knex) {
      for (const table of ["replicas", "ingest_state", "delivery_attempts", "event_payloads", "notifications", "subscriptions"]) await knex.schema.dropTable(table);
      await foundation.up(knex);
    },
  },
  {
    // What the retention job's purges look up: finished notifications, old attempts and payloads,
    // and whether a notification still uses a payload.
    name: "0003_retention_indexes",
    async up(knex) {
      await knex.schema.alterTable("notifications", (t) => {
        t.index(["finished_at"]);
        t.index(["event_id"]);
      });
      await knex.schema.alterTable("delivery_attempts", (t) => t.index(["attempted_at"]));
      await knex.schema.alterTable("event_payloads", (t) => t.index(["created_at"]));
    },
    async down(knex) {
      await knex.schema.alterTable("event_payloads", (t) => t.dropIndex(["created_at"]));
      await knex.schema.alterTable("delivery_attempts", (t) => t.dropIndex(["attempted_at"]));
      await knex.schema.alterTable("notifications", (t) => {
        t.dropIndex(["event_id"]);
        t.dropIndex(["finished_at"]);
      });
    },
  },
  {
    // One row per workspace with subscriptions: creating a subscription locks it, so that the
    // plan's limit holds when several are created at once.
    name: "0004_workspace_locks",
    async up(knex) {
      await knex.schema.createTable("workspace_locks", (t) => {
        t.string("family", 10).notNullable();
        t.string("workspace_id", 40).notNullable();
        t.primary(["family", "workspace_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("workspace_locks");
    },
  },
  {
    // Signing secrets sealed (AES-256-GCM with ENCRYPTION_KEY) and validation codes as their
    // SHA-256, so that the table alone reveals neither. The key is no migration's to know: rows
    // written before are converted when the notifier opens (SubscriptionStore.sealPlain, subscriptions/store.ts),
    // which empties their plain columns; a later release may drop those.
    name: "0005_secrets_at_rest",
    async up(knex) {
      await knex.schema.alterTable("subscriptions", (t) => {
        t.text("secret_sealed").nullable();
        t.string("validation_code_sha256", 64).nullable();
      });
      await knex.schema.alterTable("subscriptions", (t) => {
        t.string("secret", 200).nullable().alter();
      });
    },
    async down(knex) {
      // Sealed secrets cannot be put back in clear without the key, nor hashed codes at all.
      const [{ n }] = await knex("subscriptions").whereNotNull("secret_sealed").count({ n: "*" });
      if (Number(n) > 0) throw new Error("notifier: subscriptions have sealed secrets; 0005_secrets_at_rest cannot be undone");
      await knex.schema.alterTable("subscriptions", (t) => {
        t.string("secret", 200).notNullable().alter();
      });
      await knex.schema.alterTable("subscriptions", (t) => {
        t.dropColumn("validation_code_sha256");
        t.dropColumn("secret_sealed");
      });
    },
  },
];
