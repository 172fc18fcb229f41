import { randomBytes } from "node:crypto";
import { isMysql, type Knex } from "../../lib/db.js";
import { seededRandom } from "../../lib/seeded-random.js";
import { log } from "../support.js";

/**
 * The reports bench's workspace: its owner (an admin, signed up through the gateway) and
 * USERS - 1 more members, CLIENTS clients, PROJECTS projects (each of a client, half with an
 * hourly rate), TAGS tags, and `entries` stopped time entries spread over the year YEAR, written
 * directly into the tracking schema in batches (as bench/tracking/time-entries.ts does): each of a
 * random member, 90% on a project, half billable, zero to three tags, one of 200 descriptions
 * (5% none), lasting 5 minutes to 3 hours.
 */

export const USERS = 10;
export const PROJECTS = 50;
export const CLIENTS = 10;
export const TAGS = 20;
export const YEAR = 2025;
export const YEAR_FROM = new Date(Date.UTC(YEAR, 0, 1));
export const YEAR_TO = new Date(Date.UTC(YEAR + 1, 0, 1));

export interface Owner {
  id: number;
  token: string;
  workspaceId: number;
}

export async function signup(port: number, name: string): Promise<Owner> {
  const email = `${name}.${randomBytes(4).toString("hex")}@example.com`;
  const res = await fetch(`http://127.0.0.1:${port}/api/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "correct horse battery", display_name: name, timezone: "UTC" }),
  });
  if (res.status !== 200) throw new Error(`signup: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { id: number; api_token: string; default_workspace_id: number };
  return { id: body.id, token: body.api_token, workspaceId: body.default_workspace_id };
}

/** USERS - 1 users with no credentials anyone knows, made members (not admins) of the workspace, as accepting an invitation does. */
async function members(accounts: Knex, workspaceId: number): Promise<number[]> {
  const now = new Date();
  const ws = await accounts("workspaces").where({ id: workspaceId }).first("organization_id");
  const ids: number[] = [];
  for (let i = 1; i < USERS; i++) {
    const [id] = await accounts("users").insert({
      email: `bench-member-${i}.${randomBytes(4).toString("hex")}@example.com`,
      password_hash: "!",
      api_token_hash: randomBytes(32).toString("hex"),
      fullname: `Member ${String(i).padStart(2, "0")}`,
      timezone: "UTC",
      created_at: now,
      updated_at: now,
    });
    const userId = Number(id);
    await accounts("organization_users").insert({ organization_id: ws.organization_id, user_id: userId, admin: false, owner: false, inactive: false, joined: true, role: "user" });
    await accounts("workspace_users").insert({ workspace_id: workspaceId, user_id: userId, admin: false, role: "user", active: true });
    ids.push(userId);
  }
  return ids;
}

/** Seeds the workspace; answers the users' ids (the owner first). */
export async function seed(accounts: Knex, tracking: Knex, owner: Owner, entries: number): Promise<number[]> {
  const started = Date.now();
  const random = seededRandom(7);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];
  const ws = owner.workspaceId;
  const userIds = [owner.id, ...(await members(accounts, ws))];
  const now = new Date();

  const clientIds: number[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const [id] = await tracking("clients").insert({ workspace_id: ws, name: `Client ${i}`, notes: null, archived: false, creator_id: owner.id, created_at: now, at: now });
    clientIds.push(Number(id));
  }
  const projectRows = Array.from({ length: PROJECTS }, (_, i) => {
    const name = `Project ${String(i).padStart(2, "0")}`;
    return {
      workspace_id: ws, client_id: clientIds[i % CLIENTS], name, sort_name: name.toLowerCase(), active: true, is_private: false, color: "#0b83d9", billable: i % 2 === 0,
      template: false, template_id: null, auto_estimates: false, estimated_seconds: null, currency: null, fixed_fee: null, rate: i % 2 === 0 ? 40 + i : null,
      rate_last_updated: null, recurring: false, recurring_parameters: null, start_date: `${YEAR}-01-01`, end_date: null, creator_id: owner.id, created_at: now, at: now, server_deleted_at: null,
    };
  });
  await tracking.batchInsert("projects", projectRows, 100);
  const projectIds = (await tracking("projects").where({ workspace_id: ws }).orderBy("id").pluck("id")).map(Number);
  const tagRows = Array.from({ length: TAGS }, (_, i) => ({ workspace_id: ws, name: `tag-${i}`, live_name: `tag-${i}`, creator_id: owner.id, at: now, deleted_at: null }));
  await tracking.batchInsert("tags", tagRows, 100);
  const tagIds = (await tracking("tags").where({ workspace_id: ws }).orderBy("id").pluck("id")).map(Number);

  const span = YEAR_TO.getTime() - YEAR_FROM.getTime();
  const step = span / entries;
  const chunk = 2000;
  for (let from = 0; from < entries; from += chunk) {
    const rows: Record<string, unknown>[] = [];
    for (let i = from; i < Math.min(from + chunk, entries); i++) {
      // In start order over the year, each somewhere in its own slot of the year.
      const start = new Date(Math.floor((YEAR_FROM.getTime() + (i + random()) * step) / 1000) * 1000);
      const duration = 300 + Math.floor(random() * 10_500);
      const stop = new Date(start.getTime() + duration * 1000);
      const tags = [...new Set(Array.from({ length: Math.floor(random() * 4) }, () => pick(tagIds)))];
      rows.push({
        workspace_id: ws, user_id: pick(userIds), project_id: random() < 0.9 ? pick(projectIds) : null, task_id: null,
        description: random() < 0.05 ? null : `Work item ${Math.floor(random() * 200)}`, billable: random() < 0.5,
        start, stop, duration, running_user_id: null, tag_ids: JSON.stringify(tags), shared_with_user_ids: "[]", created_with: "bench",
        created_at: stop, at: stop, server_deleted_at: null,
      });
    }
    // SQLite takes at most 500 rows in one INSERT ... SELECT UNION ALL.
    await tracking.transaction((trx) => trx.batchInsert("time_entries", rows, 400));
    const done = Math.min(from + chunk, entries);
    if (done % 20_000 === 0 || done === entries) log(`  loaded ${done}/${entries} time entries (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  // MySQL refreshes index statistics by itself; SQLite's planner needs them gathered.
  if (!isMysql(tracking)) await tracking.raw("ANALYZE");
  return userIds;
}
