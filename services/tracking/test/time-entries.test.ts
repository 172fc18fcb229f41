import t from "tap";
import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { connectDatabase } from "../../../lib/db.js";
import { EventSchema } from "../../../gen/events/v1/event_pb.js";
import { TimeEntrySchema } from "../../../gen/tracking/v1/time_entries_pb.js";
import { accountsDb, addMember, ownOrganization } from "../../accounts/test/organization-support.js";
import { createdWithMissing, durationMismatch, invalidProject, invalidTask, invalidUser, runningWithStop, startDateInvalid, startMissing, stopBeforeStart, tagActionInvalid, tagIdsInvalid, taskNotOfProject, timeEntryIdInvalid, timeEntryNotFound, timeEntryStopped, workspaceIdMismatch } from "../errors.js";

// The service's clock; the gate remembers access answers for 5 s of it (settings changes wait it out).
const clock = new ManualClock(new Date("2025-03-10T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const owner: TrackUser = await sys.signup("owner");
const stranger: TrackUser = await sys.signup("stranger");
const member: TrackUser = await sys.signup("member");
const admin: TrackUser = await sys.signup("admin");
const accounts = await accountsDb(t, sys);
const organization = await ownOrganization(sys, owner);
await addMember(accounts, organization, member);
await addMember(accounts, organization, admin, { admin: true });
await accounts("workspace_users").where({ user_id: admin.id }).update({ admin: true, role: "admin" });
const tracking = await connectDatabase(sys.config, "tracking");
t.teardown(() => tracking.destroy());

const ws = owner.workspaceId;
const base = `/api/v9/workspaces/${ws}/time_entries`;
const unix = (iso: string) => Math.round(Date.parse(iso) / 1000);

async function create(body: Record<string, unknown>, user: TrackUser = owner, query = "") {
  const res = await sys.api("POST", `${base}${query}`, { auth: user.auth, body: { created_with: "tests", workspace_id: ws, ...body } });
  t.equal(res.status, 200, res.text);
  return res.body;
}

async function expect400(method: string, path: string, body: unknown, message: string | RegExp, user: TrackUser = owner) {
  const res = await sys.api(method, path, { auth: user.auth, body });
  t.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
  if (typeof message === "string") t.equal(res.body, message);
  else t.match(res.body, message);
}

const current = async (user: TrackUser = owner) => sys.api("GET", "/api/v9/me/time_entries/current", { auth: user.auth });

async function stopAll(user: TrackUser = owner) {
  const res = await current(user);
  if (res.body) await sys.api("PATCH", `/api/v9/workspaces/${res.body.workspace_id}/time_entries/${res.body.id}/stop`, { auth: user.auth });
}

async function project(name: string, workspaceId = ws, user = owner) {
  const res = await sys.api("POST", `/api/v9/workspaces/${workspaceId}/projects`, { auth: user.auth, body: { name, color: "#06aaf5", active: true } });
  if (res.status !== 200) throw new Error(`project: ${res.status} ${res.text}`);
  return res.body;
}

async function task(projectId: number, name: string, workspaceId = ws, user = owner) {
  const res = await sys.api("POST", `/api/v9/workspaces/${workspaceId}/projects/${projectId}/tasks`, { auth: user.auth, body: { name } });
  if (res.status !== 200) throw new Error(`task: ${res.status} ${res.text}`);
  return res.body;
}

async function entryEvents() {
  const rows: { data: Buffer }[] = await tracking("outbox").orderBy("seq").select("data");
  return rows.map((r) => fromBinary(EventSchema, new Uint8Array(r.data))).filter((e) => e.entity === "time_entry");
}

t.test("a running entry answers every field as the reference does", async (t) => {
  const e = await create({ start: "2025-03-10T09:00:00Z", description: "Writing" });
  t.same(Object.keys(e).sort(), [
    "at", "billable", "description", "duration", "duronly", "id", "permissions", "project_id", "server_deleted_at",
    "start", "stop", "tag_ids", "tags", "task_id", "uid", "user_id", "wid", "workspace_id",
  ]);
  t.match(e, { id: Number, workspace_id: ws, wid: ws, user_id: owner.id, uid: owner.id, description: "Writing", billable: false, duronly: true });
  t.equal(e.start, "2025-03-10T09:00:00+00:00");
  t.equal(e.stop, null);
  t.equal(e.duration, -unix("2025-03-10T09:00:00Z"), "the negative UNIX time of its start");
  t.equal(e.project_id, null);
  t.equal(e.task_id, null);
  t.equal(e.server_deleted_at, null);
  t.equal(e.permissions, null);
  t.same(e.tags, []);
  t.same(e.tag_ids, []);
  t.match(e.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  t.notOk("pid" in e || "tid" in e, "legacy aliases of null values are omitted");
  const cur = await current();
  t.same(cur.body, e, "it is the current entry");
  const got = await sys.api("GET", `/api/v9/me/time_entries/${e.id}`, { auth: owner.auth });
  t.same(got.body, e);
  await stopAll();
});

t.test("a start with fractions keeps its whole second (never later than sent); duration as the reference README shows", async (t) => {
  const e = await create({ start: "2024-12-13T00:18:26.8Z", duration: -1 });
  t.equal(e.duration, -1734049107);
  t.equal(e.stop, null);
  t.equal(e.start, "2024-12-13T00:18:26+00:00");
  await stopAll();
});

t.test("nothing running: current answers 200 with the body null", async (t) => {
  await stopAll();
  const res = await current();
  t.equal(res.status, 200);
  t.equal(res.text, "null");
  t.match(res.headers.get("content-type"), /application\/json/);
});

t.test("stopped entries: stop, duration, or both when they agree", async (t) => {
  const byStop = await create({ start: "2025-03-01T08:00:00Z", stop: "2025-03-01T09:30:00Z" });
  t.match(byStop, { duration: 5400, stop: "2025-03-01T09:30:00+00:00" });
  const byDuration = await create({ start: "2025-03-01T10:00:00Z", duration: 600 });
  t.match(byDuration, { duration: 600, stop: "2025-03-01T10:10:00+00:00" });
  const both = await create({ start: "2025-03-01T11:00:00+01:00", stop: "2025-03-01T11:00:30Z", duration: 3630 });
  t.match(both, { start: "2025-03-01T10:00:00+00:00", duration: 3630 }, "offsets are read, answers are UTC");
  t.equal((await current()).text, "null", "stopped entries do not run");
});

t.test("body rules refuse inconsistent or missing values with a 400 and change nothing", async (t) => {
  const before = await tracking("time_entries").count({ n: "*" }).first();
  for (const [body, message] of [
    [{ start: "2025-03-01T08:00:00Z", stop: "2025-03-01T09:00:00Z", duration: 100 }, durationMismatch().rawMessage],
    [{ start: "2025-03-01T08:00:00Z", stop: "2025-03-01T07:00:00Z" }, stopBeforeStart().rawMessage],
    [{ start: "2025-03-01T08:00:00Z", stop: "2025-03-01T09:00:00Z", duration: -1 }, runningWithStop().rawMessage],
    [{ start: "yesterday" }, /^Invalid start/],
    [{ start: "2025-02-30T08:00:00Z" }, /^Invalid start/],
    [{ start: "2025-03-01T08:00:00Z", stop: "later" }, /^Invalid stop/],
    [{ start: "2025-03-01T08:00:00Z", start_date: "03/01/2025" }, startDateInvalid().rawMessage],
    [{ description: "no start" }, startMissing().rawMessage],
    [{ start: "2025-03-01T08:00:00Z", created_with: "" }, createdWithMissing().rawMessage],
    [{ start: "2025-03-01T08:00:00Z", workspace_id: ws + 1000 }, workspaceIdMismatch().rawMessage],
    [{ start: "2025-03-01T08:00:00Z", wid: ws + 1000 }, workspaceIdMismatch().rawMessage],
    [{ start: "2025-03-01T08:00:00Z", tag_ids: [987654] }, tagIdsInvalid().rawMessage],
    [{ start: "2025-03-01T08:00:00Z", project_id: 987654 }, invalidProject().rawMessage],
    [{ start: "2025-03-01T08:00:00Z", task_id: 987654 }, invalidTask().rawMessage],
    [{ start: "2025-03-01T08:00:00Z", tag_action: "toggle", tags: ["x"] }, tagActionInvalid().rawMessage],
    [{ start: "2025-03-01T08:00:00Z", billable: "yes" }, /billable/],
    [{ start: "2025-03-01T08:00:00Z", duration: "long" }, /duration/],
    [{ start: "2025-03-01T08:00:00Z", tags: "x" }, /tags/],
    [{ start: "2025-03-01T08:00:00Z", duration: 1e15 }, /duration/],
  ] as const) {
    await expect400("POST", base, { created_with: "tests", ...body }, message);
  }
  const missing = await sys.api("POST", base, { auth: owner.auth, body: { start: "2025-03-01T08:00:00Z" } });
  t.equal(missing.body, createdWithMissing().rawMessage);
  const nobody = await sys.api("POST", base, { auth: owner.auth });
  t.equal(nobody.status, 400);
  const after = await tracking("time_entries").count({ n: "*" }).first();
  t.same(after, before);
});

t.test("start_date's date takes precedence over start's date on creation", async (t) => {
  const e = await create({ start: "2025-03-01T08:15:00Z", start_date: "2025-02-20", duration: 60 });
  t.equal(e.start, "2025-02-20T08:15:00+00:00");
  t.equal(e.stop, "2025-02-20T08:16:00+00:00");
});

t.test("starting an entry stops the one that runs (one running entry per user)", async (t) => {
  const first = await create({ start: "2025-03-10T08:00:00Z" });
  const second = await create({ start: "2025-03-10T10:00:00Z", duration: -1 });
  const stopped = await sys.api("GET", `/api/v9/me/time_entries/${first.id}`, { auth: owner.auth });
  t.match(stopped.body, { stop: "2025-03-10T10:00:00+00:00", duration: 7200 }, "stopped where the new one starts");
  t.equal((await current()).body.id, second.id);
  const running = await tracking("time_entries").where({ user_id: owner.id }).whereNull("stop").whereNull("server_deleted_at").count({ n: "*" }).first();
  t.equal(Number(running!.n), 1);
  const theirs = await create({ start: "2025-03-10T09:00:00Z" }, member);
  t.equal((await current()).body.id, second.id, "another user's start leaves this user's timer alone");
  t.equal((await current(member)).body.id, theirs.id);
  await stopAll();
  await stopAll(member);
});

t.test("concurrent starts leave one running entry", async (t) => {
  const results = await Promise.all(
    [0, 1, 2, 3].map((i) => sys.api("POST", base, { auth: owner.auth, body: { created_with: "tests", start: `2025-03-10T11:0${i}:00Z` } })),
  );
  for (const r of results) t.equal(r.status, 200, r.text);
  const running = await tracking("time_entries").where({ running_user_id: owner.id }).count({ n: "*" }).first();
  t.equal(Number(running!.n), 1);
  const stillNull = await tracking("time_entries").where({ user_id: owner.id }).whereNull("stop").whereNull("server_deleted_at").count({ n: "*" }).first();
  t.equal(Number(stillNull!.n), 1);
  await stopAll();
});

t.test("stop: running to stopped, then 409; unknown 404; bad id 400", async (t) => {
  clock.set(new Date("2025-03-10T12:00:00Z"));
  const e = await create({ start: "2025-03-10T11:00:00Z" });
  clock.advance(30 * 60_000);
  const res = await sys.api("PATCH", `${base}/${e.id}/stop`, { auth: owner.auth });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { id: e.id, stop: "2025-03-10T12:30:00+00:00", duration: 5400 });
  const again = await sys.api("PATCH", `${base}/${e.id}/stop`, { auth: owner.auth });
  t.equal(again.status, 409);
  t.equal(again.body, timeEntryStopped().rawMessage);
  const unknown = await sys.api("PATCH", `${base}/999999/stop`, { auth: owner.auth });
  t.equal(unknown.status, 404);
  t.equal(unknown.body, timeEntryNotFound().rawMessage);
  for (const bad of ["abc", "0", "-5"]) {
    const r = await sys.api("PATCH", `${base}/${bad}/stop`, { auth: owner.auth });
    t.equal(r.status, 400, bad);
    t.equal(r.body, timeEntryIdInvalid().rawMessage);
  }
});

t.test("PUT moves between states: a stop stops, a negative duration restarts, a new start keeps the state", async (t) => {
  await stopAll();
  const e = await create({ start: "2025-03-10T08:00:00Z" });
  const moved = await sys.api("PUT", `${base}/${e.id}`, { auth: owner.auth, body: { start: "2025-03-10T07:00:00Z" } });
  t.match(moved.body, { stop: null, duration: -unix("2025-03-10T07:00:00Z") }, "a running entry stays running from its new start");
  const stopped = await sys.api("PUT", `${base}/${e.id}`, { auth: owner.auth, body: { stop: "2025-03-10T09:00:00Z" } });
  t.match(stopped.body, { stop: "2025-03-10T09:00:00+00:00", duration: 7200 });
  t.equal((await current()).text, "null");
  const later = await sys.api("PUT", `${base}/${e.id}`, { auth: owner.auth, body: { start: "2025-03-10T08:30:00Z" } });
  t.match(later.body, { stop: "2025-03-10T09:00:00+00:00", duration: 1800 }, "a stopped entry keeps its stop");
  const other = await create({ start: "2025-03-10T10:00:00Z" });
  const restarted = await sys.api("PUT", `${base}/${e.id}`, { auth: owner.auth, body: { duration: -1 } });
  t.match(restarted.body, { stop: null, duration: -unix("2025-03-10T08:30:00Z") });
  t.equal((await current()).body.id, e.id, "running again");
  const otherNow = await sys.api("GET", `/api/v9/me/time_entries/${other.id}`, { auth: owner.auth });
  t.not(otherNow.body.stop, null, "the entry that ran was stopped");
  const bad = await sys.api("PUT", `${base}/${e.id}`, { auth: owner.auth, body: { stop: "2025-03-10T08:00:00Z" } });
  t.equal(bad.status, 400);
  t.equal(bad.body, stopBeforeStart().rawMessage);
  t.equal((await current()).body.id, e.id, "a refused change changes nothing");
  const byAdmin = await sys.api("PATCH", `${base}/${e.id}/stop`, { auth: admin.auth });
  t.equal(byAdmin.status, 200, "a workspace admin may stop a member's entry");
  const unknown = await sys.api("PUT", `${base}/999999`, { auth: owner.auth, body: { description: "x" } });
  t.equal(unknown.status, 404);
  t.equal(unknown.body, timeEntryNotFound().rawMessage);
});

t.test("tags: names are created, ids must exist, PUT adds and deletes", async (t) => {
  const e = await create({ start: "2025-03-02T08:00:00Z", duration: 60, tags: ["alpha", "beta"] });
  t.same(e.tags.slice().sort(), ["alpha", "beta"]);
  t.equal(e.tag_ids.length, 2);
  const listed = await sys.api("GET", `/api/v9/workspaces/${ws}/tags`, { auth: owner.auth });
  t.ok(listed.body.some((tag: { name: string }) => tag.name === "alpha"), "the tag exists in the workspace");
  const tagEvents: { data: Buffer }[] = await tracking("outbox").where("subject", "like", "%.tag.created").select("data");
  t.ok(tagEvents.length >= 2, "each new tag emitted its created event");
  const again = await create({ start: "2025-03-02T09:00:00Z", duration: 60, tags: ["ALPHA"] });
  t.same(again.tag_ids, [e.tag_ids[e.tags.indexOf("alpha")]], "an existing name (ignoring case) is reused");
  const added = await sys.api("PUT", `${base}/${e.id}`, { auth: owner.auth, body: { tags: ["gamma"], tag_action: "add" } });
  t.same(added.body.tags.slice().sort(), ["alpha", "beta", "gamma"]);
  const deleted = await sys.api("PUT", `${base}/${e.id}`, { auth: owner.auth, body: { tag_ids: [e.tag_ids[0]], tag_action: "delete" } });
  t.equal(deleted.body.tags.length, 2);
  t.notOk(deleted.body.tag_ids.includes(e.tag_ids[0]));
  const replaced = await sys.api("PUT", `${base}/${e.id}`, { auth: owner.auth, body: { tags: ["beta"] } });
  t.same(replaced.body.tags, ["beta"], "without tag_action the given tags replace the entry's");
  const otherTag = await sys.api("POST", `/api/v9/workspaces/${stranger.workspaceId}/tags`, { auth: stranger.auth, body: { name: "theirs" } });
  await expect400("PUT", `${base}/${e.id}`, { tag_ids: [otherTag.body.id] }, tagIdsInvalid().rawMessage);
});

t.test("project and task must belong to the workspace, the task to the project; meta fields on request", async (t) => {
  const p = await project("Website");
  const other = await project("Other");
  const tk = await task(p.id, "Design");
  const theirs = await project("Theirs", stranger.workspaceId, stranger);
  await expect400("POST", base, { created_with: "x", start: "2025-03-03T08:00:00Z", project_id: theirs.id }, invalidProject().rawMessage);
  await expect400("POST", base, { created_with: "x", start: "2025-03-03T08:00:00Z", project_id: other.id, task_id: tk.id }, taskNotOfProject().rawMessage);
  const byTask = await create({ start: "2025-03-03T08:00:00Z", duration: 60, task_id: tk.id });
  t.match(byTask, { project_id: p.id, pid: p.id, task_id: tk.id, tid: tk.id }, "a task alone brings its project; aliases written");
  t.notOk("project_name" in byTask, "no meta fields unless asked");
  const legacy = await create({ start: "2025-03-03T09:00:00Z", duration: 60, pid: p.id, tid: tk.id, wid: ws, uid: owner.id }, owner, "?meta=true");
  t.match(legacy, { project_id: p.id, task_id: tk.id, project_name: "Website", project_color: "#06aaf5", project_active: true, task_name: "Design" });
  const moved = await sys.api("PUT", `${base}/${legacy.id}`, { auth: owner.auth, body: { project_id: other.id } });
  t.match(moved.body, { project_id: other.id, task_id: null }, "a task of the old project goes with it");
  const cleared = await sys.api("PUT", `${base}/${legacy.id}`, { auth: owner.auth, body: { project_id: 0 } });
  t.equal(cleared.body.project_id, null);
  t.notOk("pid" in cleared.body);
});

t.test("a private project is, to members outside it, no project: entries cannot name it or its tasks", async (t) => {
  const secret = (await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: owner.auth, body: { name: "Secret entries", is_private: true } })).body;
  const open = (await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: owner.auth, body: { name: "Open entries", is_private: false } })).body;
  const secretTask = await task(secret.id, "Hidden work");
  const start = "2025-03-07T08:00:00Z";
  await expect400("POST", base, { created_with: "x", start, duration: 60, project_id: secret.id }, invalidProject().rawMessage, member);
  await expect400("POST", base, { created_with: "x", start, duration: 60, task_id: secretTask.id }, invalidProject().rawMessage, member);
  const mine = await create({ start, duration: 60, project_id: open.id }, member);
  await expect400("PUT", `${base}/${mine.id}`, { project_id: secret.id }, invalidProject().rawMessage, member);
  const patched = await sys.api("PATCH", `${base}/${mine.id}`, { auth: member.auth, body: [{ op: "replace", path: "/project_id", value: secret.id }] });
  t.same(patched.body, { success: [], failure: [{ id: mine.id, message: invalidProject().rawMessage }] });
  t.equal((await sys.api("GET", `/api/v9/me/time_entries/${mine.id}`, { auth: member.auth })).body.project_id, open.id, "nothing changed");
  t.equal((await create({ start, duration: 60, project_id: secret.id }, admin)).project_id, secret.id, "admins see every project");
  const joined = await sys.api("POST", `/api/v9/workspaces/${ws}/project_users`, { auth: owner.auth, body: { project_id: secret.id, user_id: member.id } });
  t.equal(joined.status, 200, joined.text);
  t.equal((await create({ start, duration: 60, task_id: secretTask.id }, member)).project_id, secret.id, "a project user may");
  // Losing access later does not block other edits of an entry that already has the project.
  const kept = await create({ start, duration: 60, project_id: secret.id }, member);
  await sys.api("DELETE", `/api/v9/workspaces/${ws}/project_users/${joined.body.id}`, { auth: owner.auth });
  const edited = await sys.api("PUT", `${base}/${kept.id}`, { auth: member.auth, body: { description: "still mine" } });
  t.equal(edited.status, 200, edited.text);
  t.equal(edited.body.project_id, secret.id);
});

