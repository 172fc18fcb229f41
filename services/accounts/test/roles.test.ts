import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { connectDatabase, type Knex } from "../../../lib/db.js";
import { OrganizationAdminService } from "../../../gen/accounts/v1/organizations_pb.js";
import { startTestSystem, type ApiResponse, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountsDb, addMember, organizationUserId, ownOrganization } from "./organization-support.js";

/**
 * Membership is the access model: every write of the workspaces, workspace users, groups, alerts
 * and reminders endpoints, tried by each role of an organization (owner, organization admin,
 * workspace admin, plain member, deactivated member, removed member). Who may not is refused and
 * nothing changes.
 */

const clock = new ManualClock(new Date());
const sys: TestSystem = await startTestSystem(t, { clock });
const db = await accountsDb(t, sys);
const tracking: Knex = await connectDatabase(sys.config, "tracking");
t.teardown(() => tracking.destroy());

const owner = await sys.signup("owner");
const org = await ownOrganization(sys, owner);
const wid = owner.workspaceId;
await sys.directory.client("accounts", OrganizationAdminService).setOrganizationPlan({ organizationId: BigInt(org), paid: true });
const orgAdmin = await sys.signup("orgadmin");
await addMember(db, org, orgAdmin, { admin: true, workspaces: [wid] });
const wsAdmin = await sys.signup("wsadmin");
await addMember(db, org, wsAdmin, { workspaces: [wid] });
await db("workspace_users").where({ workspace_id: wid, user_id: wsAdmin.id }).update({ admin: true, role: "admin" });
const member = await sys.signup("member");
await addMember(db, org, member, { workspaces: [wid] });
const inactive = await sys.signup("inactive");
await addMember(db, org, inactive, { workspaces: [wid], inactive: true });
const removed = await sys.signup("removed");
await addMember(db, org, removed, { workspaces: [wid] });
// The removed member acted once (the tracking service remembers access for a few seconds).
await sys.api("GET", `/api/v9/workspaces/${wid}/track_reminders`, { auth: removed.auth });
const removal = await sys.api("PATCH", `/api/v9/organizations/${org}/users`, { auth: owner.auth, body: { delete: [await organizationUserId(db, org, removed.id)] } });
if (removal.status !== 200) throw new Error(`removal: ${removal.text}`);
clock.advance(60_000);

type Role = "owner" | "organization admin" | "workspace admin" | "member" | "inactive member" | "removed member";
const ROLES: [Role, TrackUser][] = [
  ["owner", owner],
  ["organization admin", orgAdmin],
  ["workspace admin", wsAdmin],
  ["member", member],
  ["inactive member", inactive],
  ["removed member", removed],
];

let serial = 0;
const unique = (prefix: string) => `${prefix} ${++serial}`;
const count = async (q: Knex.QueryBuilder) => Number((await q.count({ n: "*" }))[0].n);

/** A group of the organization, made by the owner. */
async function group(users: number[] = []): Promise<number> {
  const res = await sys.api("POST", `/api/v9/organizations/${org}/groups`, { auth: owner.auth, body: { name: unique("group"), users } });
  if (res.status !== 200) throw new Error(`group: ${res.text}`);
  return res.body.group_id;
}

/** A reminder of the workspace, made by the owner. */
async function reminder(): Promise<number> {
  const res = await sys.api("POST", `/api/v9/workspaces/${wid}/track_reminders`, { auth: owner.auth, body: { frequency: 1, threshold: 2, user_ids: [member.id] } });
  if (res.status !== 200) throw new Error(`reminder: ${res.text}`);
  return res.body.reminder_id;
}

/** An alert of the workspace, made by the owner. */
async function alert(): Promise<number> {
  const res = await sys.api("POST", `/api/v9/workspaces/${wid}/alerts`, { auth: owner.auth, body: ALERT });
  if (res.status !== 200) throw new Error(`alert: ${res.text}`);
  return res.body.id;
}
const ALERT = { source_kind: "workspace", threshold_type: "hours", thresholds: [40], receiver_roles: ["admin"] };

