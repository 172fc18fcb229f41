import type { Migration } from "../../lib/db.js";
import { mailOutboxMigration } from "../../lib/mailer.js";
import { preferencesMigration } from "./preferences/migrations.js";
import { userFlagsMigration } from "./caller/migrations.js";
import { workspacePreferencesMigration } from "./workspace-preferences/migrations.js";
import { rolesMigration } from "./roles/migrations.js";
import { auditLogsMigration } from "./audit-logs/migrations.js";
import { imagesMigration } from "./images/migrations.js";
import { workspaceRatesMigration } from "./rates/migrations.js";

export const migrations: Migration[] = [
  {
    name: "0001_users_orgs_workspaces",
    async up(knex) {
      await knex.schema.createTable("users", (t) => {
        t.bigIncrements("id");
        t.string("email", 254).notNullable().unique();
        t.string("password_hash", 200).notNullable();
        t.string("api_token_hash", 64).notNullable().unique();
        t.string("fullname", 255).notNullable();
        t.string("timezone", 64).notNullable();
        t.bigInteger("default_workspace_id").nullable();
        t.integer("beginning_of_week").notNullable().defaultTo(1);
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("updated_at", { precision: 6 }).notNullable();
      });
      await knex.schema.createTable("sessions", (t) => {
        t.string("token_hash", 64).primary();
        t.bigInteger("user_id").notNullable().index();
        t.dateTime("created_at", { precision: 3 }).notNullable();
        t.dateTime("expires_at", { precision: 3 }).notNullable();
      });
      await knex.schema.createTable("organizations", (t) => {
        t.bigIncrements("id");
        t.string("name", 140).notNullable();
        t.bigInteger("owner_id").notNullable();
        t.integer("max_workspaces").notNullable().defaultTo(20);
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("updated_at", { precision: 6 }).notNullable();
      });
      await knex.schema.createTable("organization_users", (t) => {
        t.bigIncrements("id");
        t.bigInteger("organization_id").notNullable();
        t.bigInteger("user_id").notNullable();
        t.boolean("admin").notNullable().defaultTo(false);
        t.boolean("owner").notNullable().defaultTo(false);
        t.boolean("inactive").notNullable().defaultTo(false);
        t.boolean("joined").notNullable().defaultTo(true);
        t.unique(["organization_id", "user_id"]);
        t.index(["user_id"]);
      });
      await knex.schema.createTable("workspaces", (t) => {
        t.bigIncrements("id");
        t.bigInteger("organization_id").notNullable().index();
        t.string("name", 140).notNullable();
        t.boolean("premium").notNullable().defaultTo(false);
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("updated_at", { precision: 6 }).notNullable();
      });
      await knex.schema.createTable("workspace_users", (t) => {
        t.bigIncrements("id");
        t.bigInteger("workspace_id").notNullable();
        t.bigInteger("user_id").notNullable();
        t.boolean("admin").notNullable().defaultTo(false);
        t.string("role", 20).notNullable().defaultTo("user");
        t.boolean("active").notNullable().defaultTo(true);
        t.unique(["workspace_id", "user_id"]);
        t.index(["user_id"]);
      });
    },
    async down(knex) {
      for (const table of ["workspace_users", "workspaces", "organization_users", "organizations", "sessions", "users"]) {
        await knex.schema.dropTable(table);
      }
    },
  },
  {
    // The API token sealed with ENCRYPTION_KEY (lib/secret-box.ts), so its owner can read it back
    // from GET /me; api_token_hash stays the lookup key. Rows from before have none (null).
    name: "0002_api_token_sealed",
    async up(knex) {
      await knex.schema.alterTable("users", (t) => {
        t.string("api_token_sealed", 255).nullable();
      });
    },
    async down(knex) {
      await knex.schema.alterTable("users", (t) => {
        t.dropColumn("api_token_sealed");
      });
    },
  },
  {
    // Failed password checks per account (sign-in-throttle.ts): at most one row per slot, so an
    // account never holds more failures than the limit, whoever writes them at once.
    name: "0003_sign_in_failures",
    async up(knex) {
      await knex.schema.createTable("sign_in_failures", (t) => {
        t.string("account_key", 64).notNullable();
        t.integer("slot").notNullable();
        t.dateTime("failed_at", { precision: 3 }).notNullable().index();
        t.primary(["account_key", "slot"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("sign_in_failures");
    },
  },
  // Mail recorded with the changes that send it (password resets, invitations), sent by lib/mailer.ts.
  mailOutboxMigration,
  {
    // The profile fields PUT /me changes, closed accounts, password reset codes (hashed).
    name: "0020_profiles_and_password_resets",
    async up(knex) {
      await knex.schema.alterTable("users", (t) => {
        t.bigInteger("country_id").nullable();
        t.dateTime("closed_at", { precision: 6 }).nullable();
      });
      await knex.schema.createTable("password_resets", (t) => {
        t.string("code_hash", 64).primary();
        t.bigInteger("user_id").notNullable().index();
        t.dateTime("created_at", { precision: 3 }).notNullable();
        t.dateTime("expires_at", { precision: 3 }).notNullable();
        t.dateTime("used_at", { precision: 3 }).nullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable("password_resets");
      await knex.schema.alterTable("users", (t) => {
        t.dropColumn("closed_at");
        t.dropColumn("country_id");
      });
    },
  },
  {
    // A workspace's settings, with the specification's initial values.
    name: "0021_workspace_settings",
    async up(knex) {
      await knex.schema.alterTable("workspaces", (t) => {
        t.boolean("business_ws").notNullable().defaultTo(false);
        t.double("default_hourly_rate").notNullable().defaultTo(0);
        t.string("default_currency", 3).notNullable().defaultTo("USD");
        t.boolean("only_admins_may_create_projects").notNullable().defaultTo(false);
        t.boolean("only_admins_may_create_tags").notNullable().defaultTo(false);
        t.boolean("only_admins_see_billable_rates").notNullable().defaultTo(false);
        t.boolean("only_admins_see_team_dashboard").notNullable().defaultTo(false);
        t.boolean("projects_billable_by_default").notNullable().defaultTo(true);
        t.boolean("projects_private_by_default").notNullable().defaultTo(true);
        t.boolean("projects_enforce_billable").notNullable().defaultTo(false);
        t.boolean("limit_public_project_data").notNullable().defaultTo(false);
        t.boolean("reports_collapse").notNullable().defaultTo(true);
        t.integer("rounding").notNullable().defaultTo(0);
        t.integer("rounding_minutes").notNullable().defaultTo(0);
        t.dateTime("rate_last_updated", { precision: 6 }).nullable();
        t.string("logo_url", 2048).notNullable().defaultTo("");
        t.boolean("hide_start_end_times").notNullable().defaultTo(false);
        t.integer("working_hours_in_minutes").nullable();
        t.dateTime("suspended_at", { precision: 6 }).nullable();
        t.boolean("te_description_present").notNullable().defaultTo(false);
        t.boolean("te_project_present").notNullable().defaultTo(false);
        t.boolean("te_tag_present").notNullable().defaultTo(false);
        t.boolean("te_task_present").notNullable().defaultTo(false);
        t.boolean("te_constraints_enabled").notNullable().defaultTo(false);
      });
    },
    async down(knex) {
      await knex.schema.alterTable("workspaces", (t) => {
        for (const column of ["business_ws", "default_hourly_rate", "default_currency", "only_admins_may_create_projects", "only_admins_may_create_tags", "only_admins_see_billable_rates", "only_admins_see_team_dashboard", "projects_billable_by_default", "projects_private_by_default", "projects_enforce_billable", "limit_public_project_data", "reports_collapse", "rounding", "rounding_minutes", "rate_last_updated", "logo_url", "hide_start_end_times", "working_hours_in_minutes", "suspended_at", "te_description_present", "te_project_present", "te_tag_present", "te_task_present", "te_constraints_enabled"]) t.dropColumn(column);
      });
    },
  },
  {
    // Organizations (organizations/): the plan operators set (pricing_plan_id, 0 free, 1 paid); an
    // organization user's role below admin, its paid fields, and when it was made and changed. Rows
    // without times (sign-up writes none) read as made with their organization.
    name: "0022_organizations",
    async up(knex) {
      await knex.schema.alterTable("organizations", (t) => {
        t.integer("pricing_plan_id").notNullable().defaultTo(0);
      });
      await knex.schema.alterTable("organization_users", (t) => {
        t.string("role", 20).notNullable().defaultTo("user");
        t.double("rate").nullable();
        t.dateTime("rate_last_updated", { precision: 6 }).nullable();
        t.integer("labour_cost").nullable();
        t.integer("working_hours_in_minutes").nullable();
        t.dateTime("created_at", { precision: 6 }).nullable();
        t.dateTime("updated_at", { precision: 6 }).nullable();
      });
    },
    async down(knex) {
      await knex.schema.alterTable("organization_users", (t) => {
        for (const column of ["role", "rate", "rate_last_updated", "labour_cost", "working_hours_in_minutes", "created_at", "updated_at"]) t.dropColumn(column);
      });
      await knex.schema.alterTable("organizations", (t) => {
        t.dropColumn("pricing_plan_id");
      });
    },
  },
  {
    // Invitations into an organization: the code as SHA-256 (to find it) and sealed (to mail it again).
    name: "0023_invitations",
    async up(knex) {
      await knex.schema.createTable("invitations", (t) => {
        t.bigIncrements("id");
        t.bigInteger("organization_id").notNullable();
        t.string("code_hash", 64).notNullable().unique();
        t.string("code_sealed", 255).notNullable();
        t.string("email", 254).notNullable();
        t.bigInteger("recipient_id").nullable();
        t.bigInteger("sender_id").notNullable();
        t.text("workspaces").notNullable();
        t.string("state", 10).notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("updated_at", { precision: 6 }).notNullable();
        t.index(["organization_id", "created_at"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("invitations");
    },
  },
  {
    // Groups of an organization (groups/): named sets of its users, assigned to its workspaces. A
    // name is unique in its organization; users and workspaces are read back through the
    // organization's rows, so a user who left or a workspace deleted is no longer shown.
    name: "0040_groups",
    async up(knex) {
      await knex.schema.createTable("groups", (t) => {
        t.bigIncrements("id");
        t.bigInteger("organization_id").notNullable();
        t.string("name", 200).notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("updated_at", { precision: 6 }).notNullable();
        t.unique(["organization_id", "name"]);
      });
      await knex.schema.createTable("group_users", (t) => {
        t.bigIncrements("id");
        t.bigInteger("group_id").notNullable();
        t.bigInteger("user_id").notNullable();
        t.unique(["group_id", "user_id"]);
        t.index(["user_id"]);
      });
      await knex.schema.createTable("group_workspaces", (t) => {
        t.bigIncrements("id");
        t.bigInteger("group_id").notNullable();
        t.bigInteger("workspace_id").notNullable();
        t.unique(["group_id", "workspace_id"]);
        t.index(["workspace_id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("group_workspaces");
      await knex.schema.dropTable("group_users");
      await knex.schema.dropTable("groups");
    },
  },
  preferencesMigration,
  {
    // The plan is the organization's (organizations/plan.ts): a workspace is premium when its
    // organization is paid, and workspaces.premium / business_ws are read no more (they stay
    // until a later release drops them, so that the previous version keeps running during an
    // upgrade). An organization with a premium workspace becomes paid, so no workspace loses its
    // premium. Down: nothing to undo that can be told apart from a plan set since.
    name: "0060_organization_plans",
    async up(knex) {
      await knex("organizations")
        .where("pricing_plan_id", 0)
        .whereIn("id", knex("workspaces").where("premium", true).select("organization_id"))
        .update({ pricing_plan_id: 1 });
    },
    async down() {},
  },
  {
    // Pending invitees (invitations/): an invited address without an account is an organization
    // user too, with no user (user_id NULL) and its address (email, unique in the organization),
    // until it joins; the pending invitations of such addresses written before get theirs. Down:
    // those rows go (their invitations stay).
    name: "0061_pending_invitees",
    async up(knex) {
      await knex.schema.alterTable("organization_users", (t) => {
        t.bigInteger("user_id").nullable().alter();
        t.string("email", 254).nullable();
        t.unique(["organization_id", "email"]);
      });
      const pending: { organization_id: number; email: string; created_at: unknown; updated_at: unknown }[] = await knex("invitations")
        .where({ state: "pending" })
        .whereNull("recipient_id")
        .groupBy("organization_id", "email")
        .select("organization_id", "email")
        .min({ created_at: "created_at" })
        .max({ updated_at: "updated_at" });
      for (const p of pending) {
        // An address that has signed up and joined, or was invited again with its account, has its row.
        const account = await knex("organization_users as ou").join("users as u", "u.id", "ou.user_id").where({ "ou.organization_id": p.organization_id, "u.email": p.email }).first("ou.id");
        if (account) continue;
        await knex("organization_users").insert({
          organization_id: p.organization_id, user_id: null, email: p.email, admin: false, owner: false, inactive: false, joined: false, role: "user",
          created_at: p.created_at, updated_at: p.updated_at,
        });
      }
    },
    async down(knex) {
      await knex("organization_users").whereNull("user_id").delete();
      await knex.schema.alterTable("organization_users", (t) => {
        t.dropUnique(["organization_id", "email"]);
        t.dropColumn("email");
        t.bigInteger("user_id").notNullable().alter();
      });
    },
  },
  rolesMigration,
  auditLogsMigration,
  imagesMigration,
  userFlagsMigration,
  workspacePreferencesMigration,
  workspaceRatesMigration,
];
