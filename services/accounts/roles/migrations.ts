import type { Migration } from "../../../lib/db.js";
import { SYSTEM_ROLES } from "./catalog.js";

/**
 * Roles (roles/): the system roles' rows reserve their ids and codes (organization NULL; their
 * permissions are the catalog's, catalog.ts); an organization's own roles with their permissions
 * (catalog ids); and which users hold an organization's own roles (`workspace_id` / `project_id`
 * 0 for none, so that the unique key holds).
 */
export const rolesMigration: Migration = {
  name: "0080_roles",
  async up(knex) {
    await knex.schema.createTable("roles", (t) => {
      t.bigIncrements("id");
      t.bigInteger("organization_id").nullable();
      t.string("code", 50).notNullable();
      t.string("name", 100).notNullable();
      t.string("description", 255).notNullable();
      t.string("entity", 20).notNullable();
      t.dateTime("created_at", { precision: 6 }).notNullable();
      t.dateTime("updated_at", { precision: 6 }).notNullable();
      t.unique(["organization_id", "code"]);
    });
    const now = new Date();
    for (const r of SYSTEM_ROLES) {
      await knex("roles").insert({ id: r.role_id, organization_id: null, code: r.code, name: r.name, description: r.description, entity: "organization", created_at: now, updated_at: now });
    }
    await knex.schema.createTable("role_permissions", (t) => {
      t.bigInteger("role_id").notNullable();
      t.integer("permission_id").notNullable();
      t.primary(["role_id", "permission_id"]);
    });
    await knex.schema.createTable("user_roles", (t) => {
      t.bigIncrements("id");
      t.bigInteger("organization_id").notNullable();
      t.bigInteger("user_id").notNullable();
      t.bigInteger("role_id").notNullable().index();
      t.bigInteger("workspace_id").notNullable().defaultTo(0);
      t.bigInteger("project_id").notNullable().defaultTo(0);
      t.boolean("is_active").notNullable().defaultTo(true);
      t.dateTime("created_at", { precision: 6 }).notNullable();
      t.unique(["organization_id", "user_id", "role_id", "workspace_id", "project_id"], { indexName: "user_roles_assignment_unique" });
    });
  },
  async down(knex) {
    await knex.schema.dropTable("user_roles");
    await knex.schema.dropTable("role_permissions");
    await knex.schema.dropTable("roles");
  },
};
