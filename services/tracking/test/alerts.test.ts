import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { connectDatabase, type Knex } from "../../../lib/db.js";
import { accountsDb, addMember, ownOrganization } from "../../accounts/test/organization-support.js";
import { alertFieldBlank, alertFieldOutOfRange, alertIdInvalid, alertNotFound, alertProjectUnsupported, invalidProject } from "../errors.js";

/** Alerts: stored, listed and deleted by workspace admins, with every validation of the reference. */

const clock = new ManualClock(new Date("2026-03-04T10:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock, services: ["accounts", "tracking"] });
const accounts = await accountsDb(t, sys);
const tracking: Knex = await connectDatabase(sys.config, "tracking");
t.teardown(() => tracking.destroy());

const owner: TrackUser = await sys.signup("owner");
const wid = owner.workspaceId;
const organizationId = await ownOrganization(sys, owner);
const member = await sys.signup("member");
const wsAdmin = await sys.signup("wsadmin");
for (const u of [member, wsAdmin]) await addMember(accounts, organizationId, u, { workspaces: [wid] });
await accounts("workspace_users").where({ workspace_id: wid, user_id: wsAdmin.id }).update({ admin: true, role: "admin" });
const stranger = await sys.signup("stranger");

/** A project row of the workspace, as the projects resource stores it. */
async function projectIn(workspaceId: number, deleted = false): Promise<number> {
  const now = clock.now();
  const [id] = await tracking("projects").insert({
    workspace_id: workspaceId,
    name: `P${Math.random()}`,
    sort_name: "p",
    active: true,
    is_private: false,
    color: "#06aaf5",
    template: false,
    recurring: false,
    start_date: "2026-03-04",
    creator_id: owner.id,
    created_at: now,
    at: now,
    server_deleted_at: deleted ? now : null,
  });
  return Number(id);
}

const projectId = await projectIn(wid);
const deletedProjectId = await projectIn(wid, true);
const foreignProjectId = await projectIn(stranger.workspaceId);

const base = `/api/v9/workspaces/${wid}/alerts`;
const create = (body: unknown, user: TrackUser = owner) => sys.api("POST", base, { auth: user.auth, body });
const count = async () => Number((await tracking("alerts").count({ n: "*" }))[0].n);
const projectAlert = { source_kind: "project", project_id: projectId, threshold_type: "percentage", thresholds: [100, 80, 80], receiver_roles: ["admin", "project_manager"] };

t.test("create answers the alert field for field; the list holds it; delete removes it", async (t) => {
  const res = await create({ ...projectAlert, receiver_users: [member.id] });
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), ["errors", "id", "object_type", "project_id", "receiver_groups", "receiver_roles", "receiver_users", "receivers", "source_kind", "threshold", "threshold_type", "thresholds", "wid"]);
  t.same(res.body, {
    id: res.body.id,
    wid,
    project_id: projectId,
    object_type: 1,
    source_kind: "project",
    threshold_type: "percentage",
    threshold: 80,
    thresholds: "{80,100}",
    receivers: 3,
    receiver_roles: "{admin,project_manager}",
    receiver_users: `{${member.id}}`,
    receiver_groups: "{}",
    errors: [],
  });
  t.type(res.body.id, "number");

  const list = await sys.api("GET", base, { auth: owner.auth });
  t.equal(list.status, 200);
  t.same(list.body, [res.body]);

  const del = await sys.api("DELETE", `${base}/${res.body.id}`, { auth: wsAdmin.auth });
  t.equal(del.status, 200, del.text);
  t.equal(del.text, "");
  t.same((await sys.api("GET", base, { auth: owner.auth })).body, []);
  const again = await sys.api("DELETE", `${base}/${res.body.id}`, { auth: owner.auth });
  t.equal(again.status, 403);
  t.equal(again.body, alertNotFound().rawMessage);
});

t.test("a workspace alert has no project (null) and hours thresholds; receivers by users only", async (t) => {
  const res = await create({ source_kind: "workspace", threshold_type: "hours", thresholds: [40], receiver_users: [wsAdmin.id, wsAdmin.id] });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { project_id: null, object_type: 2, source_kind: "workspace", threshold_type: "hours", threshold: 40, thresholds: "{40}", receivers: 2, receiver_roles: "{}", receiver_users: `{${wsAdmin.id}}` });
  const withZeroProject = await create({ source_kind: "workspace", project_id: 0, threshold_type: "hours", thresholds: [1], receiver_roles: ["member"], object_type: 2, receivers: 1 });
  t.equal(withZeroProject.status, 200, withZeroProject.text);
  t.match(withZeroProject.body, { project_id: null, receivers: 1 });
  await sys.api("DELETE", `${base}/${res.body.id}`, { auth: owner.auth });
  await sys.api("DELETE", `${base}/${withZeroProject.body.id}`, { auth: owner.auth });
});

