import type { Migration } from "../../../lib/db.js";

/**
 * Images (images/): a user's avatar and a workspace's logo, one row per owner, naming the blob
 * (lib/blobs.ts) that holds the bytes by its random key, with the type its first bytes told.
 * `gravatar` marks an avatar taken from Gravatar (no blob).
 */
export const imagesMigration: Migration = {
  name: "0082_images",
  async up(knex) {
    await knex.schema.createTable("images", (t) => {
      t.string("owner_kind", 10).notNullable();
      t.bigInteger("owner_id").notNullable();
      t.string("image_key", 32).nullable().unique();
      t.string("content_type", 20).nullable();
      t.integer("byte_size").notNullable().defaultTo(0);
      t.boolean("gravatar").notNullable().defaultTo(false);
      t.dateTime("updated_at", { precision: 6 }).notNullable();
      t.primary(["owner_kind", "owner_id"]);
    });
  },
  async down(knex) {
    await knex.schema.dropTable("images");
  },
};