t.test("billable defaults to false and is kept as given", async (t) => {
  t.equal((await create({ start: "2025-03-04T08:00:00Z", duration: 1 })).billable, false);
  t.equal((await create({ start: "2025-03-04T09:00:00Z", duration: 1, billable: true })).billable, true);
});

t.test("the workspace's time entry constraints are enforced with clear 400s", async (t) => {
  const set = (body: Record<string, boolean>) => sys.api("POST", `/api/v9/workspaces/${ws}/time_entry_constraints`, { auth: owner.auth, body });
  const res = await set({ time_entry_constraints_enabled: true, description_present: true, project_present: true, tag_present: true, task_present: true });
  t.equal(res.status, 200, res.text);
  clock.advance(10_000);
  t.teardown(async () => {
    await set({ time_entry_constraints_enabled: false });
    clock.advance(10_000);
  });
  const p = await project("Constrained");
  const tk = await task(p.id, "Work");
  const start = "2025-03-05T08:00:00Z";
  await expect400("POST", base, { created_with: "x", start, duration: 5 }, "The workspace requires a description for time entries");
  await expect400("POST", base, { created_with: "x", start, duration: 5, description: "d" }, "The workspace requires a project for time entries");
  await expect400("POST", base, { created_with: "x", start, duration: 5, description: "d", project_id: p.id }, "The workspace requires a task for time entries");
  await expect400("POST", base, { created_with: "x", start, duration: 5, description: "d", task_id: tk.id }, "The workspace requires a tag for time entries");
  const ok = await create({ start, duration: 5, description: "d", task_id: tk.id, tags: ["c"] });
  await expect400("PUT", `${base}/${ok.id}`, { description: "  " }, "The workspace requires a description for time entries");
});

