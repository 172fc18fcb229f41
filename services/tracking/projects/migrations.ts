import type { Migration } from "../../../lib/db.js";

export const projectMigrations: Migration[] = [
  {
    name: "0010_projects",
    async up(knex) {
      await knex.schema.createTable("projects", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("client_id").nullable();
        t.string("name", 255).notNullable();
        // The name lower-cased: the list's default order, served by an index on both engines.
        t.string("sort_name", 255).notNullable();
        t.boolean("active").notNullable();
        t.boolean("is_private").notNullable();
        t.string("color", 7).notNullable();
        t.boolean("billable").nullable();
        t.boolean("template").notNullable();
        t.bigInteger("template_id").nullable();
        t.boolean("auto_estimates").nullable();
        t.bigInteger("estimated_seconds").nullable();
        t.string("currency", 3).nullable();
        t.double("fixed_fee").nullable();
        t.double("rate").nullable();
        t.dateTime("rate_last_updated", { precision: 6 }).nullable();
        t.boolean("recurring").notNullable();
        t.text("recurring_parameters").nullable();
        t.string("start_date", 10).notNullable();
        t.string("end_date", 10).nullable();
        t.bigInteger("creator_id").notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("at", { precision: 6 }).notNullable();
        t.dateTime("server_deleted_at", { precision: 6 }).nullable();
        // One index per list order and filter; the workspace leads each. The two name orders also
        // hold what every list checks (visibility, deletion, archive), so a page's ids are read from
        // the index alone however deep the page (see listRows).
        t.index(["workspace_id", "sort_name", "id", "is_private", "server_deleted_at", "active"], "projects_ws_name");
        t.index(["workspace_id", "active", "sort_name", "id", "is_private", "server_deleted_at"], "projects_ws_active_name");
        t.index(["workspace_id", "client_id", "sort_name"], "projects_ws_client");
        t.index(["workspace_id", "at"], "projects_ws_at");
        t.index(["workspace_id", "created_at", "id", "active", "is_private", "server_deleted_at", "client_id", "billable"], "projects_ws_created");
        t.index(["workspace_id", "start_date"], "projects_ws_start");
        t.index(["workspace_id", "template"], "projects_ws_template");
      });
    },
    async down(knex) {
      await knex.schema.dropTable("projects");
    },
  },
  {
    // Pins: the projects each user keeps at the top of their list (POST .../projects/{id}/pin).
    name: "0015_project_pins",
    async up(knex) {
      await knex.schema.createTable("project_pins", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("project_id").notNullable();
        t.bigInteger("user_id").notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.unique(["workspace_id", "user_id", "project_id"], { indexName: "project_pins_ws_user_project" });
      });
    },
    async down(knex) {
      await knex.schema.dropTable("project_pins");
    },
  },
];
