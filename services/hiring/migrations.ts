import type { Migration } from "../../lib/db.js";

/** Candidate columns the list filters on besides the equality that leads an index (see 0002). */
const FILTER_COLUMNS = ["score", "rating", "hire_state", "job_opening_id", "category_id"];

export const migrations: Migration[] = [
  {
    name: "0001_workspaces_keys_openings",
    async up(knex) {
      await knex.schema.createTable("workspaces", (t) => {
        t.string("id", 40).primary();
        t.string("name", 200).notNullable();
        t.dateTime("created_at", { precision: 3 }).notNullable();
      });
      await knex.schema.createTable("api_keys", (t) => {
        t.string("id", 40).primary();
        t.string("workspace_id", 40).notNullable().index();
        t.string("secret_hash", 64).notNullable();
        t.dateTime("created_at", { precision: 3 }).notNullable();
        t.dateTime("revoked_at", { precision: 3 }).nullable();
      });
      await knex.schema.createTable("openings", (t) => {
        t.string("workspace_id", 40).notNullable();
        t.string("id", 64).notNullable();
        t.string("name", 500).notNullable();
        t.string("slug", 500).notNullable();
        t.dateTime("created_at", { precision: 6 }).notNullable();
        t.dateTime("published_at", { precision: 6 }).nullable();
        t.dateTime("closed_at", { precision: 6 }).nullable();
        t.text("tests").notNullable();
        t.primary(["workspace_id", "id"]);
      });
    },
    async down(knex) {
      await knex.schema.dropTable("openings");
      await knex.schema.dropTable("api_keys");
      await knex.schema.dropTable("workspaces");
    },
  },
  {
    // Everything is keyed by workspace first: every query is scoped to one hiring workspace.
    // The candidate list only shows `listed` candidates (submitted a test, not demo), ordered by
    // (first_started_at, id); each equality filter has an index that also serves that order
    // (both directions) and the keyset seek, so a page 90% deep costs what the first page costs.
    name: "0002_categories_tags_candidates",
    async up(knex) {
      // The unfiltered list's total, kept with every candidate write instead of counted each page.
      await knex.schema.alterTable("workspaces", (t) => {
        t.integer("listed_candidates").notNullable().defaultTo(0);
      });
      await knex.schema.createTable("categories", (t) => {
        t.string("workspace_id", 40).notNullable();
        t.string("id", 64).notNullable();
        t.string("name", 500).notNullable();
        t.string("job_opening_id", 64).notNullable();
        t.primary(["workspace_id", "id"]);
        t.index(["workspace_id", "job_opening_id"], "categories_opening");
      });
      await knex.schema.createTable("tags", (t) => {
        t.string("workspace_id", 40).notNullable();
        t.string("id", 64).notNullable();
        t.string("name", 500).notNullable();
        t.primary(["workspace_id", "id"]);
      });
      await knex.schema.createTable("candidates", (t) => {
        t.string("workspace_id", 40).notNullable();
        t.string("id", 64).notNullable();
        t.string("name", 500).notNullable();
        t.string("email", 320).notNullable();
        t.string("email_key", 320).notNullable();
        t.string("profile_url", 2048).notNullable();
        t.text("contact_info").nullable();
        t.double("points").notNullable();
        t.double("score").notNullable();
        t.tinyint("rating").notNullable();
        t.string("hire_state", 20).notNullable();
        t.string("category_id", 64).nullable();
        t.string("job_opening_id", 64).notNullable();
        t.string("utm_source", 500).notNullable();
        t.string("utm_medium", 500).notNullable();
        t.string("utm_campaign", 500).notNullable();
        t.string("referrer_url", 2048).notNullable();
        t.string("ip_address", 64).notNullable();
        t.tinyint("demo").notNullable();
        t.tinyint("listed").notNullable();
        t.dateTime("first_started_at", { precision: 3 }).nullable();
        t.text("test_summaries", "mediumtext").notNullable();
        t.primary(["workspace_id", "id"]);
        // The list order, and one index per equality filter in list order (both directions, and
        // the keyset seek). Each carries the other filter columns, so that a filtered page and
        // the filtered total are checked on index entries, without reading candidate rows.
        const ordered = (...lead: string[]) => ["workspace_id", "listed", ...lead, "first_started_at", "id", ...FILTER_COLUMNS.filter((c) => !lead.includes(c))];
        t.index(ordered(), "candidates_order");
        t.index(ordered("job_opening_id"), "candidates_opening");
        t.index(ordered("category_id"), "candidates_category");
        t.index(ordered("hire_state"), "candidates_hire_state");
        t.index(ordered("rating"), "candidates_rating");
        t.index(["workspace_id", "listed", "email_key", "first_started_at", "id"], "candidates_email");
      });
      // The full tests (questions, answers) apart from the candidate row: the list's row lookups
      // and MySQL's clustered index stay small.
      await knex.schema.createTable("candidate_tests", (t) => {
        t.string("workspace_id", 40).notNullable();
        t.string("candidate_id", 64).notNullable();
        t.text("tests", "mediumtext").notNullable();
        t.primary(["workspace_id", "candidate_id"]);
      });
      // A tag entry carries copies of the candidate's list columns (written with the candidate),
      // so that a tag filter walks one tag's candidates in list order, and checks the other
      // filters and counts on the entries, instead of visiting every candidate.
      await knex.schema.createTable("candidate_tags", (t) => {
        t.string("workspace_id", 40).notNullable();
        t.string("candidate_id", 64).notNullable();
        t.string("tag_id", 64).notNullable();
        t.tinyint("listed").notNullable();
        t.dateTime("first_started_at", { precision: 3 }).nullable();
        t.double("score").notNullable();
        t.tinyint("rating").notNullable();
        t.string("hire_state", 20).notNullable();
        t.string("job_opening_id", 64).notNullable();
        t.string("category_id", 64).nullable();
        t.primary(["workspace_id", "candidate_id", "tag_id"]);
        t.index(["workspace_id", "tag_id", "listed", "first_started_at", "candidate_id", ...FILTER_COLUMNS], "candidate_tags_order");
      });
    },
    async down(knex) {
      await knex.schema.dropTable("candidate_tags");
      await knex.schema.dropTable("candidate_tests");
      await knex.schema.dropTable("candidates");
      await knex.schema.dropTable("tags");
      await knex.schema.dropTable("categories");
      await knex.schema.alterTable("workspaces", (t) => {
        t.dropColumn("listed_candidates");
      });
    },
  },
  {
    // Counts every change of a workspace's candidates, so that a filtered total counted once
    // serves every later page with the same filters until a candidate changes.
    name: "0003_workspace_candidates_version",
    async up(knex) {
      await knex.schema.alterTable("workspaces", (t) => {
        t.bigInteger("candidates_version").notNullable().defaultTo(0);
      });
    },
    async down(knex) {
      await knex.schema.alterTable("workspaces", (t) => {
        t.dropColumn("candidates_version");
      });
    },
  },
];
