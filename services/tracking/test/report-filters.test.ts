import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { compareIds } from "../../../lib/ids.js";
import { projectUsers } from "../project-users/store.js";
import { tasks } from "../tasks/store.js";
import { timeEntries } from "../time-entries/store.js";
import type { ProjectRow } from "../projects/store.js";
import { trackingWorld } from "./tracking-support.js";
import { buckets, offsetSpans, resolutionOf } from "../reporting.js";
import {
  currencyInvalid,
  noFilterParameter,
  rangeOutOfBounds,
  rangeParameterFormat,
  rangeParameterRequired,
  rangeReversed,
  summaryProjectIdInvalid,
  summaryProjectNotAccessible,
  tooManyPostedIds,
} from "../errors.js";

/**
 * The Reports API v3 helpers: the filter and search lists, the statuses of projects and tasks, and
 * the project summaries, each holding only what the caller may see of the workspace.
 */

const clock = new ManualClock(new Date("2025-06-01T10:00:00Z"));
const sys = await startTestSystem(t, { clock, services: ["accounts", "tracking"] });
const world = await trackingWorld(t, sys, clock);
const { owner, tracking } = world;
const wid = owner.workspaceId;
const member = await world.join("member");
const admin = await world.join("admin", { admin: true });
const stranger = await sys.signup("stranger");

const post = (path: string, body: unknown, user: TrackUser = owner) => sys.api("POST", `/reports/api/v3/workspace/${wid}/${path}`, { auth: user.auth, body });
/** The answer's body, failing the test on any other status than 200. */
async function ok(path: string, body: unknown, user: TrackUser = owner) {
  const res = await post(path, body, user);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}
const ids = (rows: { id: number }[]) => rows.map((r) => r.id);

async function client(name: string, user: TrackUser = owner): Promise<bigint> {
  const res = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name } });
  if (res.status !== 200) throw new Error(`client: ${res.status} ${res.text}`);
  return BigInt(res.body.id);
}

async function projectUser(project: ProjectRow, user: TrackUser, values: { rate?: number; labour_cost?: number } = {}) {
  const now = clock.now();
  return tracking.transaction((trx) =>
    projectUsers.insert(trx, {
      workspace_id: BigInt(wid), project_id: project.id, user_id: BigInt(user.id), manager: false, rate: values.rate ?? null, labour_cost: values.labour_cost ?? null,
      rate_last_updated: null, labour_cost_last_updated: null, at: now,
    }),
  );
}

async function task(project: ProjectRow, name: string, values: { user?: TrackUser; rate?: number; active?: boolean; estimated?: number } = {}) {
  const now = clock.now();
  return tracking.transaction((trx) =>
    tasks.insert(trx, {
      workspace_id: BigInt(wid), project_id: project.id, name, sort_name: name.toLowerCase(), active: values.active ?? true, user_id: values.user ? BigInt(values.user.id) : null,
      estimated_seconds: values.estimated ?? null, rate: values.rate ?? null, rate_last_updated: null, creator_id: BigInt(owner.id), created_at: now, at: now, server_deleted_at: null,
    }),
  );
}

/** A time entry as the time entries resource stores it; `seconds` < 0 is a running one. */
async function entry(values: { project: ProjectRow; start: string; seconds: number; user?: TrackUser; task?: bigint; billable?: boolean; deleted?: boolean }) {
  const now = clock.now();
  const start = new Date(values.start);
  const running = values.seconds < 0;
  const user = values.user ?? owner;
  return tracking.transaction((trx) =>
    timeEntries.insert(trx, {
      workspace_id: BigInt(wid), user_id: BigInt(user.id), project_id: values.project.id, task_id: values.task ?? null, description: null, billable: values.billable ?? false,
      start, stop: running ? null : new Date(start.getTime() + values.seconds * 1000), duration: running ? -Math.floor(start.getTime() / 1000) : values.seconds,
      running_user_id: running ? BigInt(user.id) : null, tag_ids: [], shared_with_user_ids: [], created_with: "test", created_at: now, at: now,
      server_deleted_at: values.deleted ? now : null,
    }),
  );
}