t.test("user_id: admins track for members; plain members only for themselves", async (t) => {
  const byAdmin = await create({ start: "2025-03-06T08:00:00Z", duration: 60, user_id: member.id }, admin);
  t.match(byAdmin, { user_id: member.id, uid: member.id });
  const mine = await sys.api("GET", `/api/v9/me/time_entries/${byAdmin.id}`, { auth: member.auth });
  t.equal(mine.status, 200, "it is the member's entry");
  const refused = await sys.api("POST", base, { auth: member.auth, body: { created_with: "x", start: "2025-03-06T09:00:00Z", user_id: admin.id } });
  t.equal(refused.status, 403);
  await expect400("POST", base, { created_with: "x", start: "2025-03-06T09:00:00Z", user_id: stranger.id }, invalidUser().rawMessage, admin);
  const othersEntry = await sys.api("PUT", `${base}/${byAdmin.id}`, { auth: owner.auth, body: { description: "by the owner, an admin" } });
  t.equal(othersEntry.status, 200);
  const mineOnly = await create({ start: "2025-03-06T10:00:00Z", duration: 60 }, owner);
  const memberEdits = await sys.api("PUT", `${base}/${mineOnly.id}`, { auth: member.auth, body: { description: "not theirs" } });
  t.equal(memberEdits.status, 403);
  t.equal(memberEdits.body, "User does not have access to this resource.");
  const memberStops = await sys.api("DELETE", `${base}/${mineOnly.id}`, { auth: member.auth });
  t.equal(memberStops.status, 403);
});

