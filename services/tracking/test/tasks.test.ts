import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { TaskSchema } from "../../../gen/tracking/v1/tasks_pb.js";
import { timeEntries } from "../time-entries/store.js";
import { eventObject, trackingWorld } from "./tracking-support.js";
import { activeFilterInvalid, archivedProjectTasks, invalidProject, invalidTask, invalidUser, nameTaken, sortOrderInvalid, taskNameEmpty, taskSortFieldInvalid } from "../errors.js";

const clock = new ManualClock(new Date("2026-03-15T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const w = await trackingWorld(t, sys, clock);
const owner = w.owner;
const member = await w.join("member");
const stranger: TrackUser = await sys.signup("stranger");
const ws = `/api/v9/workspaces/${owner.workspaceId}`;

/** Every field of a task answer (the reference's Task, less the integration fields). */
const TASK_FIELDS = [
  "active", "at", "client_name", "estimated_seconds", "id", "name", "permissions", "project_billable", "project_color", "project_id", "project_name",
  "rate", "rate_last_updated", "recurring", "server_deleted_at", "toggl_accounts_id", "tracked_seconds", "user_id", "workspace_id",
];

async function api(method: string, path: string, body?: unknown, user: TrackUser = owner) {
  return sys.api(method, path, { auth: user.auth, body });
}

async function project(body: Record<string, unknown>) {
  const res = await api("POST", `${ws}/projects`, body);
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { id: number; name: string; color: string };
}

async function task(projectId: number, body: Record<string, unknown>, user: TrackUser = owner) {
  const res = await api("POST", `${ws}/projects/${projectId}/tasks`, body, user);
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

const p = await project({ name: "Tasked", client_name: "Task Client", color: "#abcdef", is_private: false });

t.test("create answers every field of the task; get and the project's list answer the same", async (t) => {
  const created = await task(p.id, { name: "Design", estimated_seconds: 7200 });
  t.same(Object.keys(created).sort(), TASK_FIELDS);
  t.match(created, {
    id: Number, name: "Design", workspace_id: owner.workspaceId, project_id: p.id, user_id: owner.id, active: true, estimated_seconds: 7200,
    tracked_seconds: 0, rate: null, rate_last_updated: null, recurring: false, permissions: null, toggl_accounts_id: null,
    client_name: "Task Client", project_name: "Tasked", project_color: "#abcdef", project_billable: false, server_deleted_at: null,
  });
  t.match(created.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  const got = await api("GET", `${ws}/projects/${p.id}/tasks/${created.id}`);
  t.equal(got.status, 200);
  t.same(got.body, created);
  const list = await api("GET", `${ws}/projects/${p.id}/tasks`);
  t.same(list.body, [created]);
  const event = (await w.events("task")).find((e) => e.action === "created" && e.objectId === String(created.id));
  t.ok(event, "task created is emitted");
  t.equal(eventObject(event!, TaskSchema).name, "Design");
});

t.test("create refuses bad input with clear messages and changes nothing", async (t) => {
  const before = (await api("GET", `${ws}/projects/${p.id}/tasks`)).body.length;
  const archived = await project({ name: "Archived one", active: false });
  for (const [path, body, status, message] of [
    [`${ws}/projects/${p.id}/tasks`, {}, 400, taskNameEmpty().rawMessage],
    [`${ws}/projects/${p.id}/tasks`, { name: "  " }, 400, taskNameEmpty().rawMessage],
    [`${ws}/projects/${p.id}/tasks`, { name: "x".repeat(256) }, 400, "Task name must be at most 255 characters"],
    [`${ws}/projects/${p.id}/tasks`, { name: "design" }, 400, nameTaken().rawMessage],
    [`${ws}/projects/${p.id}/tasks`, { name: "Other", user_id: stranger.id }, 400, invalidUser().rawMessage],
    [`${ws}/projects/999999/tasks`, { name: "Nowhere" }, 400, invalidProject().rawMessage],
    [`${ws}/projects/${archived.id}/tasks`, { name: "Late" }, 400, archivedProjectTasks().rawMessage],
    [`${ws}/projects/${p.id}/tasks`, { name: "Member's" }, 403, "User does not have access to this resource."],
  ] as const) {
    const res = await api("POST", path, body, message.startsWith("User") ? member : owner);
    t.equal(res.status, status, JSON.stringify(body));
    t.equal(res.body, message);
  }
  t.equal((await api("GET", `${ws}/projects/${p.id}/tasks`)).body.length, before);
});

t.test("update, done, assignee, and delete", async (t) => {
  const x = await task(p.id, { name: "Build" });
  clock.advance(1000);
  const updated = await api("PUT", `${ws}/projects/${p.id}/tasks/${x.id}`, { name: "Build it", active: false, user_id: member.id, estimated_seconds: 60 });
  t.equal(updated.status, 200, updated.text);
  t.match(updated.body, { id: x.id, name: "Build it", active: false, user_id: member.id, estimated_seconds: 60 });
  t.not(updated.body.at, x.at);
  t.ok((await w.events("task")).some((e) => e.action === "updated" && e.objectId === String(x.id)));
  const other = await project({ name: "Other project" });
  const wrongProject = await api("GET", `${ws}/projects/${other.id}/tasks/${x.id}`);
  t.equal(wrongProject.status, 400);
  t.equal(wrongProject.body, invalidTask().rawMessage, "a task is reached only through its project");
  const missing = await api("PUT", `${ws}/projects/${p.id}/tasks/999999`, { name: "x" });
  t.equal(missing.status, 400);
  t.equal(missing.body, invalidTask().rawMessage);
  const del = await api("DELETE", `${ws}/projects/${p.id}/tasks/${x.id}`);
  t.equal(del.status, 200);
  t.equal(del.text, "");
  t.equal((await api("GET", `${ws}/projects/${p.id}/tasks/${x.id}`)).status, 400);
  t.ok((await w.events("task")).some((e) => e.action === "deleted" && e.objectId === String(x.id)));
  const again = await task(p.id, { name: "Build it" });
  t.ok(again.id, "a deleted task's name is free again");
});

t.test("tracked_seconds counts the task's stopped entries, in milliseconds as the reference says", async (t) => {
  const x = await task(p.id, { name: "Timed" });
  const now = clock.now();
  await w.tracking.transaction((trx) =>
    timeEntries.insert(trx, {
      workspace_id: owner.workspaceId, user_id: owner.id, project_id: p.id, task_id: x.id, description: null, billable: false, start: now, stop: now,
      duration: 90, running_user_id: null, tag_ids: [], shared_with_user_ids: [], created_with: "test", created_at: now, at: now, server_deleted_at: null,
    } as never),
  );
  t.equal((await api("GET", `${ws}/projects/${p.id}/tasks/${x.id}`)).body.tracked_seconds, 90_000);
});

t.test("GET /workspaces/{id}/tasks: the reference's envelope with its parameters", async (t) => {
  const q = await project({ name: "Listing" });
  for (const name of ["b task", "A task", "c task"]) {
    await task(q.id, { name });
    clock.advance(1000);
  }
  const done = await task(q.id, { name: "d done", active: false });
  const res = await api("GET", `${ws}/tasks?pid=${q.id}`);
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), ["data", "page", "per_page", "sort_field", "sort_order", "total_count"]);
  t.match(res.body, { page: 1, per_page: 50, sort_field: "name", sort_order: "ASC", total_count: 3 });
  t.same(res.body.data.map((x: { name: string }) => x.name), ["A task", "b task", "c task"]);
  const names = async (query: string) => (await api("GET", `${ws}/tasks?pid=${q.id}&${query}`)).body.data.map((x: { name: string }) => x.name);
  t.same(await names("active=false"), ["d done"]);
  t.same(await names("active=both"), ["A task", "b task", "c task", "d done"]);
  t.same(await names("sort_field=created_at&sort_order=DESC"), ["c task", "A task", "b task"]);
  t.same(await names("per_page=2&page=2"), ["c task"]);
  const paged = await api("GET", `${ws}/tasks?pid=${q.id}&per_page=2&page=2`);
  t.match(paged.body, { page: 2, per_page: 2, total_count: 3 });
  t.same(await names(`since=${Math.floor(clock.now().getTime() / 1000)}&active=both`), ["d done"]);
  t.same(await names("start_date=2026-03-15&end_date=2026-03-15"), ["A task", "b task", "c task"]);
  t.same(await names("start_date=2026-03-16"), []);
  t.ok(done);
  for (const [query, message] of [
    ["sort_field=rate", taskSortFieldInvalid().rawMessage],
    ["sort_order=up", sortOrderInvalid().rawMessage],
    ["active=sometimes", activeFilterInvalid().rawMessage],
    ["start_date=yesterday", "start_date must be a date in the form YYYY-MM-DD"],
  ]) {
    const bad = await api("GET", `${ws}/tasks?${query}`);
    t.equal(bad.status, 400, query);
    t.equal(bad.body, message);
  }
});

t.test("tasks of private projects are hidden like their projects; /me/tasks lists the caller's", async (t) => {
  const secret = await project({ name: "Hidden", is_private: true });
  const hiddenTask = await task(secret.id, { name: "Hidden task" });
  const memberView = await api("GET", `${ws}/projects/${secret.id}/tasks`, undefined, member);
  t.equal(memberView.status, 400);
  t.equal(memberView.body, invalidProject().rawMessage);
  const all = await api("GET", `${ws}/tasks?per_page=200`, undefined, member);
  t.notOk(all.body.data.some((x: { id: number }) => x.id === hiddenTask.id));
  const mine = await api("GET", "/api/v9/me/tasks", undefined, member);
  t.equal(mine.status, 200, mine.text);
  t.notOk(mine.body.some((x: { id: number }) => x.id === hiddenTask.id));
  t.ok(mine.body.some((x: { name: string }) => x.name === "Design"));
  t.same(Object.keys(mine.body[0]).sort(), TASK_FIELDS);
  const ownerTasks = await api("GET", "/api/v9/me/tasks");
  t.ok(ownerTasks.body.some((x: { id: number }) => x.id === hiddenTask.id));
  t.notOk(ownerTasks.body.some((x: { active: boolean }) => !x.active), "done tasks left out by default");
  const withDone = await api("GET", "/api/v9/me/tasks?include_not_active=true");
  t.ok(withDone.body.some((x: { active: boolean }) => !x.active));
  const page = await api("GET", "/api/v9/me/tasks?offset=1&per_page=2");
  t.same(page.body.map((x: { id: number }) => x.id), ownerTasks.body.slice(1, 3).map((x: { id: number }) => x.id));
  const bad = await api("GET", "/api/v9/me/tasks?include_not_active=maybe");
  t.equal(bad.status, 400);
  t.equal(bad.body, "Invalid include_not_active");
  t.same((await api("GET", "/api/v9/me/tasks", undefined, stranger)).body, []);
});

t.test("deleting a project deletes its tasks", async (t) => {
  const doomed = await project({ name: "Doomed" });
  const x = await task(doomed.id, { name: "Goes too" });
  t.equal((await api("DELETE", `${ws}/projects/${doomed.id}`)).status, 200);
  t.ok((await w.events("task")).some((e) => e.action === "deleted" && e.objectId === String(x.id)));
  const listed = await api("GET", `${ws}/tasks?active=both&per_page=200`);
  t.notOk(listed.body.data.some((y: { id: number }) => y.id === x.id));
});

t.test("another workspace: strangers get 403; its tasks are not reachable from here", async (t) => {
  const x = await task(p.id, { name: "Guarded task" });
  for (const [method, path, body] of [
    ["GET", `${ws}/projects/${p.id}/tasks`],
    ["POST", `${ws}/projects/${p.id}/tasks`, { name: "Intruder" }],
    ["GET", `${ws}/projects/${p.id}/tasks/${x.id}`],
    ["PUT", `${ws}/projects/${p.id}/tasks/${x.id}`, { name: "Hijacked" }],
    ["DELETE", `${ws}/projects/${p.id}/tasks/${x.id}`],
    ["GET", `${ws}/tasks`],
  ] as const) {
    const res = await api(method, path, body, stranger);
    t.equal(res.status, 403, `${method} ${path}`);
  }
  const theirWs = `/api/v9/workspaces/${stranger.workspaceId}`;
  const theirProject = (await api("POST", `${theirWs}/projects`, { name: "Theirs" }, stranger)).body;
  const theirTask = (await api("POST", `${theirWs}/projects/${theirProject.id}/tasks`, { name: "Their task" }, stranger)).body;
  t.equal((await api("GET", `${ws}/projects/${theirProject.id}/tasks/${theirTask.id}`)).status, 400);
  t.equal((await api("GET", `${ws}/projects/${p.id}/tasks/${theirTask.id}`)).status, 400);
  t.notOk((await api("GET", `${ws}/tasks?active=both&per_page=200`)).body.data.some((y: { id: number }) => y.id === theirTask.id));
  t.equal((await api("GET", `${ws}/projects/${p.id}/tasks/${x.id}`)).body.name, "Guarded task", "unchanged");
});