// The workspace every test reads: clients, a public project, a private one the member is a user of,
// a private one the member is not in, an archived one, a deleted one.
const acme = await client("Acme");
const beta = await client("Beta Industries");
const gamma = await client("gamma 100%");
const foreignClient = await client("Foreign", stranger);
const open = await world.project("Open", { client_id: acme, billable: true, currency: "EUR", estimated_seconds: 36_000 });
const shared = await world.project("Shared", { is_private: true, client_id: beta });
const secret = await world.project("Secret", { is_private: true, client_id: acme });
const old = await world.project("Old", { active: false });
const gone = await world.project("Gone", { server_deleted_at: clock.now() });
await projectUser(shared, member, { rate: 40, labour_cost: 15 });
await projectUser(open, owner, { labour_cost: 20 });

t.test("filters/clients answers id and name of every client in id order", async (t) => {
  t.same(await ok("filters/clients", {}), [
    { id: acme, name: "Acme" },
    { id: beta, name: "Beta Industries" },
    { id: gamma, name: "gamma 100%" },
  ]);
  const bare = await sys.api("POST", `/reports/api/v3/workspace/${wid}/filters/clients`, { auth: member.auth });
  t.equal(bare.status, 200, "a POST without a body is an empty filter");
  t.same(ids(bare.body), [acme, beta, gamma]);
});

t.test("the client lists narrow by ids, a part of the name (wildcards literal) and the start id", async (t) => {
  t.same(ids(await ok("filters/clients", { ids: [gamma, acme, acme, foreignClient] })), [acme, gamma], "another workspace's client is no client here");
  t.same(ids(await ok("filters/clients", { ids: [0] })), [], "ids that name no client match nothing");
  t.same(ids(await ok("filters/clients", { name: "IND" })), [beta]);
  t.same(ids(await ok("filters/clients", { name: "0%" })), [gamma]);
  t.same(ids(await ok("filters/clients", { name: "%" })), [gamma]);
  t.same(ids(await ok("filters/clients", { start: beta })), [beta, gamma]);
});

t.test("the client lists refuse more than 2000 ids; search needs a parameter", async (t) => {
  const many = Array.from({ length: 2001 }, (_, i) => i + 1);
  for (const path of ["filters/clients", "search/clients"]) {
    const res = await post(path, { ids: many });
    t.same([res.status, res.body], [400, tooManyPostedIds(2000).rawMessage], path);
  }
  t.equal((await post("filters/clients", { ids: many.slice(0, 2000) })).status, 200);
  for (const body of [{}, { ids: [] }, { name: "  " }, undefined]) {
    const res = await post("search/clients", body);
    t.same([res.status, res.body], [400, noFilterParameter().rawMessage], JSON.stringify(body));
  }
  const wrong = await post("filters/clients", { ids: "1,2" });
  t.same([wrong.status, wrong.body], [400, "Invalid value for ids: expected array, got string"]);
});

t.test("search/clients answers whole client objects", async (t) => {
  const found = await ok("search/clients", { name: "acme" });
  t.equal(found.length, 1);
  t.match(found[0], { id: acme, wid, name: "Acme", archived: false, creator_id: owner.id });
  t.type(found[0].at, "string");
});

t.test("filters/projects lists the live projects the caller sees, in id order, with the reference's fields", async (t) => {
  const mine = await ok("filters/projects", {});
  t.same(ids(mine), [open.id, shared.id, secret.id, old.id], "the owner (an admin) sees every live project");
  t.same(mine[0], { id: open.id, name: "Open", color: open.color, active: true, billable: true, client_id: acme, currency: "EUR" });
  t.same(mine[3], { id: old.id, name: "Old", color: old.color, active: false, billable: null, client_id: null, currency: null });
  t.same(ids(await ok("filters/projects", {}, admin)), [open.id, shared.id, secret.id, old.id], "a workspace admin too");
  t.same(ids(await ok("filters/projects", {}, member)), [open.id, shared.id, old.id], "a member: public ones and the private ones they are a user of");
  t.same(ids(await ok("filters/projects", { ids: [secret.id, gone.id] }, member)), [], "naming a hidden or deleted project shows nothing");
});

