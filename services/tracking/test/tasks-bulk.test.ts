import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { TaskSchema } from "../../../gen/tracking/v1/tasks_pb.js";
import { eventObject, trackingWorld } from "./tracking-support.js";
import { INVALID_TASK_IDS, activeFilterInvalid, archivedProjectTasks, invalidProject, invalidTask, invalidUser, nameTaken, taskSortFieldInvalid } from "../errors.js";

/** Tasks' bulk PATCH (lib/bulk-patch.ts) and the basic workspace list (`GET .../tasks/basic`). */

const clock = new ManualClock(new Date("2026-03-15T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const w = await trackingWorld(t, sys, clock);
const owner = w.owner;
const member = await w.join("member");
const stranger: TrackUser = await sys.signup("stranger");
const ws = `/api/v9/workspaces/${owner.workspaceId}`;

async function api(method: string, path: string, body?: unknown, user: TrackUser = owner) {
  return sys.api(method, path, { auth: user.auth, body });
}

async function project(body: Record<string, unknown>) {
  const res = await api("POST", `${ws}/projects`, body);
  if (res.status !== 200) throw new Error(res.text);
  return res.body as { id: number };
}

async function task(projectId: number, body: Record<string, unknown>) {
  const res = await api("POST", `${ws}/projects/${projectId}/tasks`, body);
  if (res.status !== 200) throw new Error(`${res.status} ${res.text}`);
  return res.body as { id: number; name: string };
}

const p = await project({ name: "Bulk", is_private: false });
const other = await project({ name: "Other" });
const a = await task(p.id, { name: "Alpha" });
const b = await task(p.id, { name: "Beta" });
const c = await task(p.id, { name: "Gamma task" });
const elsewhere = await task(other.id, { name: "Elsewhere" });
const patch = (ids: string, body: unknown, user: TrackUser = owner, projectId = p.id) => api("PATCH", `${ws}/projects/${projectId}/tasks/${ids}`, body, user);

t.test("PATCH applies the operations to each task and answers success and failure", async (t) => {
  const res = await patch(`${a.id},${b.id},${elsewhere.id},999999`, [
    { op: "replace", path: "/active", value: false },
    { op: "add", path: "/estimated_seconds", value: 3600 },
    { op: "replace", path: "/user_id", value: member.id },
  ]);
  t.equal(res.status, 200);
  t.same(res.body, {
    success: [a.id, b.id],
    failure: [
      { id: elsewhere.id, message: invalidTask().rawMessage },
      { id: 999999, message: invalidTask().rawMessage },
    ],
  });
  const got = await api("GET", `${ws}/projects/${p.id}/tasks/${a.id}`);
  t.match(got.body, { active: false, estimated_seconds: 3600, user_id: member.id });
  const events = (await w.events("task")).filter((e) => e.action === "updated");
  t.same(events.map((e) => Number(eventObject(e, TaskSchema).id)), [a.id, b.id]);

  const cleared = await patch(String(a.id), [{ op: "remove", path: "/estimated_seconds" }, { op: "remove", path: "/user_id" }]);
  t.same(cleared.body, { success: [a.id], failure: [] });
  t.match((await api("GET", `${ws}/projects/${p.id}/tasks/${a.id}`)).body, { estimated_seconds: null, user_id: null });
});

t.test("PATCH of a name: each task on its own, a taken name failing only its task", async (t) => {
  const res = await patch(`${b.id},${c.id}`, [{ op: "replace", path: "/name", value: "Gamma task" }]);
  t.same(res.body, { success: [c.id], failure: [{ id: b.id, message: nameTaken().rawMessage }] }, "the task that has the name keeps it");
});

t.test("PATCH refuses a malformed request as a whole", async (t) => {
  const cases: [string, unknown, string][] = [
    ["x", [{ op: "replace", path: "/active", value: true }], INVALID_TASK_IDS],
    [String(a.id), [], "No patchable fields defined"],
    [String(a.id), { op: "replace" }, "Invalid JSON input"],
    [String(a.id), [{ op: "move", path: "/active", value: true }], "Invalid op: move"],
    [String(a.id), [{ op: "replace", path: "/project_id", value: 1 }], "Path not found: /project_id"],
    [String(a.id), [{ op: "remove", path: "/name" }], "Operation not supported (remove /name)"],
    [String(a.id), [{ op: "replace", path: "/active", value: "yes" }], "/active expects a boolean"],
    [String(a.id), [{ op: "replace", path: "/estimated_seconds", value: -1 }], "/estimated_seconds expects a non-negative integer or null"],
    [String(a.id), [{ op: "replace", path: "/user_id", value: stranger.id }], invalidUser().rawMessage],
  ];
  for (const [ids, body, message] of cases) {
    const res = await patch(ids, body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message);
  }
  const tooMany = await patch(Array.from({ length: 101 }, (_, i) => i + 1).join(","), [{ op: "replace", path: "/active", value: true }]);
  t.equal(tooMany.status, 400);
  t.equal(tooMany.body, "PATCH request is limited to 100 entries at once");
});

t.test("PATCH needs a project the caller manages, live and active", async (t) => {
  const ops = [{ op: "replace", path: "/active", value: true }];
  const notManager = await patch(String(a.id), ops, member);
  t.equal(notManager.status, 403);
  const missing = await patch(String(a.id), ops, owner, 999999);
  t.equal(missing.status, 400);
  t.equal(missing.body, invalidProject().rawMessage);
  const archived = await project({ name: "Archived" });
  const archivedTask = await task(archived.id, { name: "Old" });
  await api("PUT", `${ws}/projects/${archived.id}`, { active: false });
  const refused = await patch(String(archivedTask.id), ops, owner, archived.id);
  t.equal(refused.status, 400);
  t.equal(refused.body, archivedProjectTasks().rawMessage);
});

t.test("tasks/basic pages the live tasks of the visible projects, searched by name", async (t) => {
  const res = await api("GET", `${ws}/tasks/basic?active=both`);
  t.equal(res.status, 200);
  t.same(Object.keys(res.body).sort(), ["data", "page", "per_page", "sort_field", "sort_order", "total_count"]);
  t.match(res.body, { page: 1, per_page: 50, sort_field: "name", sort_order: "ASC", total_count: 5 });
  t.same(res.body.data.map((x: { name: string }) => x.name), ["Alpha", "Beta", "Elsewhere", "Gamma task", "Old"]);
  const active = await api("GET", `${ws}/tasks/basic`);
  t.notOk(active.body.data.some((x: { name: string }) => x.name === "Alpha"), "Alpha was marked done");
  const search = await api("GET", `${ws}/tasks/basic?search=TASK&active=both`);
  t.same(search.body.data.map((x: { name: string }) => x.name), ["Gamma task"]);
  const wildcard = await api("GET", `${ws}/tasks/basic?search=%25&active=both`);
  t.same(wildcard.body.data, [], "% is a literal");
  const page = await api("GET", `${ws}/tasks/basic?active=both&per_page=2&page=2&sort_order=DESC`);
  t.match(page.body, { page: 2, per_page: 2, sort_order: "DESC", total_count: 5 });
  t.same(page.body.data.map((x: { name: string }) => x.name), ["Elsewhere", "Beta"]);
});

t.test("tasks/basic refuses bad parameters and strangers", async (t) => {
  const field = await api("GET", `${ws}/tasks/basic?sort_field=at`);
  t.equal(field.status, 400);
  t.equal(field.body, taskSortFieldInvalid().rawMessage);
  const active = await api("GET", `${ws}/tasks/basic?active=maybe`);
  t.equal(active.status, 400);
  t.equal(active.body, activeFilterInvalid().rawMessage);
  const other = await api("GET", `${ws}/tasks/basic`, undefined, stranger);
  t.equal(other.status, 403);
});