/** A new user of the organization, a member of the workspace unless `workspaces` says otherwise. */
async function newcomer(workspaces: number[] = [wid]): Promise<TrackUser> {
  const u = await sys.signup("newcomer");
  await addMember(db, org, u, { workspaces });
  return u;
}

interface Write {
  name: string;
  /** Who may: organization admins (the owner is one), or workspace admins. */
  allowed: readonly Role[];
  /** The refusal's status for roles that may not, by role (403 unless given). */
  refusal?: Partial<Record<Role, number>>;
  /** A fresh target for one attempt (made by the owner). */
  prepare?: () => Promise<number>;
  call: (user: TrackUser, target: number) => Promise<ApiResponse>;
  /** What the write changes, read before and after a refused attempt. */
  probe: (target: number) => Promise<unknown>;
}

const ORGANIZATION_ADMINS: readonly Role[] = ["owner", "organization admin"];
// Workspace settings, alerts and reminders need a workspace admin: the workspace's own admin flag,
// or being an admin (or the owner) of its organization, who administer all its workspaces.
const WORKSPACE_ADMINS: readonly Role[] = ["owner", "organization admin", "workspace admin"];
const api = (method: string, path: string, body?: unknown) => (user: TrackUser) => sys.api(method, `/api/v9${path}`, { auth: user.auth, body });