t.test("sharing: shared_with with include_sharing, members only", async (t) => {
  const e = await create({ start: "2025-03-06T11:00:00Z", duration: 60, shared_with_user_ids: [member.id] });
  t.notOk("shared_with" in e);
  const got = await sys.api("GET", `/api/v9/me/time_entries/${e.id}?include_sharing=true`, { auth: owner.auth });
  t.same(got.body.shared_with, [{ accepted: false, user_id: member.id, user_name: "member" }]);
  await expect400("POST", base, { created_with: "x", start: "2025-03-06T11:00:00Z", shared_with_user_ids: [stranger.id] }, /shared_with_user_ids/);
});

t.test("delete marks the entry deleted: gone from lists and by id, present with since", async (t) => {
  clock.set(new Date("2025-03-10T12:00:00Z"));
  const e = await create({ start: "2025-03-09T08:00:00Z", duration: 60 });
  const res = await sys.api("DELETE", `${base}/${e.id}`, { auth: owner.auth });
  t.equal(res.status, 200);
  t.equal(res.text, "");
  t.equal((await sys.api("GET", `/api/v9/me/time_entries/${e.id}`, { auth: owner.auth })).status, 404);
  const recent = await sys.api("GET", "/api/v9/me/time_entries", { auth: owner.auth });
  t.notOk(recent.body.some((x: { id: number }) => x.id === e.id));
  const since = await sys.api("GET", `/api/v9/me/time_entries?since=${unix("2025-03-10T11:00:00Z")}`, { auth: owner.auth });
  const found = since.body.find((x: { id: number }) => x.id === e.id);
  t.match(found.server_deleted_at, /^2025-03-10T12:00:00/);
  t.equal((await sys.api("DELETE", `${base}/${e.id}`, { auth: owner.auth })).status, 404);
  t.equal((await sys.api("PUT", `${base}/${e.id}`, { auth: owner.auth, body: { description: "x" } })).status, 404);
});