t.test("filters/projects narrows by state, privacy, billable, client, currency and name", async (t) => {
  const list = async (body: object) => ids(await ok("filters/projects", body));
  t.same(await list({ is_active: true }), [open.id, shared.id, secret.id]);
  t.same(await list({ is_active: false }), [old.id]);
  t.same(await list({ is_private: true }), [shared.id, secret.id]);
  t.same(await list({ is_private: false }), [open.id, old.id]);
  t.same(await list({ is_billable: true }), [open.id]);
  t.same(await list({ is_billable: false }), [shared.id, secret.id, old.id]);
  t.same(await list({ client_ids: [acme] }), [open.id, secret.id]);
  t.same(await list({ client_ids: [0] }), [old.id], "0 stands for no client");
  t.same(await list({ client_ids: [beta, 0] }), [shared.id, old.id]);
  t.same(await list({ currency: "eur" }), [open.id]);
  t.same(await list({ currency: "USD" }), [shared.id, secret.id, old.id], "a project without a currency has the workspace's");
  t.same(await list({ name: "e" }), [open.id, shared.id, secret.id]);
  const bad = await post("filters/projects", { currency: "EURO" });
  t.same([bad.status, bad.body], [400, currencyInvalid().rawMessage]);
});

t.test("the project lists page by page_size (201 by default) from the start id", async (t) => {
  t.same(ids(await ok("filters/projects", { page_size: 2 })), [open.id, shared.id]);
  t.same(ids(await ok("filters/projects", { page_size: 2, start: shared.id + 1n })), [secret.id, old.id]);
  t.same(ids(await ok("filters/projects", { page_size: 2, start: old.id + 1n })), []);
  const negative = await post("filters/projects", { page_size: -1 });
  t.same([negative.status, negative.body], [400, "filter.page_size must be at least 0"]);
});

t.test("search/projects answers whole project objects and needs a parameter", async (t) => {
  const found = await ok("search/projects", { ids: [open.id, secret.id] }, member);
  t.same(ids(found), [open.id]);
  t.match(found[0], { id: open.id, workspace_id: wid, client_id: acme, name: "Open", is_private: false, active: true, currency: "EUR", actual_seconds: Number });
  const empty = await post("search/projects", {});
  t.same([empty.status, empty.body], [400, noFilterParameter().rawMessage]);
});

t.test("filters/project_groups answers the groups of the projects the caller sees, with their names", async (t) => {
  const group = await sys.api("POST", `/api/v9/organizations/${world.organizationId}/groups`, { auth: owner.auth, body: { name: "Crew" } });
  t.equal(group.status, 200, group.text);
  const crew: number = group.body.group_id;
  const links = [];
  for (const project of [open, secret]) {
    const res = await sys.api("POST", `/api/v9/workspaces/${wid}/project_groups`, { auth: owner.auth, body: { project_id: project.id, group_id: crew } });
    t.equal(res.status, 200, res.text);
    links.push(res.body.id);
  }
  t.same(await ok("filters/project_groups", { group_ids: [crew] }), [
    { id: links[0], project_id: open.id, group_id: crew, name: "Crew" },
    { id: links[1], project_id: secret.id, group_id: crew, name: "Crew" },
  ]);
  t.same(ids(await ok("filters/project_groups", { project_ids: [secret.id] })), [links[1]]);
  t.same(ids(await ok("filters/project_groups", { group_ids: [crew], start_id: links[1] })), [links[1]]);
  t.same(ids(await ok("filters/project_groups", { group_ids: [crew] }, member)), [links[0]], "not the hidden project's group");
  for (const body of [{}, { start_id: 1 }, { project_ids: [] }]) {
    const res = await post("filters/project_groups", body);
    t.same([res.status, res.body], [400, noFilterParameter().rawMessage], JSON.stringify(body));
  }
  const many = await post("filters/project_groups", { project_ids: Array.from({ length: 2001 }, (_, i) => i + 1) });
  t.same([many.status, many.body], [400, tooManyPostedIds(2000).rawMessage]);
  // The groups decide what the member sees no more: later tests read the workspace without them.
  for (const id of links) t.equal((await sys.api("DELETE", `/api/v9/workspaces/${wid}/project_groups/${id}`, { auth: owner.auth })).status, 200);
});

