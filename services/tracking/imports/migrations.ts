import { isMysql, type Migration } from "../../../lib/db.js";

export const importMigrations: Migration[] = [
  {
    // A workspace's imports (imports/): the job, its progress (entries gone through, in the files'
    // order) and what it created, matched and skipped, so a re-run after a crash resumes.
    name: "0110_import_jobs",
    async up(knex) {
      await knex.schema.createTable("import_jobs", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        // The importing admin: creator of what the import makes, owner of the entries of people without an account.
        t.bigInteger("user_id").notNullable();
        t.string("state", 16).notNullable();
        t.boolean("dry_run").notNullable();
        t.string("time_zone", 64).notNullable();
        t.bigInteger("entries_total").notNullable();
        t.bigInteger("entries_done").notNullable();
        // The bytes uploaded so far (the limit's count, kept here rather than summed over the parts).
        t.bigInteger("uploaded_bytes").notNullable().defaultTo(0);
        // JSON: the names of the files, the counts ({created, matched, skipped}), the invited addresses,
        // and what the files name (read once when the upload closes; the worker then reads only the entries).
        t.text("files", "mediumtext").notNullable();
        t.text("counts").notNullable();
        t.text("invited", "mediumtext").notNullable();
        t.text("content", "longtext").nullable();
        t.text("error").nullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.dateTime("finished_at", { precision: 6 }).nullable();
        t.index(["state", "id"]);
        t.index(["workspace_id", "id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("import_jobs");
    },
  },
  {
    // The uploaded bytes, in parts of at most one request's body, kept until the job ends: in the
    // service's own database, so whichever replica runs (or resumes) the job reads them.
    name: "0111_import_file_parts",
    async up(knex) {
      await knex.schema.createTable("import_file_parts", (t) => {
        t.bigIncrements("id");
        t.bigInteger("import_id").notNullable();
        t.integer("file_index").notNullable();
        t.integer("part_index").notNullable();
        // MySQL's BLOB holds 64 KiB: a part needs MEDIUMBLOB (16 MiB).
        if (isMysql(knex)) t.specificType("data", "mediumblob").notNullable();
        else t.binary("data").notNullable();
        t.unique(["import_id", "file_index", "part_index"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("import_file_parts");
    },
  },
  {
    // Entries of people who have no account here are the importing admin's; their original
    // address is kept beside them (what makes them the same entry on a second import, and whose they are).
    name: "0112_import_entry_origins",
    async up(knex) {
      await knex.schema.createTable("import_entry_origins", (t) => {
        t.bigInteger("time_entry_id").primary();
        t.bigInteger("workspace_id").notNullable();
        t.string("email", 254).notNullable();
        t.index(["workspace_id", "email"]);
      });
      // The addresses an import invited, once per workspace: a second import invites nobody again.
      await knex.schema.createTable("import_invitations", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.string("email", 254).notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.unique(["workspace_id", "email"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("import_invitations");
      await knex.schema.dropTable("import_entry_origins");
    },
  },
];
