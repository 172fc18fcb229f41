import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { jsonIds } from "../../../lib/ids.js";
import { ProjectUserSchema } from "../../../gen/tracking/v1/project_users_pb.js";
import { eventObject, expectRefusals, trackingWorld } from "./tracking-support.js";
import { invalidProject, invalidUser, invalidValue, premiumNeeded, projectUserChangeMissing, projectUserNotFound, projectUserTaken } from "../errors.js";

const clock = new ManualClock(new Date("2025-03-01T10:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const alice = await world.join("alice");
const bob = await world.join("bob");
const stranger = await sys.signup("stranger");
const base = `/api/v9/workspaces/${owner.workspaceId}/project_users`;

async function addProjectUser(body: Record<string, unknown>, user: TrackUser = owner) {
  const res = await sys.api("POST", base, { auth: user.auth, body });
  if (res.status !== 200) throw new Error(`create project user: ${res.status} ${res.text}`);
  return res.body;
}

async function list(query = "", user: TrackUser = owner) {
  const res = await sys.api("GET", `${base}${query}`, { auth: user.auth });
  if (res.status !== 200) throw new Error(`list project users: ${res.status} ${res.text}`);
  return res.body;
}

const FIELDS = ["at", "gid", "group_id", "id", "labour_cost", "manager", "project_id", "rate", "rate_last_updated", "user_id", "workspace_id"];

t.test("create answers the project user with every field of the specification", async (t) => {
  const project = await world.project("Apollo");
  clock.set(new Date("2025-03-01T11:00:00Z"));
  const pu = await addProjectUser({ project_id: project.id, user_id: alice.id, workspace_id: owner.workspaceId });
  t.same(Object.keys(pu).sort(), FIELDS);
  t.same(pu, {
    id: pu.id, workspace_id: owner.workspaceId, project_id: project.id, user_id: alice.id, manager: false, rate: null, rate_last_updated: null,
    labour_cost: null, group_id: null, gid: null, at: "2025-03-01T11:00:00.000000Z",
  });
  const listed = await list(`?project_ids=${project.id}`);
  t.same(listed, [pu], "the list answers the same shape");
});

t.test("create refuses what the specification's errors name and changes nothing", async (t) => {
  const project = await world.project("Gemini");
  const gone = await world.project("Mercury", { server_deleted_at: clock.now() });
  await addProjectUser({ project_id: project.id, user_id: alice.id });
  await expectRefusals(t, sys, { method: "POST", path: base, auth: owner.auth }, [
    [{ project_id: 999999, user_id: alice.id }, invalidProject().rawMessage],
    [{ project_id: gone.id, user_id: alice.id }, invalidProject().rawMessage],
    [{ user_id: alice.id }, invalidProject().rawMessage],
    [{ project_id: project.id, user_id: stranger.id }, invalidUser().rawMessage],
    [{ project_id: project.id, user_id: 999999 }, invalidUser().rawMessage],
    [{ project_id: project.id }, invalidUser().rawMessage],
    [{ project_id: project.id, user_id: alice.id }, projectUserTaken().rawMessage],
    [{ project_id: project.id, user_id: "x" }, "Invalid value for user_id: expected integer, got string"],
    [{ project_id: project.id, user_id: bob.id, manager: "yes" }, "Invalid value for manager: expected boolean, got string"],
    [{ project_id: project.id, user_id: bob.id, labour_cost: 1.5 }, "Invalid value for labour_cost: expected integer, got number"],
  ]);
  t.same((await list(`?project_ids=${project.id}`)).map((p: { user_id: number }) => p.user_id), [alice.id]);
});

t.test("rates and labour costs need a premium workspace; rate_change_mode takes the three modes", async (t) => {
  const project = await world.project("Artemis");
  for (const [body, message] of [
    [{ rate: 50 }, premiumNeeded("rate").rawMessage],
    [{ labour_cost: 20 }, premiumNeeded("labour_cost").rawMessage],
    [{ rate_change_mode: "start-today" }, premiumNeeded("rate_change_mode").rawMessage],
  ] as const) {
    const res = await sys.api("POST", base, { auth: owner.auth, body: { project_id: project.id, user_id: bob.id, ...body } });
    t.equal(res.status, 402, JSON.stringify(body, jsonIds));
    t.equal(res.body, message);
  }
  t.same(await list(`?project_ids=${project.id}`), [], "a refused create changes nothing");
  await world.setPlan(true);
  t.teardown(() => world.setPlan(false));
  const bad = await sys.api("POST", base, { auth: owner.auth, body: { project_id: project.id, user_id: bob.id, rate: 50, rate_change_mode: "yesterday" } });
  t.equal(bad.status, 400);
  t.equal(bad.body, "rate_change_mode must be one of start-today, override-current, override-all");
  clock.set(new Date("2025-03-02T09:00:00Z"));
  const pu = await addProjectUser({ project_id: project.id, user_id: bob.id, rate: 50.5, labour_cost: 20, rate_change_mode: "override-all", manager: true });
  t.match(pu, { rate: 50.5, labour_cost: 20, manager: true, rate_last_updated: "2025-03-02T09:00:00+00:00" });
  clock.set(new Date("2025-03-02T10:00:00Z"));
  for (const mode of ["start-today", "override-current", "override-all"]) {
    const res = await sys.api("PUT", `${base}/${pu.id}`, { auth: owner.auth, body: { rate: 60, rate_change_mode: mode } });
    t.equal(res.status, 200, `${mode}: ${res.text}`);
  }
  const after = (await list(`?project_ids=${project.id}`))[0];
  t.match(after, { rate: 60, labour_cost: 20, rate_last_updated: "2025-03-02T10:00:00+00:00" });
  const other = await world.project("Artemis II");
  const reused = await addProjectUser({ project_id: other.id, user_id: bob.id, use_last_labour_cost: true });
  t.equal(reused.labour_cost, 20, "use_last_labour_cost takes the user's latest labour cost");
  const fresh = await addProjectUser({ project_id: other.id, user_id: alice.id, use_last_labour_cost: true });
  t.equal(fresh.labour_cost, null, "none to take");
});

t.test("update changes manager and rates; Missing data and the other rows", async (t) => {
  const project = await world.project("Orion");
  const pu = await addProjectUser({ project_id: project.id, user_id: alice.id });
  clock.advance(60_000);
  const res = await sys.api("PUT", `${base}/${pu.id}`, { auth: owner.auth, body: { manager: true } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { id: pu.id, manager: true, rate: null, labour_cost: null });
  t.not(res.body.at, pu.at);
  for (const body of [{}, { rate_change_mode: "start-today" }]) {
    const missing = await sys.api("PUT", `${base}/${pu.id}`, { auth: owner.auth, body });
    t.equal(missing.status, 400, JSON.stringify(body, jsonIds));
    t.equal(missing.body, projectUserChangeMissing().rawMessage);
  }
  const empty = await sys.api("PUT", `${base}/${pu.id}`, { auth: owner.auth });
  t.equal(empty.status, 400);
  t.equal(empty.body, projectUserChangeMissing().rawMessage);
  t.equal((await sys.api("PUT", `${base}/${pu.id}`, { auth: owner.auth, body: { rate: 10 } })).status, 402);
  for (const id of ["999999", "0"]) {
    const gone = await sys.api("PUT", `${base}/${id}`, { auth: owner.auth, body: { manager: true } });
    t.equal(gone.status, 400, id);
    t.equal(gone.body, projectUserNotFound().rawMessage);
  }
  await world.tracking("projects").where({ id: project.id }).update({ server_deleted_at: clock.now() });
  const deleted = await sys.api("PUT", `${base}/${pu.id}`, { auth: owner.auth, body: { manager: false } });
  t.equal(deleted.status, 400);
  t.equal(deleted.body, invalidProject().rawMessage);
});

t.test("delete removes the project user; the errors of the specification", async (t) => {
  const project = await world.project("Vostok");
  const pu = await addProjectUser({ project_id: project.id, user_id: alice.id });
  const res = await sys.api("DELETE", `${base}/${pu.id}`, { auth: owner.auth });
  t.equal(res.status, 200);
  t.equal(res.text, "");
  t.same(await list(`?project_ids=${project.id}`), []);
  const again = await sys.api("DELETE", `${base}/${pu.id}`, { auth: owner.auth });
  t.equal(again.status, 400);
  t.equal(again.body, projectUserNotFound().rawMessage);
  const other = await addProjectUser({ project_id: project.id, user_id: bob.id });
  await world.tracking("projects").where({ id: project.id }).update({ server_deleted_at: clock.now() });
  const deleted = await sys.api("DELETE", `${base}/${other.id}`, { auth: owner.auth });
  t.equal(deleted.status, 400);
  t.equal(deleted.body, invalidProject().rawMessage);
  t.equal((await sys.api("DELETE", `${base}/abc`, { auth: owner.auth })).status, 400);
});

t.test("the list filters by project_ids (at most 200) and user_id", async (t) => {
  const a = await world.project("Filter A");
  const b = await world.project("Filter B");
  const c = await world.project("Filter C");
  const a1 = await addProjectUser({ project_id: a.id, user_id: alice.id });
  const b1 = await addProjectUser({ project_id: b.id, user_id: bob.id });
  const b2 = await addProjectUser({ project_id: b.id, user_id: alice.id });
  const c1 = await addProjectUser({ project_id: c.id, user_id: bob.id });
  const ids = (rows: { id: number }[]) => rows.map((r) => r.id);
  t.same(ids(await list(`?project_ids=${a.id},${b.id}`)), [a1.id, b1.id, b2.id]);
  t.same(ids(await list(`?project_ids=${c.id}&user_id=${alice.id}`)), [], "user_id narrows to the user's projects");
  t.same(ids(await list(`?project_ids=${a.id},${b.id},${c.id}&user_id=${bob.id}`)), [b1.id, b2.id, c1.id], "every member of the user's projects");
  t.ok(ids(await list()).length >= 4, "without filters: the workspace's project users");
  const tooMany = Array.from({ length: 201 }, (_, i) => i + 1).join(",");
  const res = await sys.api("GET", `${base}?project_ids=${tooMany}`, { auth: owner.auth });
  t.equal(res.status, 400);
  t.equal(res.body, "project_ids cannot exceed 200 elements");
  t.equal((await sys.api("GET", `${base}?project_ids=${Array.from({ length: 200 }, (_, i) => i + 1).join(",")}`, { auth: owner.auth })).status, 200, "200 are allowed");
  for (const [query, message] of [
    ["?project_ids=1,x", invalidValue("project_ids").rawMessage],
    ["?project_ids=-3", invalidValue("project_ids").rawMessage],
    ["?user_id=abc", invalidUser().rawMessage],
    ["?with_group_members=maybe", "Invalid value for with_group_members: expected true or false"],
  ]) {
    const bad = await sys.api("GET", `${base}${query}`, { auth: owner.auth });
    t.equal(bad.status, 400, query);
    t.equal(bad.body, message);
  }
});

t.test("plain members list, but only admins and the project's managers change project users", async (t) => {
  const project = await world.project("Soyuz");
  const managed = await addProjectUser({ project_id: project.id, user_id: alice.id, manager: true });
  const plain = await addProjectUser({ project_id: project.id, user_id: bob.id });
  const forbidden = "User does not have access to this resource.";
  for (const [method, path, body] of [
    ["POST", base, { project_id: project.id, user_id: owner.id }],
    ["PUT", `${base}/${managed.id}`, { manager: false }],
    ["DELETE", `${base}/${managed.id}`, undefined],
  ] as const) {
    const res = await sys.api(method, path, { auth: bob.auth, body });
    t.equal(res.status, 403, `${method} ${path}`);
    t.equal(res.body, forbidden);
  }
  const patch = await sys.api("PATCH", `${base}/${managed.id}`, { auth: bob.auth, body: [{ op: "replace", path: "/manager", value: false }] });
  t.same(patch.body, { failure: [{ id: managed.id, message: forbidden }], success: [] });
  t.equal((await list(`?project_ids=${project.id}`, bob)).length, 2, "members see the project's users");
  const byManager = await sys.api("PUT", `${base}/${plain.id}`, { auth: alice.auth, body: { manager: true } });
  t.equal(byManager.status, 200, "a manager of the project may");
  const added = await sys.api("POST", base, { auth: alice.auth, body: { project_id: project.id, user_id: owner.id } });
  t.equal(added.status, 200, added.text);
});

t.test("private projects' users are listed to their members and admins only; rates may be kept to admins", async (t) => {
  await world.setPlan(true);
  t.teardown(() => world.setPlan(false));
  const secret = await world.project("Secret", { is_private: true });
  const pu = await addProjectUser({ project_id: secret.id, user_id: alice.id, rate: 99, labour_cost: 40 });
  t.same(await list(`?project_ids=${secret.id}`, bob), [], "bob is no member of the private project");
  const seen = await list(`?project_ids=${secret.id}`, alice);
  t.same(seen.map((p: { id: number }) => p.id), [pu.id]);
  t.match(seen[0], { rate: 99, labour_cost: null }, "labour costs are for admins");
  await world.setWorkspace({ only_admins_see_billable_rates: true });
  t.teardown(() => world.setWorkspace({ only_admins_see_billable_rates: false }));
  t.match((await list(`?project_ids=${secret.id}`, alice))[0], { rate: null, rate_last_updated: null, labour_cost: null });
  t.match((await list(`?project_ids=${secret.id}`))[0], { rate: 99, labour_cost: 40 }, "admins see them");
});

t.test("with_group_members adds the members of the project's groups", async (t) => {
  const project = await world.project("Group Project");
  const direct = await addProjectUser({ project_id: project.id, user_id: alice.id });
  const group = await sys.api("POST", `/api/v9/organizations/${world.organizationId}/groups`, {
    auth: owner.auth,
    body: { name: "Crew", users: [alice.id, bob.id], workspaces: [owner.workspaceId] },
  });
  t.equal(group.status, 200, group.text);
  await world.tracking("project_groups").insert({ workspace_id: owner.workspaceId, project_id: project.id, group_id: group.body.group_id, at: clock.now() });
  t.same((await list(`?project_ids=${project.id}`)).map((p: { id: number }) => p.id), [direct.id], "without the flag: direct members only");
  const all = await list(`?project_ids=${project.id}&with_group_members=true`);
  t.equal(all.length, 2);
  t.same(all[0], direct);
  t.same(Object.keys(all[1]).sort(), FIELDS);
  t.match(all[1], { id: null, project_id: project.id, user_id: bob.id, group_id: group.body.group_id, gid: group.body.group_id, manager: false, rate: null });
});

t.test("PATCH changes each listed project user on its own", async (t) => {
  const project = await world.project("Patchy");
  const a = await addProjectUser({ project_id: project.id, user_id: alice.id });
  const b = await addProjectUser({ project_id: project.id, user_id: bob.id });
  const res = await sys.api("PATCH", `${base}/${a.id},${b.id},999999`, { auth: owner.auth, body: [{ op: "replace", path: "/manager", value: true }] });
  t.equal(res.status, 200, res.text);
  t.same(res.body, { failure: [{ id: 999999, message: projectUserNotFound().rawMessage }], success: [a.id, b.id] });
  t.ok((await list(`?project_ids=${project.id}`)).every((p: { manager: boolean }) => p.manager));
  await world.setPlan(true);
  t.teardown(() => world.setPlan(false));
  const rates = await sys.api("PATCH", `${base}/${a.id}`, { auth: owner.auth, body: [{ op: "replace", path: "/rate", value: 12.5 }, { op: "replace", path: "/labour_cost", value: 7 }] });
  t.same(rates.body, { failure: [], success: [a.id] });
  t.match((await list(`?project_ids=${project.id}`))[0], { id: a.id, rate: 12.5, labour_cost: 7 });
  const cleared = await sys.api("PATCH", `${base}/${a.id}`, { auth: owner.auth, body: [{ op: "remove", path: "/rate" }, { op: "replace", path: "/labour_cost", value: null }] });
  t.same(cleared.body, { failure: [], success: [a.id] });
  t.match((await list(`?project_ids=${project.id}`))[0], { id: a.id, rate: null, labour_cost: null });
});

t.test("PATCH refuses malformed requests as a whole, with the specification's messages", async (t) => {
  const project = await world.project("Strict");
  const pu = await addProjectUser({ project_id: project.id, user_id: alice.id });
  const tooMany = Array.from({ length: 101 }, (_, i) => i + 1).join(",");
  for (const [ids, body, message] of [
    ["abc", [{ op: "replace", path: "/manager", value: true }], "Invalid value as user IDs"],
    [`${pu.id},-1`, [{ op: "replace", path: "/manager", value: true }], "Invalid value as user IDs"],
    [" ", [{ op: "replace", path: "/manager", value: true }], "PATCH expects at least one ID"],
    [`${pu.id}`, [], "No patchable fields defined"],
    [`${pu.id}`, [{ op: "move", path: "/manager", value: true }], "Invalid op: move"],
    [`${pu.id}`, [{ op: "replace", path: "manager", value: true }], "Invalid path format: manager"],
    [`${pu.id}`, [{ op: "replace", path: "/user_id", value: 3 }], "Path not found: /user_id"],
    [`${pu.id}`, [{ op: "add", path: "/manager", value: true }], "Operation not supported (add /manager)"],
    [`${pu.id}`, [{ op: "add", path: "/rate", value: 3 }], "Operation not supported (add /rate)"],
    [`${pu.id}`, [{ op: "add", path: "/labour_cost", value: 3 }], "Operation not supported (add /labour_cost)"],
    [`${pu.id}`, [{ op: "replace", path: "/manager", value: "yes" }], "/manager expects a boolean"],
    [`${pu.id}`, [{ op: "replace", path: "/labour_cost", value: 1.5 }], "/labour_cost expects an integer or null"],
    [`${pu.id}`, [{ op: "replace", path: "/rate", value: "ten" }], "/rate expects a number or null"],
  ] as const) {
    const res = await sys.api("PATCH", `${base}/${encodeURIComponent(ids)}`, { auth: owner.auth, body });
    t.equal(res.status, 400, `${ids} ${JSON.stringify(body, jsonIds)}`);
    t.equal(res.body, message);
  }
  const long = await sys.api("PATCH", `${base}/${tooMany}`, { auth: owner.auth, body: [{ op: "replace", path: "/manager", value: true }] });
  t.equal(long.status, 400);
  t.equal(long.body, "PATCH request is limited to 100 entries at once");
  const premium = await sys.api("PATCH", `${base}/${pu.id}`, { auth: owner.auth, body: [{ op: "replace", path: "/rate", value: 5 }] });
  t.equal(premium.status, 402);
  t.equal(premium.body, premiumNeeded("rate").rawMessage);
  const notArray = await sys.api("PATCH", `${base}/${pu.id}`, { auth: owner.auth, body: { op: "replace" } });
  t.equal(notArray.status, 400);
  t.match((await list(`?project_ids=${project.id}`))[0], { manager: false, rate: null }, "nothing changed");
});

t.test("a user outside the workspace gets 403 and changes nothing", async (t) => {
  const project = await world.project("Isolated");
  const pu = await addProjectUser({ project_id: project.id, user_id: alice.id });
  for (const [method, path, body] of [
    ["GET", base, undefined],
    ["POST", base, { project_id: project.id, user_id: stranger.id }],
    ["PUT", `${base}/${pu.id}`, { manager: true }],
    ["DELETE", `${base}/${pu.id}`, undefined],
    ["PATCH", `${base}/${pu.id}`, [{ op: "replace", path: "/manager", value: true }]],
  ] as const) {
    const res = await sys.api(method, path, { auth: stranger.auth, body });
    t.equal(res.status, 403, `${method} ${path}`);
  }
  const theirs = `/api/v9/workspaces/${stranger.workspaceId}/project_users`;
  t.equal((await sys.api("PUT", `${theirs}/${pu.id}`, { auth: stranger.auth, body: { manager: true } })).body, projectUserNotFound().rawMessage);
  t.equal((await sys.api("POST", theirs, { auth: stranger.auth, body: { project_id: project.id, user_id: stranger.id } })).body, invalidProject().rawMessage);
  const patched = await sys.api("PATCH", `${theirs}/${pu.id}`, { auth: stranger.auth, body: [{ op: "replace", path: "/manager", value: true }] });
  t.same(patched.body, { failure: [{ id: pu.id, message: projectUserNotFound().rawMessage }], success: [] });
  t.same(await sys.api("GET", theirs, { auth: stranger.auth }).then((r) => r.body), []);
  t.match((await list(`?project_ids=${project.id}`))[0], { id: pu.id, manager: false });
});

t.test("create, update, patch and delete are emitted as project_user events", async (t) => {
  const project = await world.project("Evented");
  const pu = await addProjectUser({ project_id: project.id, user_id: alice.id });
  await sys.api("PUT", `${base}/${pu.id}`, { auth: owner.auth, body: { manager: true } });
  await sys.api("PATCH", `${base}/${pu.id}`, { auth: owner.auth, body: [{ op: "replace", path: "/manager", value: false }] });
  await sys.api("DELETE", `${base}/${pu.id}`, { auth: owner.auth });
  const events = (await world.events("project_user")).filter((e) => e.objectId === String(pu.id));
  t.same(events.map((e) => e.action), ["created", "updated", "updated", "deleted"]);
  t.same(events.map((e) => eventObject(e, ProjectUserSchema).manager), [false, true, false, false]);
  t.equal(eventObject(events[0], ProjectUserSchema).userId, BigInt(alice.id));
});