t.test("filters/project_users answers the users of the projects the caller sees, rates as the caller may see them", async (t) => {
  const hidden = await projectUser(secret, admin, { rate: 99 });
  const all = await ok("filters/project_users", { project_ids: [open.id, shared.id, secret.id] });
  t.same(all.map((r: { project_id: number; user_id: number }) => [r.project_id, r.user_id]), [[shared.id, member.id], [open.id, owner.id], [secret.id, admin.id]]);
  t.same(all[0], { id: all[0].id, project_id: shared.id, user_id: member.id, group_id: null, hourly_rate: 40, labour_cost: 15 }, "an admin sees rates and labour costs");
  const seen = await ok("filters/project_users", { project_ids: [open.id, shared.id, secret.id] }, member);
  t.same(ids(seen), ids(all).filter((id) => id !== Number(hidden.id)), "not the users of a project the member does not see");
  t.same([seen[0].hourly_rate, seen[0].labour_cost], [40, null], "a member sees rates but no labour costs");
  await world.setWorkspace({ only_admins_see_billable_rates: true });
  t.teardown(() => world.setWorkspace({ only_admins_see_billable_rates: false }));
  t.same((await ok("filters/project_users", { project_ids: [shared.id] }, member))[0].hourly_rate, null, "nor rates where only admins see them");
  t.same(ids(await ok("filters/project_users", { client_ids: [beta] })), [all[0].id]);
  const none = await post("filters/project_users", { start_id: 5 });
  t.same([none.status, none.body], [400, noFilterParameter().rawMessage]);
  await tracking("project_users").where({ id: hidden.id }).delete();
});

t.test("filters/users answers the workspace's active users in id order; active: false the deactivated ones", async (t) => {
  const gone = await world.join("leaver");
  await world.accounts("workspace_users").where({ workspace_id: wid, user_id: gone.id }).update({ active: false });
  world.clock.advance(5_001);
  const users = await ok("filters/users", {}, member);
  t.same(ids(users), [owner.id, member.id, admin.id]);
  t.same(users[1], { id: member.id, name: "member", deleted_at: null });
  t.same(ids(await ok("filters/users", { active: false })), [gone.id]);
  t.same(ids(await ok("filters/users", { ids: [admin.id, stranger.id] })), [admin.id], "only users of the workspace");
  t.same(ids(await ok("filters/users", { start: member.id })), [member.id, admin.id]);
  const many = await post("filters/users", { ids: Array.from({ length: 101 }, (_, i) => i + 1) });
  t.same([many.status, many.body], [400, tooManyPostedIds(100).rawMessage]);
});

t.test("search/users answers e-mail and state, and needs a parameter", async (t) => {
  const found = await ok("search/users", { ids: [member.id] });
  t.same(found, [{ id: member.id, email: member.email, fullname: "member", active: true, deactivated: false, deleted_at: null, avatar: null, workspace_user_id: null }]);
  const empty = await post("search/users", {});
  t.same([empty.status, empty.body], [400, noFilterParameter().rawMessage]);
});

t.test("filters/projects/status answers all-time tracked and billable time with amounts at each entry's rate", async (t) => {
  const design = await task(open, "Design", { rate: 50 });
  await entry({ project: open, start: "2025-01-10T09:00:00Z", seconds: 3600, billable: true });
  await entry({ project: open, start: "2025-01-11T09:00:00Z", seconds: 1800, billable: true, task: design.id });
  await entry({ project: open, start: "2025-01-12T09:00:00Z", seconds: 600, user: member });
  await entry({ project: open, start: "2025-01-13T09:00:00Z", seconds: 999, deleted: true });
  await entry({ project: open, start: "2025-05-31T09:00:00Z", seconds: -1, user: admin });
  await entry({ project: shared, start: "2025-01-10T09:00:00Z", seconds: 900, billable: true, user: member });
  await entry({ project: secret, start: "2025-01-10T09:00:00Z", seconds: 60 });
  await world.setWorkspace({ default_hourly_rate: 10 });
  t.teardown(() => world.setWorkspace({ default_hourly_rate: 0 }));
  const statuses = await ok("filters/projects/status", { ids: [open.id, shared.id, secret.id] });
  t.same(statuses, [
    // Open has no rate: 1 h at the workspace's 10 (1000 cents) and half an hour at the task's 50 (2500); the member's time is not billable.
    // Shared: a quarter of an hour at the member's own rate on it, 40 (1000).
    { id: open.id, tracked_seconds: 6000, billable_seconds: 5400, billable_amount: 1000 + 2500, currency: "EUR", estimated_seconds: 36_000 },
    { id: shared.id, tracked_seconds: 900, billable_seconds: 900, billable_amount: 1000, currency: "USD", estimated_seconds: null },
    { id: secret.id, tracked_seconds: 60, billable_seconds: 0, billable_amount: 0, currency: "USD", estimated_seconds: null },
  ]);
  t.same(ids(await ok("filters/projects/status", { ids: [open.id, shared.id, secret.id] }, member)), [open.id, shared.id], "not a project the member does not see");
  t.same(ids(await ok("filters/projects/status", { active: false })), [old.id], "without ids: every project the caller sees, archived ones here");
  await world.setWorkspace({ only_admins_see_billable_rates: true });
  t.same((await ok("filters/projects/status", { ids: [open.id] }, member))[0].billable_amount, null, "no amounts where only admins see rates");
  t.equal((await ok("filters/projects/status", { ids: [open.id] }, admin))[0].billable_amount, 3500);
  await world.setWorkspace({ only_admins_see_billable_rates: false });
});