t.test("every validation row of the reference, in its words, storing nothing", async (t) => {
  const before = await count();
  for (const [body, message] of [
    [{ ...projectAlert, source_kind: undefined }, alertFieldBlank("source kind").rawMessage],
    [{ ...projectAlert, source_kind: "  " }, alertFieldBlank("source kind").rawMessage],
    [{ ...projectAlert, source_kind: "client" }, alertFieldOutOfRange("source kind").rawMessage],
    [{ ...projectAlert, project_id: undefined }, alertFieldBlank("project").rawMessage],
    [{ ...projectAlert, project_id: 0 }, alertFieldBlank("project").rawMessage],
    [{ ...projectAlert, source_kind: "workspace", threshold_type: "hours" }, alertProjectUnsupported().rawMessage],
    [{ ...projectAlert, threshold_type: undefined }, alertFieldBlank("threshold type").rawMessage],
    [{ ...projectAlert, threshold_type: "fraction" }, alertFieldOutOfRange("threshold type").rawMessage],
    [{ ...projectAlert, source_kind: "workspace", project_id: undefined, threshold_type: "percentage" }, alertFieldOutOfRange("threshold type").rawMessage],
    [{ ...projectAlert, thresholds: [] }, alertFieldBlank("thresholds").rawMessage],
    [{ ...projectAlert, thresholds: undefined }, alertFieldBlank("thresholds").rawMessage],
    [{ ...projectAlert, thresholds: [80, 0] }, alertFieldOutOfRange("threshold").rawMessage],
    [{ ...projectAlert, thresholds: [1001] }, alertFieldOutOfRange("threshold").rawMessage],
    [{ ...projectAlert, threshold_type: "hours", thresholds: [100_001] }, alertFieldOutOfRange("threshold").rawMessage],
    [{ ...projectAlert, thresholds: [-5] }, alertFieldOutOfRange("threshold").rawMessage],
    [{ ...projectAlert, receiver_roles: [] }, alertFieldBlank("receivers").rawMessage],
    [{ ...projectAlert, receiver_roles: undefined }, alertFieldBlank("receivers").rawMessage],
    [{ ...projectAlert, receiver_roles: ["admin", "owner"] }, alertFieldOutOfRange("receiver role").rawMessage],
    [{ ...projectAlert, object_type: 2 }, alertFieldOutOfRange("alert type").rawMessage],
    [{ ...projectAlert, object_type: 99 }, alertFieldOutOfRange("alert type").rawMessage],
    [{ ...projectAlert, receivers: 2 }, alertFieldOutOfRange("receiver type").rawMessage],
    [{ ...projectAlert, receivers: -1 }, alertFieldOutOfRange("receiver type").rawMessage],
    [{ ...projectAlert, project_id: 999_999_999 }, invalidProject().rawMessage],
    [{ ...projectAlert, project_id: deletedProjectId }, invalidProject().rawMessage],
    [{ ...projectAlert, project_id: foreignProjectId }, invalidProject().rawMessage],
    [{ ...projectAlert, receiver_users: [stranger.id] }, `Invalid receiver_users: ${stranger.id} not in the workspace`],
    [{ ...projectAlert, source_kind: 5 }, "Invalid value for source_kind: expected string, got number"],
    [{ ...projectAlert, thresholds: "80" }, "Invalid value for thresholds: expected array, got string"],
    [{ ...projectAlert, thresholds: [1.5] }, "Invalid value for thresholds[0]: expected integer, got number"],
    [{ ...projectAlert, receiver_users: [{}] }, "Invalid value for receiver_users[0]: expected integer, got object"],
  ] as const) {
    const res = await create(body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message, JSON.stringify(body));
  }
  const tooMany = await create({ ...projectAlert, thresholds: Array.from({ length: 21 }, (_, i) => i + 1) });
  t.equal(tooMany.status, 400);
  const longRole = await create({ ...projectAlert, receiver_roles: ["x".repeat(101)] });
  t.equal(longRole.status, 400);
  const malformed = await sys.api("POST", base, { auth: owner.auth, rawBody: "{nope", headers: { "content-type": "application/json" } });
  t.equal(malformed.status, 400);
  t.equal(await count(), before);
});

t.test("delete: a malformed id is 400, an unknown one 403", async (t) => {
  for (const id of ["0", "-3", "9007199254740993"]) {
    const res = await sys.api("DELETE", `${base}/${id}`, { auth: owner.auth });
    t.equal(res.status, 400, id);
    t.equal(res.body, alertIdInvalid().rawMessage, id);
  }
  const word = await sys.api("DELETE", `${base}/abc`, { auth: owner.auth });
  t.equal(word.status, 400);
  const unknown = await sys.api("DELETE", `${base}/123456789`, { auth: owner.auth });
  t.equal(unknown.status, 403);
  t.equal(unknown.body, alertNotFound().rawMessage);
});

