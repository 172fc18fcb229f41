import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { stopBeforeStart, timeEntryNotFound } from "../errors.js";

// Bulk PATCH of time entries, and what projects read from or do to their entries.
const clock = new ManualClock(new Date("2025-03-20T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const user: TrackUser = await sys.signup("patcher");
const stranger: TrackUser = await sys.signup("stranger");
const ws = user.workspaceId;
const base = `/api/v9/workspaces/${ws}/time_entries`;

async function entry(body: Record<string, unknown> = {}, who: TrackUser = user) {
  const res = await sys.api("POST", `/api/v9/workspaces/${who.workspaceId}/time_entries`, { auth: who.auth, body: { created_with: "tests", start: "2025-03-19T08:00:00Z", duration: 60, ...body } });
  if (res.status !== 200) throw new Error(res.text);
  return res.body;
}

const get = async (id: number) => (await sys.api("GET", `/api/v9/me/time_entries/${id}`, { auth: user.auth })).body;
const patch = (ids: string, body: unknown, who: TrackUser = user) => sys.api("PATCH", `${base}/${ids}`, { auth: who.auth, body });

t.test("replace and add apply to each entry; unknown and foreign ids fail alone", async (t) => {
  const a = await entry({ description: "a" });
  const b = await entry({ description: "b", tags: ["one"] });
  const foreign = await entry({}, stranger);
  const res = await patch(`${a.id},${b.id},999999,${foreign.id}`, [
    { op: "replace", path: "/description", value: "patched" },
    { op: "add", path: "/tags", value: ["two"] },
    { op: "replace", path: "/billable", value: true },
  ]);
  t.equal(res.status, 200, res.text);
  t.same(res.body, {
    success: [a.id, b.id],
    failure: [
      { id: 999999, message: timeEntryNotFound().rawMessage },
      { id: foreign.id, message: timeEntryNotFound().rawMessage },
    ],
  });
  t.match(await get(a.id), { description: "patched", billable: true, tags: ["two"] });
  t.same((await get(b.id)).tags.slice().sort(), ["one", "two"]);
});

t.test("remove clears a field; operations apply in order; times are checked per entry", async (t) => {
  const p = await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: user.auth, body: { name: "P" } });
  const a = await entry({ description: "x", project_id: p.body.id, tags: ["keep", "drop"] });
  const res = await patch(String(a.id), [
    { op: "remove", path: "/description" },
    { op: "remove", path: "/project_id" },
    { op: "remove", path: "/tags" },
    { op: "add", path: "/tags", value: ["keep"] },
  ]);
  t.same(res.body, { success: [a.id], failure: [] });
  t.match(await get(a.id), { description: null, project_id: null, tags: ["keep"] }, "remove clears the tags, add puts one back");
  const moved = await patch(String(a.id), [{ op: "replace", path: "/start", value: "2025-03-19T07:00:00Z" }]);
  t.same(moved.body.success, [a.id]);
  t.match(await get(a.id), { start: "2025-03-19T07:00:00+00:00", stop: "2025-03-19T08:01:00+00:00", duration: 3660 }, "a stopped entry keeps its stop");
  const bad = await patch(String(a.id), [{ op: "replace", path: "/stop", value: "2025-03-19T06:00:00Z" }]);
  t.same(bad.body, { success: [], failure: [{ id: a.id, message: stopBeforeStart().rawMessage }] });
});