t.test("filters/tasks/status answers the named tasks' time; tasks of hidden projects are not there", async (t) => {
  const hidden = await task(secret, "Hidden task");
  await entry({ project: secret, task: hidden.id, start: "2025-01-20T09:00:00Z", seconds: 120 });
  const visible = await task(shared, "Mapping", { estimated: 7200 });
  await entry({ project: shared, task: visible.id, start: "2025-01-20T09:00:00Z", seconds: 300, billable: true, user: member });
  t.same(await ok("filters/tasks/status", { ids: [visible.id, hidden.id] }, member), [
    { id: visible.id, tracked_seconds: 300, billable_seconds: 300, billable_amount: 333, currency: "USD", estimated_seconds: 7200 },
  ]);
  t.same(ids(await ok("filters/tasks/status", { ids: [visible.id, hidden.id] })), [hidden.id, visible.id].sort(compareIds));
  const empty = await post("filters/tasks/status", { ids: [] });
  t.same([empty.status, empty.body], [400, noFilterParameter().rawMessage]);
});

t.test("{action}/tasks answers the tasks of the projects the caller sees, for both actions", async (t) => {
  const flight = await world.project("Flight", { client_id: gamma, billable: false });
  const plan = await task(flight, "Plan", { user: member, estimated: 600 });
  const fly = await task(flight, "Fly", { active: false });
  await task(secret, "Sneak");
  await entry({ project: flight, task: plan.id, start: "2025-02-01T09:00:00Z", seconds: 90 });
  const filtered = await ok("filters/tasks", { project_ids: [flight.id, secret.id] }, member);
  t.same(ids(filtered), [plan.id, fly.id]);
  t.match(filtered[0], {
    id: plan.id, name: "Plan", workspace_id: wid, project_id: flight.id, active: true, estimated_seconds: 600, tracked_seconds: 90_000, user_id: member.id, user_name: "member",
    client_id: gamma, client_name: "gamma 100%", project_name: "Flight", project_color: flight.color, project_billable: false, project_is_private: false, recurring: false, rate: null,
  });
  t.same(filtered[1].user_name, null);
  t.same(await ok("search/tasks", { project_ids: [flight.id, secret.id] }, member), filtered, "search answers the same");
  const list = async (body: object) => ids(await ok("search/tasks", { project_ids: [flight.id], ...body }));
  t.same(await list({ active: false }), [fly.id]);
  t.same(await list({ user_ids: [member.id] }), [plan.id]);
  t.same(await list({ name: "FL" }), [fly.id]);
  t.same(await list({ page_size: 1, start: plan.id + 1n }), [fly.id]);
  t.same(await list({ project_active: false }), []);
  const empty = await post("filters/tasks", {});
  t.same([empty.status, empty.body], [400, noFilterParameter().rawMessage]);
  const unknown = await post("other/tasks", { ids: [plan.id] });
  t.equal(unknown.status, 404, "an action other than filters and search");
});