t.test("events: created, updated (stop too), deleted, each carrying the entry", async (t) => {
  const before = (await entryEvents()).length;
  const e = await create({ start: "2025-03-10T11:30:00Z" });
  await sys.api("PATCH", `${base}/${e.id}/stop`, { auth: owner.auth });
  await sys.api("DELETE", `${base}/${e.id}`, { auth: owner.auth });
  const events = (await entryEvents()).slice(before);
  t.same(events.map((x) => x.action), ["created", "updated", "deleted"]);
  const entry = anyUnpack(events[0].object!, TimeEntrySchema)!;
  t.equal(Number(entry.id), e.id);
  t.equal(events[0].workspaceId, String(ws));
  const filters = await sys.api("GET", "/webhooks/api/v1/event_filters", { auth: owner.auth });
  t.same(filters.body.time_entry ?? filters.body.find?.((f: { entity: string }) => f.entity === "time_entry")?.actions, ["created", "updated", "deleted"]);
});

t.test("isolation: other users and workspaces see nothing", async (t) => {
  const e = await create({ start: "2025-03-07T08:00:00Z", duration: 60 });
  t.equal((await sys.api("GET", `/api/v9/me/time_entries/${e.id}`, { auth: stranger.auth })).status, 404);
  const list = await sys.api("GET", "/api/v9/me/time_entries?start_date=2025-01-01&end_date=2026-01-01", { auth: stranger.auth });
  t.same(list.body, []);
  t.equal((await sys.api("PUT", `${base}/${e.id}`, { auth: stranger.auth, body: { description: "x" } })).status, 403);
  const viaOwn = await sys.api("PUT", `/api/v9/workspaces/${stranger.workspaceId}/time_entries/${e.id}`, { auth: stranger.auth, body: { description: "x" } });
  t.equal(viaOwn.status, 404, "an id of another workspace is not found in one's own");
  t.equal((await sys.api("PATCH", `/api/v9/workspaces/${stranger.workspaceId}/time_entries/${e.id}/stop`, { auth: stranger.auth })).status, 404);
  t.equal((await sys.api("GET", "/api/v9/me/time_entries")).status, 403, "no credentials");
  t.equal((await sys.api("GET", "/api/v9/me/time_entries/current")).status, 403);
});
