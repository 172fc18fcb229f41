import type { Migration } from "../../../lib/db.js";

/**
 * The audit log (audit-logs/): one row per change of an organization's data, from the accounts and
 * tracking events of the stream (`event_id` the event's id, so a redelivered event is one row) and
 * from the accounts service's own changes that carry no event (roles, images).
 */
export const auditLogsMigration: Migration = {
  name: "0081_audit_logs",
  async up(knex) {
    await knex.schema.createTable("audit_logs", (t) => {
      t.bigIncrements("id");
      t.string("event_id", 40).notNullable().unique();
      t.bigInteger("organization_id").notNullable();
      t.bigInteger("workspace_id").nullable();
      t.string("source", 20).notNullable();
      t.string("entity_type", 50).notNullable();
      t.string("entity_id", 64).notNullable();
      t.string("action", 20).notNullable();
      t.bigInteger("user_id").nullable();
      t.dateTime("occurred_at", { precision: 3 }).notNullable();
      t.text("details").nullable();
      t.index(["organization_id", "occurred_at"]);
    });
  },
  async down(knex) {
    await knex.schema.dropTable("audit_logs");
  },
};