t.test("workspace admins manage alerts; a plain member may not even list them", async (t) => {
  const byAdmin = await create(projectAlert, wsAdmin);
  t.equal(byAdmin.status, 200, byAdmin.text);
  const before = await count();
  for (const [method, url, body] of [
    ["GET", base, undefined],
    ["POST", base, projectAlert],
    ["DELETE", `${base}/${byAdmin.body.id}`, undefined],
  ] as const) {
    const res = await sys.api(method, url, { auth: member.auth, body });
    t.equal(res.status, 403, `${method} by a member`);
    t.equal(res.body, "User does not have access to this resource.");
  }
  t.equal(await count(), before);
  await sys.api("DELETE", `${base}/${byAdmin.body.id}`, { auth: owner.auth });
});

t.test("another workspace's alerts are neither listed nor deleted", async (t) => {
  const mine = await create(projectAlert);
  t.equal(mine.status, 200, mine.text);
  const theirs = await sys.api("POST", `/api/v9/workspaces/${stranger.workspaceId}/alerts`, {
    auth: stranger.auth,
    body: { ...projectAlert, project_id: foreignProjectId },
  });
  t.equal(theirs.status, 200, theirs.text);
  t.same((await sys.api("GET", `/api/v9/workspaces/${stranger.workspaceId}/alerts`, { auth: stranger.auth })).body, [theirs.body]);

  const viaOwnWorkspace = await sys.api("DELETE", `/api/v9/workspaces/${stranger.workspaceId}/alerts/${mine.body.id}`, { auth: stranger.auth });
  t.equal(viaOwnWorkspace.status, 403);
  t.equal(viaOwnWorkspace.body, alertNotFound().rawMessage);
  for (const [method, url] of [
    ["GET", base],
    ["POST", base],
    ["DELETE", `${base}/${mine.body.id}`],
  ] as const) {
    const res = await sys.api(method, url, { auth: stranger.auth, body: method === "POST" ? projectAlert : undefined });
    t.equal(res.status, 403, `${method} in another workspace`);
  }
  t.same((await sys.api("GET", base, { auth: owner.auth })).body, [mine.body]);
});

t.test("PUT replaces an alert's settings with the body's and answers the alert", async (t) => {
  const created = await create(projectAlert);
  t.equal(created.status, 200, created.text);
  const res = await sys.api("PUT", `${base}/${created.body.id}`, {
    auth: wsAdmin.auth,
    body: { source_kind: "workspace", threshold_type: "hours", thresholds: [40], receiver_users: [member.id] },
  });
  t.equal(res.status, 200, res.text);
  t.same(res.body, {
    ...created.body,
    project_id: null,
    object_type: 2,
    source_kind: "workspace",
    threshold_type: "hours",
    threshold: 40,
    thresholds: "{40}",
    receivers: 2,
    receiver_roles: "{}",
    receiver_users: `{${member.id}}`,
  });
  const list = await sys.api("GET", base, { auth: owner.auth });
  t.same(list.body.find((a: { id: number }) => a.id === created.body.id), res.body);
});

t.test("PUT checks the body as POST does and refuses what is not there", async (t) => {
  const created = await create(projectAlert);
  const put = (id: number | string, body: unknown, user: TrackUser = owner) => sys.api("PUT", `${base}/${id}`, { auth: user.auth, body });
  const cases: [unknown, string][] = [
    [{ ...projectAlert, source_kind: "" }, alertFieldBlank("source kind").rawMessage],
    [{ ...projectAlert, source_kind: "team" }, alertFieldOutOfRange("source kind").rawMessage],
    [{ ...projectAlert, project_id: undefined }, alertFieldBlank("project").rawMessage],
    [{ ...projectAlert, source_kind: "workspace", threshold_type: "hours" }, alertProjectUnsupported().rawMessage],
    [{ ...projectAlert, thresholds: [5000] }, alertFieldOutOfRange("threshold").rawMessage],
    [{ ...projectAlert, project_id: deletedProjectId }, invalidProject().rawMessage],
    [{ ...projectAlert, project_id: foreignProjectId }, invalidProject().rawMessage],
  ];
  for (const [body, message] of cases) {
    const res = await put(created.body.id, body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message);
  }
  const unchanged = await sys.api("GET", base, { auth: owner.auth });
  t.same(unchanged.body.find((a: { id: number }) => a.id === created.body.id), created.body, "a refused PUT changes nothing");
  const missing = await put(999999, projectAlert);
  t.equal(missing.status, 403);
  t.equal(missing.body, alertNotFound().rawMessage);
  const malformed = await put(0, projectAlert);
  t.equal(malformed.status, 400);
  t.equal(malformed.body, alertIdInvalid().rawMessage);
  t.equal((await put(created.body.id, projectAlert, member)).status, 403, "plain members may not");
  const foreign = await sys.api("POST", `/api/v9/workspaces/${stranger.workspaceId}/alerts`, {
    auth: stranger.auth,
    body: { source_kind: "workspace", threshold_type: "hours", thresholds: [1], receiver_roles: ["admin"] },
  });
  t.equal(foreign.status, 200, foreign.text);
  const other = await put(foreign.body.id, { source_kind: "workspace", threshold_type: "hours", thresholds: [2], receiver_roles: ["admin"] });
  t.equal(other.status, 403, "another workspace's alert is not there");
});
