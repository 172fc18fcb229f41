import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { ProjectSchema } from "../../../gen/tracking/v1/projects_pb.js";
import { projectGroups } from "../project-groups/store.js";
import { projectUsers } from "../project-users/store.js";
import { timeEntries } from "../time-entries/store.js";
import { eventObject, trackingWorld } from "./tracking-support.js";
import { activeFilterInvalid, deletionModeInvalid, invalidProject, nameTaken, premiumNeeded, projectCreationAdminsOnly, projectEndBeforeStart, projectNameEmpty, recurringParametersMissing, sortOrderInvalid, templateInvalid, widMismatch } from "../errors.js";

const clock = new ManualClock(new Date("2026-03-15T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock });
const w = await trackingWorld(t, sys, clock);
const owner = w.owner;
const member = await w.join("member");
const stranger: TrackUser = await sys.signup("stranger");
const base = `/api/v9/workspaces/${owner.workspaceId}/projects`;

/** Every field of a project answer: the specification's table plus the reference's is_shared and pinned. */
const PROJECT_FIELDS = [
  "active", "actual_hours", "actual_seconds", "at", "auto_estimates", "billable", "cid", "client_id", "color", "created_at", "currency",
  "current_period", "end_date", "estimated_hours", "estimated_seconds", "fixed_fee", "id", "is_private", "is_shared", "name", "permissions",
  "pinned", "rate", "rate_last_updated", "recurring", "recurring_parameters", "server_deleted_at", "start_date", "status", "template",
  "template_id", "wid", "workspace_id",
];

async function create(body: Record<string, unknown>, user: TrackUser = owner) {
  const res = await sys.api("POST", base, { auth: user.auth, body });
  if (res.status !== 200) throw new Error(`create ${JSON.stringify(body)}: ${res.status} ${res.text}`);
  return res.body;
}

async function names(query = "", user: TrackUser = owner): Promise<string[]> {
  const res = await sys.api("GET", `${base}${query}`, { auth: user.auth });
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return res.body.map((p: { name: string }) => p.name);
}

/** The plan is the organization's: a paid organization's workspaces are premium. */
async function setPremium(premium: boolean) {
  await w.accounts("organizations").where({ id: w.organizationId }).update({ pricing_plan_id: premium ? 1 : 0 });
  clock.advance(5_001);
}

t.test("create answers every field of the project, and get answers the same", async (t) => {
  const p = await create({ name: "Apollo", color: "#AABBCC", is_private: false, start_date: "2026-03-01", end_date: "2026-12-31" });
  t.same(Object.keys(p).sort(), PROJECT_FIELDS);
  t.match(p, {
    id: Number, workspace_id: owner.workspaceId, wid: owner.workspaceId, name: "Apollo", active: true, is_private: false, color: "#aabbcc",
    client_id: null, cid: null, billable: false, template: false, auto_estimates: false, estimated_hours: null, estimated_seconds: null,
    rate: null, rate_last_updated: null, currency: null, recurring: false, recurring_parameters: [], current_period: null, fixed_fee: null,
    actual_hours: 0, actual_seconds: 0, start_date: "2026-03-01", end_date: "2026-12-31", status: "active", permissions: null,
    server_deleted_at: null, template_id: null, is_shared: false, pinned: false,
  });
  t.match(p.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  t.match(p.created_at, /^2026-03-15T12:\d\d:\d\d\+00:00$/);
  const got = await sys.api("GET", `${base}/${p.id}`, { auth: owner.auth });
  t.equal(got.status, 200);
  t.same(got.body, p);
  const events = await w.events("project");
  const created = events.find((e) => e.action === "created" && e.objectId === String(p.id));
  t.ok(created, "project created is emitted");
  t.equal(eventObject(created!, ProjectSchema).name, "Apollo");
});

t.test("defaults: today's start, a palette color, the creator as manager", async (t) => {
  const p = await create({ name: "Defaults" });
  t.equal(p.start_date, "2026-03-15");
  t.match(p.color, /^#[0-9a-f]{6}$/);
  t.equal(p.end_date, null);
  const pu = await projectUsers.list(w.tracking, BigInt(owner.workspaceId), { where: { project_id: p.id } });
  t.same(pu.map((r) => [r.user_id, r.manager]), [[owner.id, true]]);
});

t.test("status is derived from archive, timeframe and deletion", async (t) => {
  const upcoming = await create({ name: "Later", start_date: "2026-04-01" });
  t.equal(upcoming.status, "upcoming");
  const ended = await create({ name: "Over", start_date: "2025-01-01", end_date: "2026-03-14" });
  t.equal(ended.status, "ended");
  const archived = await create({ name: "Shelved", active: false });
  t.equal(archived.status, "archived");
  const endsToday = await create({ name: "Last day", start_date: "2026-01-01", end_date: "2026-03-15" });
  t.equal(endsToday.status, "active");
});

t.test("create and update refuse bad values with the reference's messages and change nothing", async (t) => {
  const before = await names("?active=both");
  for (const [body, status, message] of [
    [{ name: "" }, 400, projectNameEmpty().rawMessage],
    [{}, 400, projectNameEmpty().rawMessage],
    [{ name: "x".repeat(256) }, 400, "Project name must be at most 255 characters"],
    [{ name: "Bad color", color: "red" }, 400, "Error in validating color 'red'. Project color must be a hex value in the form of #[0-9a-f]{6}."],
    [{ name: "Bad color", color: "#12345" }, 400, "Error in validating color '#12345'. Project color must be a hex value in the form of #[0-9a-f]{6}."],
    [{ name: "No client", client_id: 999999 }, 400, `Client with the ID 999999 isn't present in workspace ${owner.workspaceId}`],
    [{ name: "No client", cid: 999998 }, 400, `Client with the ID 999998 isn't present in workspace ${owner.workspaceId}`],
    [{ name: "Bad date", start_date: "2026-02-30" }, 400, "start_date must be a date in the form YYYY-MM-DD"],
    [{ name: "Backwards", start_date: "2026-05-01", end_date: "2026-04-01" }, 400, projectEndBeforeStart().rawMessage],
    [{ name: "Apollo" }, 400, nameTaken().rawMessage],
    [{ name: "Other", wid: owner.workspaceId + 1000 }, 400, widMismatch().rawMessage],
    [{ name: 7 }, 400, "Invalid value for name: expected string, got number"],
  ] as const) {
    const res = await sys.api("POST", base, { auth: owner.auth, body });
    t.equal(res.status, status, JSON.stringify(body));
    t.equal(res.body, message);
  }
  t.same(await names("?active=both"), before);
  const p = (await sys.api("GET", `${base}?name=apollo`, { auth: owner.auth })).body[0];
  const bad = await sys.api("PUT", `${base}/${p.id}`, { auth: owner.auth, body: { color: "#zzzzzz" } });
  t.equal(bad.status, 400);
  t.equal(bad.body, "Error in validating color '#zzzzzz'. Project color must be a hex value in the form of #[0-9a-f]{6}.");
});

t.test("premium fields need a premium workspace (402); their free values pass", async (t) => {
  for (const [field, value] of [
    ["billable", true], ["auto_estimates", true], ["currency", "EUR"], ["estimated_hours", 10], ["fixed_fee", 100], ["rate", 50],
    ["rate_change_mode", "start-today"], ["recurring", true], ["template", true],
  ] as const) {
    const res = await sys.api("POST", base, { auth: owner.auth, body: { name: `Premium ${field}`, [field]: value } });
    t.equal(res.status, 402, field);
    t.equal(res.body, `premium needed to use ${field}`);
  }
  const free = await create({ name: "Free values", billable: false, template: false, recurring: false, auto_estimates: false });
  t.equal(free.billable, false);
  await setPremium(true);
  t.teardown(() => setPremium(false));
  const p = await create({
    name: "Premium all", billable: true, auto_estimates: true, currency: "eur", estimated_hours: 10, fixed_fee: 1500.5, rate: 75.25,
    rate_change_mode: "override-all", template: true, recurring: true, start_date: "2026-01-01",
    recurring_parameters: { period: "monthly", project_start_date: "2026-01-01" },
  });
  t.match(p, { billable: true, auto_estimates: true, currency: "EUR", estimated_hours: 10, estimated_seconds: 36000, fixed_fee: 1500.5, rate: 75.25, template: true, recurring: true });
  t.match(p.rate_last_updated, /^2026-03-15T12:\d\d:\d\d\+00:00$/);
  t.same(p.recurring_parameters, [
    { custom_period: null, estimated_seconds: 36000, parameter_end_date: null, parameter_start_date: "2026-01-01", period: "monthly", project_start_date: "2026-01-01" },
  ]);
  t.same(p.current_period, { start_date: "2026-03-01", end_date: "2026-03-31" });
  const badMode = await sys.api("POST", base, { auth: owner.auth, body: { name: "Mode", rate_change_mode: "sometimes" } });
  t.equal(badMode.status, 400);
  t.equal(badMode.body, "rate_change_mode must be one of start-today, override-current, override-all");
  const noParams = await sys.api("POST", base, { auth: owner.auth, body: { name: "Recurring bare", recurring: true } });
  t.equal(noParams.status, 400);
  t.equal(noParams.body, recurringParametersMissing().rawMessage);
});

t.test("client_name makes the client when missing and reuses it when there", async (t) => {
  const a = await create({ name: "With new client", client_name: "Fresh Client" });
  t.type(a.client_id, "number");
  t.equal(a.cid, a.client_id);
  const clients = await sys.api("GET", `/api/v9/workspaces/${owner.workspaceId}/clients`, { auth: owner.auth });
  t.ok(clients.body.some((c: { id: number; name: string }) => c.id === a.client_id && c.name === "Fresh Client"));
  const b = await create({ name: "Same client", client_name: "fresh client" });
  t.equal(b.client_id, a.client_id, "matched ignoring case");
  t.ok((await w.events("client")).some((e) => e.action === "created" && e.objectId === String(a.client_id)), "client created is emitted");
  const moved = await sys.api("PUT", `${base}/${b.id}`, { auth: owner.auth, body: { client_id: 0 } });
  t.equal(moved.body.client_id, null, "client_id 0 takes the client away");
});

t.test("the same name is allowed under another client", async (t) => {
  const x = await create({ name: "Shared Name", client_name: "Client X" });
  const y = await create({ name: "Shared Name", client_name: "Client Y" });
  t.not(x.id, y.id);
});

t.test("only_admins_may_create_projects: members get 403 with the specification's message", async (t) => {
  await w.setWorkspace({ only_admins_may_create_projects: true });
  t.teardown(() => w.setWorkspace({ only_admins_may_create_projects: false }));
  const res = await sys.api("POST", base, { auth: member.auth, body: { name: "Member's" } });
  t.equal(res.status, 403);
  t.equal(res.body, projectCreationAdminsOnly().rawMessage);
  await create({ name: "Admin's" });
});

t.test("workspace defaults: private by default, billable by default (premium)", async (t) => {
  await w.setWorkspace({ projects_private_by_default: true, projects_billable_by_default: true });
  t.teardown(() => w.setWorkspace({ projects_private_by_default: false, projects_billable_by_default: false }));
  const free = await create({ name: "Default private" });
  t.equal(free.is_private, true);
  t.equal(free.billable, false, "billable by default needs a premium workspace");
  await setPremium(true);
  t.teardown(() => setPremium(false));
  const premium = await create({ name: "Default billable" });
  t.equal(premium.billable, true);
});

t.test("private projects are seen by admins, their project users and their groups' members only", async (t) => {
  const secret = await create({ name: "Secret Project", is_private: true });
  const open = await create({ name: "Open Project" });
  const seen = await names("?name=project", member);
  t.ok(seen.includes("Open Project"));
  t.notOk(seen.includes("Secret Project"));
  const hidden = await sys.api("GET", `${base}/${secret.id}`, { auth: member.auth });
  t.equal(hidden.status, 400);
  t.equal(hidden.body, invalidProject().rawMessage);
  await w.tracking.transaction((trx) =>
    projectUsers.insert(trx, { workspace_id: BigInt(owner.workspaceId), project_id: secret.id, user_id: BigInt(member.id), manager: false, rate: null, labour_cost: null, rate_last_updated: null, labour_cost_last_updated: null, at: clock.now() }),
  );
  t.ok((await names("?name=project", member)).includes("Secret Project"), "a project user sees it");
  t.equal((await sys.api("GET", `${base}/${secret.id}`, { auth: member.auth })).status, 200);
  // A member who is neither: through a group of the project.
  const grouped = await w.join("grouped");
  t.notOk((await names("?name=project", grouped)).includes("Secret Project"));
  const [groupId] = await w.accounts("groups").insert({ organization_id: w.organizationId, name: "Team", created_at: clock.now(), updated_at: clock.now() }).catch(() => [0]);
  if (groupId) {
    await w.accounts("group_users").insert({ group_id: groupId, user_id: grouped.id }).catch(() => undefined);
    await w.tracking.transaction((trx) => projectGroups.insert(trx, { workspace_id: BigInt(owner.workspaceId), project_id: secret.id, group_id: BigInt(groupId), at: clock.now() }));
    t.ok((await names("?name=project", grouped)).includes("Secret Project"), "a member of a group of the project sees it");
  }
  t.ok((await names("?name=project")).includes("Secret Project"), "the admin sees it");
  t.ok(open);
});

t.test("members change only the projects they manage", async (t) => {
  const owners = await create({ name: "Owner managed" });
  const res = await sys.api("PUT", `${base}/${owners.id}`, { auth: member.auth, body: { name: "Taken over" } });
  t.equal(res.status, 403);
  t.equal(res.body, "User does not have access to this resource.");
  const del = await sys.api("DELETE", `${base}/${owners.id}`, { auth: member.auth });
  t.equal(del.status, 403);
  const mine = await create({ name: "Member managed" }, member);
  const renamed = await sys.api("PUT", `${base}/${mine.id}`, { auth: member.auth, body: { name: "Member renamed" } });
  t.equal(renamed.status, 200, renamed.text);
  t.equal(renamed.body.name, "Member renamed");
});

t.test("update changes the fields given and keeps the others", async (t) => {
  const p = await create({ name: "Changeable", color: "#111111", is_private: true });
  clock.advance(1000);
  const res = await sys.api("PUT", `${base}/${p.id}`, { auth: owner.auth, body: { name: "Changed", active: false } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { id: p.id, name: "Changed", active: false, status: "archived", color: "#111111", is_private: true });
  t.not(res.body.at, p.at);
  t.equal(res.body.created_at, p.created_at);
  t.ok((await w.events("project")).some((e) => e.action === "updated" && e.objectId === String(p.id)));
  const missing = await sys.api("PUT", `${base}/999999`, { auth: owner.auth, body: { name: "x" } });
  t.equal(missing.status, 400);
  t.equal(missing.body, invalidProject().rawMessage);
});

t.test("actual_seconds and actual_hours come from the project's stopped time entries", async (t) => {
  const p = await create({ name: "Tracked" });
  const now = clock.now();
  await w.tracking.transaction(async (trx) => {
    for (const duration of [3600, 1800, 5400]) {
      await timeEntries.insert(trx, {
        workspace_id: owner.workspaceId, user_id: owner.id, project_id: p.id, task_id: null, description: null, billable: false,
        start: now, stop: now, duration, running_user_id: null, tag_ids: [], shared_with_user_ids: [], created_with: "test", created_at: now, at: now, server_deleted_at: null,
      } as never);
    }
  });
  const got = await sys.api("GET", `${base}/${p.id}`, { auth: owner.auth });
  t.equal(got.body.actual_seconds, 10800);
  t.equal(got.body.actual_hours, 3);
});

t.test("delete: teDeletionMode unassign (default) keeps the entries, delete removes them", async (t) => {
  for (const mode of ["unassign", "delete", ""]) {
    const p = await create({ name: `Doomed ${mode || "default"}` });
    const now = clock.now();
    const entry = await w.tracking.transaction((trx) =>
      timeEntries.insert(trx, {
        workspace_id: owner.workspaceId, user_id: owner.id, project_id: p.id, task_id: null, description: "work", billable: false,
        start: now, stop: now, duration: 60, running_user_id: null, tag_ids: [], shared_with_user_ids: [], created_with: "test", created_at: now, at: now, server_deleted_at: null,
      } as never),
    );
    const res = await sys.api("DELETE", `${base}/${p.id}${mode ? `?teDeletionMode=${mode}` : ""}`, { auth: owner.auth });
    t.equal(res.status, 200, res.text);
    t.equal(res.text, "");
    const after = await timeEntries.get(w.tracking, BigInt(owner.workspaceId), BigInt(entry.id));
    if (mode === "delete") t.not(after!.server_deleted_at, null, "entries deleted");
    else t.match(after, { project_id: null, server_deleted_at: null }, `entries unassigned (${mode || "default"})`);
    const gone = await sys.api("GET", `${base}/${p.id}`, { auth: owner.auth });
    t.equal(gone.status, 400);
    t.equal(gone.body, invalidProject().rawMessage);
    t.ok((await w.events("project")).some((e) => e.action === "deleted" && e.objectId === String(p.id)));
    t.same(await projectUsers.list(w.tracking, BigInt(owner.workspaceId), { where: { project_id: p.id } }), [], "its project users go with it");
    const deletedSince = await sys.api("GET", `${base}?since=${Math.floor(clock.now().getTime() / 1000)}&statuses=deleted`, { auth: owner.auth });
    t.ok(deletedSince.body.some((x: { id: number; status: string; server_deleted_at: string }) => x.id === p.id && x.status === "deleted" && x.server_deleted_at), "listed as deleted with since");
  }
  const bad = await sys.api("DELETE", `${base}/1?teDeletionMode=explode`, { auth: owner.auth });
  t.equal(bad.status, 400);
  t.equal(bad.body, deletionModeInvalid().rawMessage);
  const missing = await sys.api("DELETE", `${base}/999999`, { auth: owner.auth });
  t.equal(missing.status, 400);
  t.equal(missing.body, invalidProject().rawMessage);
});

t.test("the list: each query parameter alone and combined", async (t) => {
  const w2 = await trackingWorld(t, sys, clock);
  const o = w2.owner;
  const list = `/api/v9/workspaces/${o.workspaceId}/projects`;
  const ls = async (query: string) => {
    const res = await sys.api("GET", `${list}${query}`, { auth: o.auth });
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
    return res.body.map((p: { name: string }) => p.name);
  };
  const c1 = (await sys.api("POST", `/api/v9/workspaces/${o.workspaceId}/clients`, { auth: o.auth, body: { name: "C1" } })).body.id;
  const c2 = (await sys.api("POST", `/api/v9/workspaces/${o.workspaceId}/clients`, { auth: o.auth, body: { name: "C2" } })).body.id;
  const old = new Date("2026-01-01T00:00:00Z");
  const recent = new Date("2026-03-10T00:00:00Z");
  const at = (d: Date) => ({ at: d, created_at: d });
  const alpha = await w2.project("Alpha", { client_id: c1, billable: true, start_date: "2026-01-01", ...at(old) });
  await w2.project("beta", { active: false, ...at(old) });
  await w2.project("Gamma", { client_id: c2, template: true, start_date: "2026-05-01", ...at(new Date("2026-01-02T00:00:00Z")) });
  const delta = await w2.project("delta", { start_date: "2025-01-01", end_date: "2026-02-01", at: recent, created_at: new Date("2026-01-03T00:00:00Z") });
  await w2.project("Epsilon", { server_deleted_at: recent, at: recent, created_at: new Date("2026-01-04T00:00:00Z") });
  const zeta = await w2.project("Zeta", { is_private: true, ...at(new Date("2026-01-05T00:00:00Z")) });
  const member2 = await w2.join("member2");
  const pu = (project: bigint, user: number) =>
    w2.tracking.transaction((trx) => projectUsers.insert(trx, { workspace_id: BigInt(o.workspaceId), project_id: project, user_id: BigInt(user), manager: false, rate: null, labour_cost: null, rate_last_updated: null, labour_cost_last_updated: null, at: clock.now() }));
  await pu(alpha.id, member2.id);
  await pu(delta.id, o.id);
  await w2.tracking.transaction((trx) => projectGroups.insert(trx, { workspace_id: BigInt(o.workspaceId), project_id: zeta.id, group_id: 4242n, at: clock.now() }));

  t.same(await ls(""), ["Alpha", "delta", "Gamma", "Zeta"], "active, live projects by name ignoring case");
  t.same(await ls("?active=true"), ["Alpha", "delta", "Gamma", "Zeta"]);
  t.same(await ls("?active=false"), ["beta"]);
  t.same(await ls("?active=both"), ["Alpha", "beta", "delta", "Gamma", "Zeta"]);
  t.same(await ls(`?since=${recent.getTime() / 1000}&active=both`), ["delta", "Epsilon"], "since: changed and deleted ones");
  t.same(await ls("?billable=true"), ["Alpha"]);
  t.same(await ls("?billable=false"), ["delta", "Gamma", "Zeta"]);
  t.same(await ls(`?client_ids=${c1}`), ["Alpha"]);
  t.same(await ls(`?client_ids=${c1},${c2}`), ["Alpha", "Gamma"]);
  t.same(await ls(`?client_ids=${c1}&client_ids=${c2}`), ["Alpha", "Gamma"], "repeated parameters too");
  t.same(await ls("?client_ids=0"), ["delta", "Zeta"], "0: without client");
  t.same(await ls(`?user_ids=${member2.id}`), ["Alpha"]);
  t.same(await ls(`?user_ids=${member2.id},${o.id}`), ["Alpha", "delta"]);
  t.same(await ls("?group_ids=4242"), ["Zeta"]);
  t.same(await ls("?statuses=upcoming"), ["Gamma"]);
  t.same(await ls("?statuses=ended,archived"), ["beta", "delta"]);
  t.same(await ls("?statuses=deleted"), ["Epsilon"]);
  t.same(await ls("?statuses=active"), ["Alpha", "Zeta"]);
  t.same(await ls("?name=TA"), ["delta", "Zeta"], "name: a substring ignoring case (active only by default)");
  t.same(await ls("?name=ta&active=both"), ["beta", "delta", "Zeta"]);
  t.same(await ls("?name=%25"), [], "a % is a literal");
  t.same(await ls("?sort_order=DESC"), ["Zeta", "Gamma", "delta", "Alpha"]);
  t.same(await ls("?sort_field=created_at"), ["Alpha", "Gamma", "delta", "Zeta"]);
  t.same(await ls("?sort_field=created_at&sort_order=desc"), ["Zeta", "delta", "Gamma", "Alpha"]);
  t.same(await ls("?sort_field=start_date"), ["delta", "Zeta", "Alpha", "Gamma"], "ties by id");
  t.same(await ls("?per_page=2"), ["Alpha", "delta"]);
  t.same(await ls("?per_page=2&page=2"), ["Gamma", "Zeta"]);
  t.same(await ls("?per_page=2&page=3"), []);
  t.same(await ls("?only_templates=true"), ["Gamma"]);
  t.same(await ls("?only_templates=false"), ["Alpha", "delta", "Gamma", "Zeta"]);
  t.same(await ls("?only_me=true"), ["delta"]);
  t.same(await ls("?sort_pinned=true"), ["Alpha", "delta", "Gamma", "Zeta"], "sort_pinned is accepted");
  t.same(await ls(`?active=both&client_ids=${c1},${c2}&sort_order=desc`), ["Gamma", "Alpha"], "combined: active, client_ids, sort_order");
  t.same(await ls(`?name=a&billable=false&statuses=active,upcoming&per_page=1&page=2`), ["Zeta"], "combined: name, billable, statuses, paging");
  t.same(await ls(`?only_me=true&name=del&sort_field=created_at`), ["delta"], "combined: only_me, name, sort_field");
  // A plain member does not see the private project unless the project is theirs.
  const seen = await sys.api("GET", list, { auth: member2.auth });
  t.same(seen.body.map((p: { name: string }) => p.name), ["Alpha", "delta", "Gamma"]);
  for (const [query, message] of [
    ["?sort_field=colour", "Invalid sort_field: expected one of name, created_at, at, start_date, end_date"],
    ["?sort_order=sideways", sortOrderInvalid().rawMessage],
    ["?statuses=finished", "Invalid status 'finished': expected one of upcoming, active, ended, archived, deleted"],
    ["?active=maybe", activeFilterInvalid().rawMessage],
    ["?billable=perhaps", "Invalid value for billable: expected true or false"],
    ["?user_ids=x", "Invalid value for user_ids: expected integer, got string"],
  ]) {
    const res = await sys.api("GET", `${list}${query}`, { auth: o.auth });
    t.equal(res.status, 400, query);
    t.equal(res.body, message, query);
  }
});

t.test("per_page is 151 by default and at most 200", async (t) => {
  const w3 = await trackingWorld(t, sys, clock);
  const now = clock.now();
  const rows = Array.from({ length: 205 }, (_, i) => ({
    workspace_id: w3.owner.workspaceId, client_id: null, name: `P${String(i).padStart(3, "0")}`, sort_name: `p${String(i).padStart(3, "0")}`, active: true, is_private: false,
    color: "#0b83d9", billable: null, template: false, template_id: null, auto_estimates: null, estimated_seconds: null, currency: null, fixed_fee: null, rate: null,
    rate_last_updated: null, recurring: false, recurring_parameters: null, start_date: "2026-01-01", end_date: null, creator_id: w3.owner.id, created_at: now, at: now, server_deleted_at: null,
  }));
  await w3.tracking.batchInsert("projects", rows, 50);
  const list = `/api/v9/workspaces/${w3.owner.workspaceId}/projects`;
  t.equal((await sys.api("GET", list, { auth: w3.owner.auth })).body.length, 151);
  t.equal((await sys.api("GET", `${list}?per_page=500`, { auth: w3.owner.auth })).body.length, 200);
  const last = await sys.api("GET", `${list}?per_page=200&page=2`, { auth: w3.owner.auth });
  t.same(last.body.map((p: { name: string }) => p.name), ["P200", "P201", "P202", "P203", "P204"]);
});

t.test("PATCH applies RFC 6902 operations to each project and answers success and failure", async (t) => {
  const a = await create({ name: "Patch A" });
  const b = await create({ name: "Patch B", client_name: "Patch Client" });
  const patch = (ids: string, body: unknown, user: TrackUser = owner) => sys.api("PATCH", `${base}/${ids}`, { auth: user.auth, body });
  const res = await patch(`${a.id},${b.id},999999`, [
    { op: "replace", path: "/color", value: "#123456" },
    { op: "add", path: "/is_private", value: true },
    { op: "remove", path: "/client_id" },
  ]);
  t.equal(res.status, 200, res.text);
  t.same(res.body, { failure: [{ id: 999999, message: invalidProject().rawMessage }], success: [a.id, b.id] });
  for (const id of [a.id, b.id]) {
    const got = (await sys.api("GET", `${base}/${id}`, { auth: owner.auth })).body;
    t.match(got, { color: "#123456", is_private: true, client_id: null });
  }
  const clash = await patch(`${a.id},${b.id}`, [{ op: "replace", path: "/name", value: "Patch Same" }]);
  t.same(clash.body, { failure: [{ id: b.id, message: nameTaken().rawMessage }], success: [a.id] }, "each project on its own");
  const premium = await patch(`${a.id}`, [{ op: "replace", path: "/billable", value: true }]);
  t.same(premium.body, { failure: [{ id: a.id, message: premiumNeeded("billable").rawMessage }], success: [] });
  const badColor = await patch(`${a.id}`, [{ op: "replace", path: "/color", value: "blue" }]);
  t.same(badColor.body.failure, [{ id: a.id, message: "Error in validating color 'blue'. Project color must be a hex value in the form of #[0-9a-f]{6}." }]);
  const c = await create({ name: "Patch C", is_private: false });
  const notMine = await patch(`${c.id},${a.id}`, [{ op: "replace", path: "/name", value: "Hijack" }], member);
  t.same(notMine.body, { failure: [{ id: c.id, message: "User does not have access to this resource." }, { id: a.id, message: invalidProject().rawMessage }], success: [] }, "a private project the member does not see is not found");
  const negative = await patch(`${c.id}`, [{ op: "replace", path: "/estimated_hours", value: -1 }]);
  t.same(negative.body.failure, [{ id: c.id, message: "estimated_hours must not be negative" }]);
  const end = await patch(`${a.id}`, [{ op: "replace", path: "/end_date", value: "2026-12-31" }, { op: "replace", path: "/active", value: false }]);
  t.same(end.body.success, [a.id]);
  t.match((await sys.api("GET", `${base}/${a.id}`, { auth: owner.auth })).body, { end_date: "2026-12-31", active: false, status: "archived" });
  for (const [ids, body, message] of [
    ["abc", [{ op: "replace", path: "/name", value: "x" }], "Invalid value as project IDs"],
    [Array.from({ length: 101 }, (_, i) => 900000 + i).join(","), [{ op: "replace", path: "/name", value: "x" }], "PATCH request is limited to 100 entries at once"],
    [`${a.id}`, { op: "replace" }, "Invalid JSON input"],
    [`${a.id}`, [], "No patchable fields defined"],
    [`${a.id}`, [{ op: "move", path: "/name", value: "x" }], "Invalid op: move"],
    [`${a.id}`, [{ op: "replace", path: "name", value: "x" }], "Invalid path format: name"],
    [`${a.id}`, [{ op: "replace", path: "/owner", value: 1 }], "Path not found: /owner"],
    [`${a.id}`, [{ op: "remove", path: "/color" }], "Operation not supported (remove /color)"],
    [`${a.id}`, [{ op: "replace", path: "/active", value: "yes" }], "/active expects a boolean"],
    [`${a.id}`, [{ op: "replace", path: "/client_id", value: "one" }], "/client_id expects an integer or null"],
    [`${a.id}`, [{ op: "replace", path: "/rate", value: "ten" }], "/rate expects a number or null"],
    [`${a.id}`, [{ op: "replace", path: "/color", value: 5 }], "/color expects a string"],
  ] as const) {
    const bad = await patch(ids, body);
    t.equal(bad.status, 400, JSON.stringify(body));
    t.equal(bad.body, message);
  }
});

t.test("another workspace: 403 for strangers, and no project of it is reachable from this one", async (t) => {
  const p = await create({ name: "Guarded" });
  for (const [method, path, body] of [
    ["GET", base],
    ["POST", base, { name: "Intruder" }],
    ["GET", `${base}/${p.id}`],
    ["PUT", `${base}/${p.id}`, { name: "Hijacked" }],
    ["DELETE", `${base}/${p.id}`],
    ["PATCH", `${base}/${p.id}`, [{ op: "replace", path: "/name", value: "Hijacked" }]],
  ] as const) {
    const res = await sys.api(method, path, { auth: stranger.auth, body });
    t.equal(res.status, 403, `${method} ${path}`);
  }
  const theirs = `/api/v9/workspaces/${stranger.workspaceId}/projects`;
  const own = (await sys.api("POST", theirs, { auth: stranger.auth, body: { name: "Stranger's" } })).body;
  const cross = await sys.api("GET", `${base}/${own.id}`, { auth: owner.auth });
  t.equal(cross.status, 400, "a project of another workspace is not found through this one");
  const crossPatch = await sys.api("PATCH", `${base}/${own.id}`, { auth: owner.auth, body: [{ op: "replace", path: "/name", value: "Taken" }] });
  t.same(crossPatch.body, { failure: [{ id: own.id, message: invalidProject().rawMessage }], success: [] });
  t.notOk((await names("?active=both")).includes("Stranger's"));
  t.equal((await sys.api("GET", `${theirs}/${own.id}`, { auth: stranger.auth })).body.name, "Stranger's", "unchanged");
  t.match((await sys.api("GET", `${base}/${p.id}`, { auth: owner.auth })).body, { name: "Guarded" }, "unchanged");
});

t.test("/me/projects: the caller's projects across workspaces", async (t) => {
  const mine = await sys.api("GET", "/api/v9/me/projects", { auth: member.auth });
  t.equal(mine.status, 200, mine.text);
  const seen = mine.body.map((p: { name: string }) => p.name);
  t.ok(seen.includes("Open Project"));
  t.notOk(seen.includes("Owner managed") && seen.includes("Shelved"), "archived ones left out");
  t.notOk(seen.includes("Stranger's"));
  t.same(Object.keys(mine.body[0]).sort(), PROJECT_FIELDS);
  const archived = await sys.api("GET", "/api/v9/me/projects?include_archived=true", { auth: owner.auth });
  t.ok(archived.body.some((p: { name: string }) => p.name === "Shelved"));
  t.notOk((await sys.api("GET", "/api/v9/me/projects", { auth: owner.auth })).body.some((p: { name: string }) => p.name === "Shelved"));
  const since = await sys.api("GET", `/api/v9/me/projects?since=${Math.floor(clock.now().getTime() / 1000) - 1}`, { auth: owner.auth });
  t.equal(since.status, 200);
  const bad = await sys.api("GET", "/api/v9/me/projects?include_archived=maybe", { auth: owner.auth });
  t.equal(bad.status, 400);
  t.equal(bad.body, "Invalid include_archived");
  const strangers = await sys.api("GET", "/api/v9/me/projects", { auth: stranger.auth });
  t.same(strangers.body.map((p: { name: string }) => p.name), ["Stranger's"]);
});

t.test("/me/clients: the clients of the caller's workspaces", async (t) => {
  const res = await sys.api("GET", "/api/v9/me/clients", { auth: owner.auth });
  t.equal(res.status, 200, res.text);
  t.ok(res.body.some((c: { name: string }) => c.name === "Fresh Client"));
  t.same(Object.keys(res.body[0]).sort(), ["archived", "at", "creator_id", "id", "name", "notes", "permissions", "server_deleted_at", "wid"]);
  t.same((await sys.api("GET", "/api/v9/me/clients", { auth: stranger.auth })).body, []);
  const future = await sys.api("GET", `/api/v9/me/clients?since=${Math.floor(clock.now().getTime() / 1000) + 3600}`, { auth: owner.auth });
  t.same(future.body, []);
});

t.test("template_id copies the template's settings into the new project", async (t) => {
  await setPremium(true);
  t.teardown(() => setPremium(false));
  const template = await create({ name: "The Template", template: true, color: "#654321", billable: true, rate: 90, is_private: false });
  const fromTemplate = await create({ name: "From template", template_id: template.id });
  t.match(fromTemplate, { template_id: template.id, color: "#654321", billable: true, rate: 90, is_private: false, template: false });
  const notTemplate = await sys.api("POST", base, { auth: owner.auth, body: { name: "Bad template", template_id: fromTemplate.id } });
  t.equal(notTemplate.status, 400);
  t.equal(notTemplate.body, templateInvalid().rawMessage);
});