t.test("projects/summary answers tracked and billable seconds per project and user over the days, in the caller's zone", async (t) => {
  const orbit = await world.project("Orbit");
  await entry({ project: orbit, start: "2025-04-01T00:00:00Z", seconds: 100, billable: true });
  await entry({ project: orbit, start: "2025-04-02T23:59:59Z", seconds: 200 });
  await entry({ project: orbit, start: "2025-04-02T10:00:00Z", seconds: 300, user: member });
  await entry({ project: orbit, start: "2025-04-03T00:00:00Z", seconds: 400 });
  await entry({ project: orbit, start: "2025-03-31T23:59:59Z", seconds: 500 });
  await entry({ project: secret, start: "2025-04-01T10:00:00Z", seconds: 600 });
  const range = { start_date: "2025-04-01", end_date: "2025-04-02" };
  t.same(await ok("projects/summary", range), [
    { project_id: secret.id, user_id: owner.id, tracked_seconds: 600, billable_seconds: 0 },
    { project_id: orbit.id, user_id: owner.id, tracked_seconds: 300, billable_seconds: 100 },
    { project_id: orbit.id, user_id: member.id, tracked_seconds: 300, billable_seconds: 0 },
  ].sort((a, b) => compareIds(a.project_id, b.project_id) || a.user_id - b.user_id));
  t.same((await ok("projects/summary", range, member)).map((r: { project_id: number }) => r.project_id), [orbit.id, orbit.id], "not a hidden project's time");
  const zone = await sys.api("PUT", "/api/v9/me", { auth: owner.auth, body: { timezone: "America/New_York" } });
  t.equal(zone.status, 200, zone.text);
  t.teardown(async () => void (await sys.api("PUT", "/api/v9/me", { auth: owner.auth, body: { timezone: "UTC" } })));
  // 2025-04-01 00:00 in New York is 04:00 UTC: the first entry falls on March 31, the fourth (23:00 on the 2nd there) inside.
  t.same((await ok("projects/summary", range)).filter((r: { project_id: number; user_id: number }) => r.project_id === Number(orbit.id) && r.user_id === owner.id), [
    { project_id: orbit.id, user_id: owner.id, tracked_seconds: 600, billable_seconds: 0 },
  ]);
});

t.test("the summaries' ranges are checked in the reference's words", async (t) => {
  const path = `projects/${open.id}/summary`;
  for (const [where, body, message] of [
    ["projects/summary", {}, noFilterParameter().rawMessage],
    ["projects/summary", { start_date: "2025-01-01" }, rangeParameterRequired("end_date").rawMessage],
    [path, {}, rangeParameterRequired("start_date").rawMessage],
    [path, { start_date: "2025-01-01" }, rangeParameterRequired("end_date").rawMessage],
    [path, { start_date: "2025-02-30", end_date: "2025-03-01" }, rangeParameterFormat("start_date").rawMessage],
    [path, { start_date: "2025-01-01", end_date: "2025-01-01T00:00:00Z" }, rangeParameterFormat("end_date").rawMessage],
    [path, { start_date: "2005-12-31", end_date: "2025-01-01" }, rangeOutOfBounds("start_date", "2006-01-01", "2030-01-01").rawMessage],
    [path, { start_date: "2025-01-01", end_date: "2030-01-02" }, rangeOutOfBounds("end_date", "2006-01-01", "2030-01-01").rawMessage],
    [path, { start_date: "2025-01-02", end_date: "2025-01-01" }, rangeReversed().rawMessage],
    [path, { start_date: 20250101, end_date: "2025-01-01" }, "Invalid value for start_date: expected string, got number"],
  ] as const) {
    const res = await post(where, body);
    t.same([res.status, res.body], [400, message], `${where} ${JSON.stringify(body)}`);
  }
  t.equal((await post(path, { start_date: "2025-01-01", end_date: "2025-01-01" })).status, 200, "one day");
});

