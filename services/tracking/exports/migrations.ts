import type { Migration } from "../../../lib/db.js";

/** Numbers 0100-0109 are the exports'. */
export const exportMigrations: Migration[] = [
  {
    // One row per export request (exports/): what to export, for whom, and how far the job got.
    name: "0100_exports",
    async up(knex) {
      await knex.schema.createTable("exports", (t) => {
        t.bigIncrements("id");
        // The export's token: the name of its file and of its download path.
        t.string("uuid", 36).notNullable().unique();
        // "workspace" (a workspace's objects) or "user" (the requester's own data).
        t.string("kind", 16).notNullable();
        // The exported workspace; NULL for a user's own export.
        t.bigInteger("workspace_id").nullable();
        t.bigInteger("requester_id").notNullable();
        // JSON array of the object names asked for.
        t.text("objects").notNullable();
        // pending, running, done, failed, expired.
        t.string("state", 16).notNullable();
        t.string("error_message", 255).notNullable().defaultTo("");
        // Set while the export is pending or running, NULL after: its unique index lets a requester
        // have one unfinished export of a kind (and workspace) at a time, whichever replica asks.
        t.string("active_key", 64).nullable().unique();
        // The finished file, relative to EXPORT_DIR.
        t.string("file_path", 255).nullable();
        // How many times a worker took the job (a job that kills its worker is not taken forever).
        t.integer("attempts").notNullable().defaultTo(0);
        t.dateTime("created_at", { precision: 3 }).notNullable();
        t.dateTime("finished_at", { precision: 3 }).nullable();
        t.index(["workspace_id", "id"]);
        t.index(["requester_id", "id"]);
        t.index(["state", "id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("exports");
    },
  },
];
