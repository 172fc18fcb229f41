import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { accountsDb, addMember, ownOrganization } from "../../accounts/test/organization-support.js";
import type { TrackingService } from "../index.js";
import { WORKSPACE_OBJECTS } from "../exports/rules.js";
import * as layout from "../portability/layout.js";
import { trackingWorld } from "./tracking-support.js";
import { realExport, unzip, zipOf } from "./import-fixtures.js";

/**
 * The round trip: a workspace with every kind of object, exported through the API and imported
 * into a fresh installation (another system, its own databases), answers the same v9 GETs there,
 * ids aside (every id is compared as the name of what it points to) and the moments of the
 * import itself aside (`at`, `created_at`, `server_deleted_at`, `rate_last_updated` compared as
 * there or not).
 */

const clock = new ManualClock(new Date("2026-03-04T10:00:00Z"));
const source = await startTestSystem(t, { clock });
const world = await trackingWorld(t, source, clock);
const { owner } = world;
const wid = owner.workspaceId;
await world.setPlan(true);
const member = await world.join("member");

async function call(sys: TestSystem, user: TrackUser, method: string, path: string, body?: unknown) {
  const res = await sys.api(method, path, { auth: user.auth, body });
  if (res.status !== 200 && res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}
const ws = `/api/v9/workspaces/${wid}`;
const as = (user: TrackUser) => (method: string, path: string, body?: unknown) => call(source, user, method, path, body);
const byOwner = as(owner);

// Every kind of object: clients with notes (one archived); projects with start dates, estimates,
// rates, a fixed fee, a currency, one private with a project user (rate and labor cost) and a
// group, one archived; tasks with assignees, estimates and a rate; tags; entries in several time
// zones, billable, tagged, on tasks, one running and one deleted of each person.
const designers = await byOwner("POST", `/api/v9/organizations/${world.organizationId}/groups`, { name: "Designers", users: [member.id], workspaces: [wid] });
const acme = await byOwner("POST", `${ws}/clients`, { name: "Acme", notes: "Pays in 30 days" });
const old = await byOwner("POST", `${ws}/clients`, { name: "Old client", notes: "Gone quiet" });
await byOwner("POST", `${ws}/clients/${old.id}/archive`);
const alpha = await byOwner("POST", `${ws}/projects`, { name: "Alpha", client_id: acme.id, start_date: "2025-06-01", estimated_hours: 120, rate: 80, currency: "EUR", fixed_fee: 5000, billable: true, color: "#4dc3ff" });
const secret = await byOwner("POST", `${ws}/projects`, { name: "Secret", is_private: true, start_date: "2025-09-15", estimated_hours: 10 });
await byOwner("POST", `${ws}/projects`, { name: "Legacy", client_id: old.id, active: false, start_date: "2024-01-01", end_date: "2024-12-31" });
await byOwner("POST", `${ws}/project_users`, { project_id: secret.id, user_id: member.id, rate: 55.5, labour_cost: 30 });
await byOwner("POST", `${ws}/project_users`, { project_id: alpha.id, user_id: member.id, manager: true });
await byOwner("POST", `${ws}/project_groups`, { project_id: secret.id, group_id: designers.group_id });
const design = await byOwner("POST", `${ws}/projects/${alpha.id}/tasks`, { name: "Design", user_id: member.id, estimated_seconds: 7200 });
const build = await byOwner("POST", `${ws}/projects/${alpha.id}/tasks`, { name: "Build", active: false });
await byOwner("POST", `${ws}/rates`, { level: "task", level_id: build.id, amount: 95, mode: "override-all" });
await byOwner("POST", `${ws}/projects/${secret.id}/tasks`, { name: "Research" });
await byOwner("POST", `${ws}/tags`, { name: "urgent" });
await byOwner("POST", `${ws}/tags`, { name: "review" });
const entry = (user: TrackUser, body: Record<string, unknown>) => as(user)("POST", `${ws}/time_entries`, { created_with: "round trip", workspace_id: wid, ...body });
await entry(owner, { start: "2025-12-31T23:30:00Z", duration: 3600, description: "New year's eve", project_id: alpha.id, task_id: design.id, tags: ["urgent", "review"], billable: true });
await entry(owner, { start: "2026-02-01T09:00:00+02:00", duration: 5400, description: "Tallinn morning", project_id: secret.id });
await entry(member, { start: "2026-02-02T09:00:00-05:00", duration: 1800, description: "New York morning", project_id: secret.id, tags: ["review"] });
await entry(member, { start: "2026-02-02T18:00:00+05:30", duration: 2700, description: "Kolkata evening", project_id: alpha.id, task_id: design.id, billable: true });
await entry(member, { start: "2026-02-05T08:00:00Z", duration: 600 });
for (const user of [owner, member]) {
  const gone = await entry(user, { start: "2026-02-03T10:00:00Z", duration: 600, description: `Deleted by ${user.id === owner.id ? "owner" : "member"}` });
  await as(user)("DELETE", `${ws}/time_entries/${gone.id}`);
}
await entry(owner, { start: "2026-03-04T09:00:00Z", duration: -1, description: "Running", project_id: alpha.id });
await entry(member, { start: "2026-03-04T09:30:00Z", duration: -1, description: "Also running", tags: ["urgent"] });

/** The workspace exported through the API: requested, built by the export worker, downloaded. */
async function exported(): Promise<Buffer> {
  const token = await byOwner("POST", `${ws}/exports`, [...WORKSPACE_OBJECTS]);
  await (source.services.get("tracking") as TrackingService).exports.tick();
  const res = await fetch(`${source.url}${ws}/exports/data/${token}.zip`, { headers: { authorization: `Basic ${Buffer.from(`${owner.apiToken}:api_token`).toString("base64")}` } });
  if (res.status !== 200) throw new Error(`download: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/** A user of the fresh installation with the same address and name as one of the source. */
async function sameUser(sys: TestSystem, like: TrackUser): Promise<TrackUser> {
  const { fullname } = await call(source, like, "GET", "/api/v9/me");
  const res = await sys.api("POST", "/api/signup", { body: { email: like.email, password: like.password, display_name: fullname, timezone: "UTC" } });
  if (res.status !== 200) throw new Error(`signup: ${res.text}`);
  return { ...like, id: res.body.id, apiToken: res.body.api_token, workspaceId: res.body.default_workspace_id, auth: { basic: [res.body.api_token, "api_token"] } };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What an installation answers: the v9 lists of the workspace, and each person's entries (deleted ones among `since` changes). */
async function answers(sys: TestSystem, admin: TrackUser, people: TrackUser[], workspaceId: number, organizationId: number) {
  const w = `/api/v9/workspaces/${workspaceId}`;
  const get = (path: string, user = admin) => call(sys, user, "GET", path);
  const projects = await get(`${w}/projects?active=both`);
  const ids = projects.map((p: { id: number }) => p.id).join(",");
  const since = Date.UTC(2026, 0, 1) / 1000;
  return {
    clients: await get(`${w}/clients?status=both`),
    projects,
    project_users: await get(`${w}/project_users?with_group_members=true`),
    project_groups: await get(`${w}/project_groups?project_ids=${ids}`),
    groups: await get(`${w}/groups`),
    group_members: await get(`/api/v9/organizations/${organizationId}/groups?workspace=${workspaceId}`),
    tasks: (await get(`${w}/tasks?active=both&per_page=200`)).data,
    tags: await get(`${w}/tags`),
    time_entries: Object.fromEntries(await Promise.all(people.map(async (p) => [p.email, await get(`/api/v9/me/time_entries?since=${since}`, p)]))),
  } as Record<string, Json>;
}

/** Fields that are the moment something was stored, compared as there or not. */
const MOMENTS = new Set(["at", "created_at", "server_deleted_at", "rate_last_updated", "labour_cost_last_updated"]);

/**
 * The answers with every id replaced by the name of what it points to (a workspace by "W", a user
 * by their address) and the moments by whether they are there; lists sorted, as their order by id
 * is the order of creation, which an import need not keep.
 */
function normalised(all: Record<string, Json>, people: TrackUser[]): Json {
  const name = (list: Json, idField = "id") => new Map(((list ?? []) as { [k: string]: Json }[]).map((o) => [o[idField] as number, o.name as string]));
  const names: Record<string, Map<number, string>> = {
    client: name(all.clients),
    project: name(all.projects),
    task: name(all.tasks),
    tag: name(all.tags),
    group: name(all.groups),
    user: new Map(people.map((p) => [p.id, p.email])),
    workspace: new Map([[people[0].workspaceId, "W"]]),
  };
  const refs: Record<string, string> = {
    workspaces: "workspace",
    client_id: "client", cid: "client", project_id: "project", pid: "project", task_id: "task", tid: "task", tag_ids: "tag",
    group_id: "group", user_id: "user", uid: "user", creator_id: "user", user_ids: "user",
  };
  const walk = (value: Json, key = ""): Json => {
    if (MOMENTS.has(key)) return value === null ? null : "(a moment)";
    if (["id", "guid"].includes(key)) return "(id)";
    if (["wid", "workspace_id"].includes(key)) return "W";
    if (refs[key] && typeof value === "number") return names[refs[key]].get(value) ?? `unknown ${refs[key]} ${value}`;
    // A running entry's duration is minus its start's UNIX time: the same start, the same value.
    if (Array.isArray(value)) {
      const items = value.map((v) => walk(v, refs[key] ? key : ""));
      return items.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    }
    if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  return walk(all as Json);
}

t.test("a workspace exported and imported into a fresh installation answers the same, ids aside", async (t) => {
  const zip = await exported();
  const files = await unzip(zip);
  t.ok(files.has(layout.PROJECT_GROUPS_FILE), "the projects' groups travel in a file of our own");
  t.ok(files.has(layout.deletedTimeEntriesFile(2026)), "the deleted entries too");
  t.notOk(JSON.parse(files.get(layout.timeEntriesFile(2026))!.toString()).some((e: { server_deleted_at: unknown }) => e.server_deleted_at), "the year files hold what the API lists");

  const target = await startTestSystem(t, { clock });
  const owner2 = await sameUser(target, owner);
  const member2 = await sameUser(target, member);
  const organization2 = await ownOrganization(target, owner2);
  await addMember(await accountsDb(t, target), organization2, member2, { workspaces: [owner2.workspaceId] });
  await target.directory.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(owner2.workspaceId), premium: true });
  clock.advance(5_001);

  const w2 = `/api/v9/workspaces/${owner2.workspaceId}`;
  /** The export imported there through the API, followed until it ends. */
  const imported = async () => {
    let job = await call(target, owner2, "POST", `${w2}/imports`, { files: [{ name: "export.zip", content: zip.toString("base64") }], time_zone: "UTC" });
    for (const end = Date.now() + 30_000; !["finished", "failed"].includes(job.state) && Date.now() < end; await new Promise((r) => setTimeout(r, 20))) job = await call(target, owner2, "GET", `${w2}/imports/${job.id}`);
    return job;
  };
  let job = await imported();
  t.equal(job.state, "finished", JSON.stringify(job));
  t.match(job, { created: { clients: 2, projects: 3, tasks: 3, tags: 2, project_users: 5, time_entries: 9 }, invited: [] });

  const before = normalised(await answers(source, owner, [owner, member], wid, world.organizationId), [owner, member]);
  const after = normalised(await answers(target, owner2, [owner2, member2], owner2.workspaceId, organization2), [owner2, member2]);
  for (const list of Object.keys(before as object)) t.same((after as Record<string, Json>)[list], (before as Record<string, Json>)[list], list);

  // Importing the same export again changes nothing.
  job = await imported();
  t.match(job, { state: "finished", created: { clients: 0, projects: 0, tasks: 0, tags: 0, project_users: 0, time_entries: 0 } });
  t.same(normalised(await answers(target, owner2, [owner2, member2], owner2.workspaceId, organization2), [owner2, member2]), after, "a second import of the same file changes nothing");
});

t.test("the fields the round trip carries are checked: a bad one refuses the file whole, nothing written", async (t) => {
  const people = [{ uid: 11, email: owner.email, name: "Owner" }];
  const base = realExport(people);
  const projects = JSON.parse(base[layout.PROJECTS_FILE]);
  const withProject = (change: Record<string, unknown>) => ({ ...base, [layout.PROJECTS_FILE]: JSON.stringify([{ ...projects[0], ...change }, ...projects.slice(1)]) });
  const cases: [string, Record<string, string>, RegExp][] = [
    ["a negative rate", withProject({ rate: -5 }), /^bad\.zip: projects\.json: item 1: rate must be a number from 0 to 1000000000$/],
    ["a start date that is no day", withProject({ start_date: "2026-02-30" }), /^bad\.zip: projects\.json: item 1: invalid start_date "2026-02-30": expected YYYY-MM-DD$/],
    ["an estimate that is no whole number", withProject({ estimated_seconds: 1.5 }), /^bad\.zip: projects\.json: item 1: estimated_seconds must be a whole number of seconds$/],
    ["a currency too long", withProject({ currency: "EURO" }), /^bad\.zip: projects\.json: item 1: currency is longer than 3 characters$/],
    ["client notes of the wrong type", { ...base, [layout.CLIENTS_FILE]: JSON.stringify([{ id: 501, name: "Acme", notes: 7 }]) }, /^bad\.zip: clients\.json: item 1: notes must be a string$/],
    ["a labor cost of the wrong type", { ...base, [layout.projectUsersFile("602")]: JSON.stringify([{ project_id: 602, user_id: 11, labor_cost: "lots" }]) }, /^bad\.zip: projects_users\/602\.json: item 1: labor_cost must be a number/],
    ["a project's group the archive does not hold", { ...base, [layout.PROJECT_GROUPS_FILE]: JSON.stringify([{ id: 1, group_id: 77, pid: 601, wid: 900001 }]) }, /^bad\.zip: workhub\/project_groups\.json: item 1: group 77 is not in user_groups\.json$/],
    ["a group's members that are no list", { ...base, [layout.USER_GROUPS_FILE]: JSON.stringify([{ id: 77, name: "Team" }]), [layout.GROUP_MEMBERS_FILE]: JSON.stringify([{ group_id: 77, name: "Team", users: 11 }]) }, /^bad\.zip: workhub\/groups\.json: item 1: users must be an array$/],
    ["a deleted entry of the wrong shape", { ...base, [layout.timeEntriesFile(2026)]: "[]", [layout.deletedTimeEntriesFile(2026)]: JSON.stringify([{ start: "2026-02-01T10:00:00Z", duration: "long", user_id: 11 }]) }, /^bad\.zip: workhub\/deleted_time_entries\/2026\.json: item 1: duration must be a whole number$/],
  ];
  const rows = async () => {
    const out: Record<string, number> = {};
    for (const table of ["clients", "projects", "tasks", "tags", "project_users", "project_groups", "time_entries"]) out[table] = Number((await world.tracking(table).count({ n: "*" }).first())!.n);
    return out;
  };
  for (const [what, files, message] of cases) {
    const before = await rows();
    const res = await source.api("POST", `${ws}/imports`, { auth: owner.auth, body: { files: [{ name: "bad.zip", content: (await zipOf(files)).toString("base64") }], time_zone: "UTC" } });
    t.equal(res.status, 400, what);
    t.match(res.body, message, what);
    t.same(await rows(), before, `${what}: nothing written`);
  }
});