t.test("a malformed request is refused as a whole with the real API's messages", async (t) => {
  const a = await entry();
  const tooMany = Array.from({ length: 101 }, (_, i) => i + 1).join(",");
  for (const [ids, body, message] of [
    [tooMany, [{ op: "replace", path: "/description", value: "x" }], "PATCH request is limited to 100 entries at once"],
    ["", [{ op: "replace", path: "/description", value: "x" }], null],
    ["1,abc", [{ op: "replace", path: "/description", value: "x" }], "Invalid time entry IDs"],
    [String(a.id), [], "No patchable fields defined"],
    [String(a.id), { op: "replace" }, "Invalid JSON input"],
    [String(a.id), [{ op: "move", path: "/description", value: "x" }], "Invalid op: move"],
    [String(a.id), [{ op: "replace", path: "description", value: "x" }], "Invalid path format: description"],
    [String(a.id), [{ op: "replace", path: "/color", value: "x" }], "Path not found: /color"],
    [String(a.id), [{ op: "remove", path: "/start" }], "Operation not supported (remove /start)"],
    [String(a.id), [{ op: "replace", path: "/billable", value: "yes" }], "/billable expects a boolean"],
    [String(a.id), [{ op: "replace", path: "/start", value: "soon" }], "/start expects an RFC 3339 time"],
    [String(a.id), [{ op: "add", path: "/tag_ids", value: [1.5] }], "/tag_ids expects an array of IDs"],
  ] as const) {
    const res = await patch(ids, body);
    t.ok(res.status >= 400 && res.status < 500, `${ids} ${JSON.stringify(body)}: ${res.status}`);
    if (message) t.equal(res.body, message);
  }
  t.match(await get(a.id), { description: null });
  // 100 ids of 16 digits: the longest list the limit allows passes the gateway.
  const longest = Array.from({ length: 100 }, (_, i) => 1_000_000_000_000_000 + i).join(",");
  const ok = await patch(longest, [{ op: "replace", path: "/description", value: "x" }]);
  t.equal(ok.status, 200, ok.text);
  t.equal(ok.body.failure.length, 100, "unknown ids fail one by one");
  t.same(ok.body.failure[0], { id: 1_000_000_000_000_000, message: timeEntryNotFound().rawMessage });
});

t.test("another workspace's caller is refused", async (t) => {
  const a = await entry();
  const res = await patch(String(a.id), [{ op: "replace", path: "/description", value: "x" }], stranger);
  t.equal(res.status, 403);
});

t.test("projects: actual seconds count stopped entries; deleting a project unassigns or deletes its entries", async (t) => {
  const p = await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: user.auth, body: { name: "Tracked" } });
  t.equal(p.status, 200, p.text);
  const a = await entry({ project_id: p.body.id, duration: 3600 });
  await entry({ project_id: p.body.id, duration: 1800, start: "2025-03-18T08:00:00Z" });
  await entry({ project_id: p.body.id, start: "2025-03-20T11:00:00Z", duration: -1 });
  const got = await sys.api("GET", `/api/v9/workspaces/${ws}/projects/${p.body.id}`, { auth: user.auth });
  t.match(got.body, { actual_seconds: 5400, actual_hours: 1 }, "the running entry counts once it stops");
  const kept = await sys.api("DELETE", `/api/v9/workspaces/${ws}/projects/${p.body.id}?teDeletionMode=unassign`, { auth: user.auth });
  t.equal(kept.status, 200, kept.text);
  t.match(await get(a.id), { id: a.id, project_id: null, server_deleted_at: null });

  const q = await sys.api("POST", `/api/v9/workspaces/${ws}/projects`, { auth: user.auth, body: { name: "Doomed" } });
  const b = await entry({ project_id: q.body.id });
  const running = await entry({ project_id: q.body.id, start: "2025-03-20T11:30:00Z", duration: -1 });
  const gone = await sys.api("DELETE", `/api/v9/workspaces/${ws}/projects/${q.body.id}?teDeletionMode=delete`, { auth: user.auth });
  t.equal(gone.status, 200, gone.text);
  t.equal((await sys.api("GET", `/api/v9/me/time_entries/${b.id}`, { auth: user.auth })).status, 404);
  t.equal((await sys.api("GET", "/api/v9/me/time_entries/current", { auth: user.auth })).text, "null", "a deleted running entry no longer runs");
  const next = await entry({ start: "2025-03-20T11:45:00Z", duration: -1 });
  t.equal((await sys.api("GET", "/api/v9/me/time_entries/current", { auth: user.auth })).body.id, next.id);
  t.not(next.id, running.id);
});