const WRITES: Write[] = [
  {
    name: "POST /organizations/{id}/workspaces",
    allowed: ORGANIZATION_ADMINS,
    refusal: { "inactive member": 404, "removed member": 404 },
    call: (user) => api("POST", `/organizations/${org}/workspaces`, { name: unique("workspace") })(user),
    probe: () => count(db("workspaces").where({ organization_id: org })),
  },
  {
    name: "PUT /workspaces/{id}",
    allowed: WORKSPACE_ADMINS,
    prepare: async () => Number((await db("workspaces").where({ id: wid }).first("reports_collapse")).reports_collapse),
    call: (user, collapsed) => api("PUT", `/workspaces/${wid}`, { reports_collapse: !collapsed })(user),
    probe: async () => Boolean((await db("workspaces").where({ id: wid }).first("reports_collapse")).reports_collapse),
  },
  {
    name: "POST /workspaces/{id}/time_entry_constraints",
    allowed: WORKSPACE_ADMINS,
    refusal: { member: 400 },
    prepare: async () => Number((await db("workspaces").where({ id: wid }).first("te_project_present")).te_project_present),
    call: (user, present) => api("POST", `/workspaces/${wid}/time_entry_constraints`, { project_present: !present })(user),
    probe: async () => Boolean((await db("workspaces").where({ id: wid }).first("te_project_present")).te_project_present),
  },
  {
    name: "PATCH /organizations/{id}/workspaces/{id}/workspace_users",
    allowed: ORGANIZATION_ADMINS,
    prepare: async () => {
      const u = await newcomer();
      return Number((await db("workspace_users").where({ workspace_id: wid, user_id: u.id }).first("id")).id);
    },
    call: (user, wu) => api("PATCH", `/organizations/${org}/workspaces/${wid}/workspace_users`, { delete: [wu] })(user),
    probe: () => count(db("workspace_users").where({ workspace_id: wid })),
  },
  {
    name: "PUT /organizations/{id}/workspaces/{id}/assignments (user)",
    allowed: ORGANIZATION_ADMINS,
    prepare: async () => (await newcomer([])).id,
    call: (user, id) => api("PUT", `/organizations/${org}/workspaces/${wid}/assignments`, { operation: "add", user_id: id })(user),
    probe: () => count(db("workspace_users").where({ workspace_id: wid })),
  },
  {
    name: "PUT /organizations/{id}/workspaces/{id}/assignments (group)",
    allowed: ORGANIZATION_ADMINS,
    prepare: () => group(),
    call: (user, id) => api("PUT", `/organizations/${org}/workspaces/${wid}/assignments`, { operation: "add", group_id: id })(user),
    probe: () => count(db("group_workspaces").where({ workspace_id: wid })),
  },
  {
    name: "POST /organizations/{id}/groups",
    allowed: ORGANIZATION_ADMINS,
    call: (user) => api("POST", `/organizations/${org}/groups`, { name: unique("made") })(user),
    probe: () => count(db("groups").where({ organization_id: org })),
  },
  {
    name: "PUT /organizations/{id}/groups/{id}",
    allowed: ORGANIZATION_ADMINS,
    prepare: () => group(),
    call: (user, id) => api("PUT", `/organizations/${org}/groups/${id}`, { name: unique("renamed") })(user),
    probe: (id) => db("groups").where({ id }).first("name"),
  },
  {
    name: "PATCH /organizations/{id}/groups/{id}",
    allowed: ORGANIZATION_ADMINS,
    prepare: () => group(),
    call: (user, id) => api("PATCH", `/organizations/${org}/groups/${id}`, [{ op: "add", path: "/users", value: [member.id] }])(user),
    probe: (id) => count(db("group_users").where({ group_id: id })),
  },
  {
    name: "DELETE /organizations/{id}/groups/{id}",
    allowed: ORGANIZATION_ADMINS,
    prepare: () => group(),
    call: (user, id) => api("DELETE", `/organizations/${org}/groups/${id}`)(user),
    probe: (id) => count(db("groups").where({ id })),
  },
  {
    name: "POST /workspaces/{id}/track_reminders",
    allowed: WORKSPACE_ADMINS,
    call: (user) => api("POST", `/workspaces/${wid}/track_reminders`, { frequency: 7, threshold: 10, user_ids: [member.id] })(user),
    probe: () => count(tracking("track_reminders")),
  },
  {
    name: "PUT /workspaces/{id}/track_reminders/{id}",
    allowed: WORKSPACE_ADMINS,
    prepare: () => reminder(),
    call: (user, id) => api("PUT", `/workspaces/${wid}/track_reminders/${id}`, { frequency: 7, threshold: 10, user_ids: [member.id] })(user),
    probe: (id) => tracking("track_reminders").where({ id }).first("frequency", "threshold"),
  },
  {
    name: "DELETE /workspaces/{id}/track_reminders/{id}",
    allowed: WORKSPACE_ADMINS,
    prepare: () => reminder(),
    call: (user, id) => api("DELETE", `/workspaces/${wid}/track_reminders/${id}`)(user),
    probe: (id) => count(tracking("track_reminders").where({ id })),
  },
  {
    name: "POST /workspaces/{id}/alerts",
    allowed: WORKSPACE_ADMINS,
    call: (user) => api("POST", `/workspaces/${wid}/alerts`, ALERT)(user),
    probe: () => count(tracking("alerts")),
  },
  {
    name: "DELETE /workspaces/{id}/alerts/{id}",
    allowed: WORKSPACE_ADMINS,
    prepare: () => alert(),
    call: (user, id) => api("DELETE", `/workspaces/${wid}/alerts/${id}`)(user),
    probe: (id) => count(tracking("alerts").where({ id })),
  },
];

for (const write of WRITES) {
  t.test(write.name, async (t) => {
    for (const [role, user] of ROLES) {
      const target = (await write.prepare?.()) ?? 0;
      const before = await write.probe(target);
      const res = await write.call(user, target);
      if (write.allowed.includes(role)) {
        t.equal(res.status, 200, `${role} may: ${res.text}`);
        t.notSame(await write.probe(target), before, `${role} changed it`);
      } else {
        t.equal(res.status, write.refusal?.[role] ?? 403, `${role} may not: ${res.text}`);
        t.same(await write.probe(target), before, `${role} changed nothing`);
      }
    }
  });
}
