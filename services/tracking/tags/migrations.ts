import { isMysql, type Migration } from "../../../lib/db.js";

export const tagMigrations: Migration[] = [
  {
    name: "0020_tags",
    async up(knex) {
      await knex.schema.createTable("tags", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.string("name", 100).notNullable();
        // The name lower-cased while the tag lives, NULL once deleted: the unique key makes live
        // names unique per workspace ignoring case, compared byte for byte on either engine.
        const key = t.string("live_name", 100).nullable();
        if (isMysql(knex)) key.collate("utf8mb4_bin");
        t.bigInteger("creator_id").notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.dateTime("deleted_at", { precision: 6 }).nullable();
        t.unique(["workspace_id", "live_name"]);
        t.index(["workspace_id", "at"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("tags");
    },
  },
];