t.test("projects/{id}/summary totals a project's days: seconds, days, billable time per rate, amounts, a graph per day", async (t) => {
  const launch = await world.project("Launch", { rate: 100, currency: "EUR" });
  const cheap = await task(launch, "Cheap", { rate: 50 });
  await projectUser(launch, owner, { labour_cost: 20 });
  await entry({ project: launch, start: "2025-02-01T09:00:00Z", seconds: 3600, billable: true });
  await entry({ project: launch, start: "2025-02-03T10:00:00Z", seconds: 1800, billable: true, task: cheap.id });
  await entry({ project: launch, start: "2025-02-03T23:30:00Z", seconds: 1800, user: member });
  await entry({ project: launch, start: "2025-01-31T23:59:59Z", seconds: 7 });
  await entry({ project: launch, start: "2025-02-11T00:00:00Z", seconds: 7 });
  await entry({ project: launch, start: "2025-02-05T00:00:00Z", seconds: 7, deleted: true });
  await entry({ project: launch, start: "2025-02-05T00:00:00Z", seconds: -1, user: member });
  const summary = await ok(`projects/${launch.id}/summary`, { start_date: "2025-02-01", end_date: "2025-02-10" });
  const empty = { seconds: 0, billable_amount_in_cents: 0, labour_cost_in_cents: 0, by_rate: {} };
  t.same(summary, {
    seconds: 7200,
    tracked_days: 2,
    billable_amount_in_cents: 10_000 + 2_500,
    labour_cost_in_cents: 3_000,
    rates: [
      { billable_seconds: 1800, currency: "EUR", hourly_rate_in_cents: 5000 },
      { billable_seconds: 3600, currency: "EUR", hourly_rate_in_cents: 10_000 },
    ],
    resolution: "day",
    graph: [
      { seconds: 3600, billable_amount_in_cents: 10_000, labour_cost_in_cents: 2_000, by_rate: { "10000": 3600 } },
      empty,
      { seconds: 3600, billable_amount_in_cents: 2_500, labour_cost_in_cents: 1_000, by_rate: { "5000": 1800 } },
      ...Array.from({ length: 7 }, () => empty),
    ],
  });
  const seen = await ok(`projects/${launch.id}/summary`, { start_date: "2025-02-01", end_date: "2025-02-10" }, member);
  t.same([seen.seconds, seen.billable_amount_in_cents, seen.labour_cost_in_cents], [7200, 12_500, null], "a member sees amounts, not labour costs");
  await world.setWorkspace({ only_admins_see_billable_rates: true });
  const hidden = await ok(`projects/${launch.id}/summary`, { start_date: "2025-02-01", end_date: "2025-02-10" }, member);
  await world.setWorkspace({ only_admins_see_billable_rates: false });
  t.same([hidden.billable_amount_in_cents, hidden.rates, hidden.graph[0].by_rate], [null, [], {}], "nor amounts where only admins see rates");
});

t.test("a longer range is graphed per week (from the caller's first weekday) or per month", async (t) => {
  const weekly = await world.project("Weekly");
  await entry({ project: weekly, start: "2025-01-05T12:00:00Z", seconds: 60 });
  await entry({ project: weekly, start: "2025-01-06T12:00:00Z", seconds: 120 });
  const quarter = await ok(`projects/${weekly.id}/summary`, { start_date: "2025-01-01", end_date: "2025-03-31" });
  t.equal(quarter.resolution, "week");
  // Monday weeks: Dec 30 - Jan 5 holds the 5th, Jan 6 - 12 the 6th; Mar 31 opens the 14th week.
  t.same(quarter.graph.slice(0, 3).map((p: { seconds: number }) => p.seconds), [60, 120, 0]);
  t.equal(quarter.graph.length, 14);
  const sunday = await sys.api("PUT", "/api/v9/me", { auth: owner.auth, body: { beginning_of_week: 0 } });
  t.equal(sunday.status, 200, sunday.text);
  t.teardown(async () => void (await sys.api("PUT", "/api/v9/me", { auth: owner.auth, body: { beginning_of_week: 1 } })));
  const fromSunday = await ok(`projects/${weekly.id}/summary`, { start_date: "2025-01-01", end_date: "2025-03-31" });
  t.same(fromSunday.graph.slice(0, 2).map((p: { seconds: number }) => p.seconds), [0, 180], "Sunday weeks: Jan 5 and 6 share the second");
  const year = await ok(`projects/${weekly.id}/summary`, { start_date: "2025-01-01", end_date: "2025-12-31" });
  t.equal(year.resolution, "month");
  t.same(year.graph.map((p: { seconds: number }) => p.seconds), [180, ...Array(11).fill(0)]);
  t.equal(year.tracked_days, 2);
});

t.test("a day is the caller's local day, across a change of daylight saving time", async (t) => {
  const night = await world.project("Night");
  // Tallinn moves from UTC+2 to UTC+3 at 2025-03-30 01:00 UTC.
  await entry({ project: night, start: "2025-03-29T22:30:00Z", seconds: 60 }); // 00:30 on March 30 there
  await entry({ project: night, start: "2025-03-30T21:30:00Z", seconds: 120 }); // 00:30 on March 31 there
  await entry({ project: night, start: "2025-03-29T21:30:00Z", seconds: 240 }); // 23:30 on March 29 there
  const zone = await sys.api("PUT", "/api/v9/me", { auth: owner.auth, body: { timezone: "Europe/Tallinn" } });
  t.equal(zone.status, 200, zone.text);
  t.teardown(async () => void (await sys.api("PUT", "/api/v9/me", { auth: owner.auth, body: { timezone: "UTC" } })));
  const summary = await ok(`projects/${night.id}/summary`, { start_date: "2025-03-30", end_date: "2025-03-31" });
  t.same(summary.graph.map((p: { seconds: number }) => p.seconds), [60, 120]);
  t.same([summary.seconds, summary.tracked_days], [180, 2]);
});

t.test("projects/{id}/summary of a project the caller does not see, or of none, is refused", async (t) => {
  const range = { start_date: "2025-01-01", end_date: "2025-01-31" };
  for (const [id, user, status, message] of [
    [secret.id, member, 403, summaryProjectNotAccessible().rawMessage],
    [gone.id, owner, 403, summaryProjectNotAccessible().rawMessage],
    [999_999, owner, 403, summaryProjectNotAccessible().rawMessage],
    [0, owner, 400, summaryProjectIdInvalid().rawMessage],
  ] as const) {
    const res = await post(`projects/${id}/summary`, range, user);
    t.same([res.status, res.body], [status, message], `project ${id}`);
  }
  t.equal((await post(`projects/${secret.id}/summary`, range, admin)).status, 200, "an admin sees it");
});

t.test("a zone's offsets over a range split at each change of daylight saving time, to the second", async (t) => {
  const from = new Date("2024-12-31T22:00:00Z");
  const to = new Date("2026-01-01T00:00:00Z");
  t.same(
    offsetSpans(from, to, "Europe/Tallinn").map((s) => [s.until.toISOString(), s.offsetSeconds]),
    [
      ["2025-03-30T01:00:00.000Z", 7200],
      ["2025-10-26T01:00:00.000Z", 10800],
      ["2026-01-01T00:00:00.000Z", 7200],
    ],
  );
  t.same(offsetSpans(from, to, "UTC"), [{ until: to, offsetSeconds: 0 }]);
  t.same(offsetSpans(from, to, "Asia/Kolkata"), [{ until: to, offsetSeconds: 19800 }]);
});

t.test("the graph's buckets: days up to 31, weeks up to 98 days, months beyond", async (t) => {
  const range = (first: string, last: string) => {
    const [a, b] = [first, last].map((d) => d.split("-").map(Number));
    return { first: { year: a[0], month: a[1], day: a[2] }, last: { year: b[0], month: b[1], day: b[2] } };
  };
  t.equal(resolutionOf(range("2025-01-01", "2025-01-31")), "day");
  t.equal(resolutionOf(range("2025-01-01", "2025-02-01")), "week");
  t.equal(resolutionOf(range("2025-01-01", "2025-04-08")), "week");
  t.equal(resolutionOf(range("2025-01-01", "2025-04-09")), "month");
  t.equal(buckets(range("2025-01-01", "2025-01-31"), "day", 1).count, 31);
  // Wednesday Jan 1 to Sunday Jan 12: two Monday weeks and a part, or two Sunday weeks and a part.
  t.equal(buckets(range("2025-01-01", "2025-01-12"), "week", 1).count, 2);
  t.equal(buckets(range("2025-01-01", "2025-01-12"), "week", 0).count, 3);
  t.equal(buckets(range("2024-11-15", "2025-02-01"), "month", 1).count, 4);
});
