import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountEvents, accountsDb, addMember, ownOrganization, workspaceUserOf } from "./organization-support.js";
import {
  organizationAdminNotRemovable, workspaceMemberAdminAndRole, workspaceMemberChangeMissing, workspaceMemberNotFound, workspaceMemberRoleInvalid, workspaceOwnerNotRemovable, workspaceUserNotAccessible, workspaceUserNotFound,
} from "../errors.js";

/** One member of a workspace changed (admin or not) or removed, by the workspace's admins. */

const clock = new ManualClock(new Date("2026-03-01T12:00:00Z"));
const sys: TestSystem = await startTestSystem(t, { clock, services: ["accounts"] });
const db = await accountsDb(t, sys);

/** Owner Olga (organization admin), workspace admin Wendy, member Max, organization admin Ada; a stranger of another organization. */
async function workspaceOf(prefix: string) {
  const olga = await sys.signup(`${prefix}olga`);
  const organizationId = await ownOrganization(sys, olga);
  const workspace = olga.workspaceId;
  const wendy = await sys.signup(`${prefix}wendy`);
  await addMember(db, organizationId, wendy);
  await db("workspace_users").where({ workspace_id: workspace, user_id: wendy.id }).update({ admin: true, role: "admin" });
  const max = await sys.signup(`${prefix}max`);
  await addMember(db, organizationId, max);
  const ada = await sys.signup(`${prefix}ada`);
  await addMember(db, organizationId, ada, { admin: true });
  const stranger = await sys.signup(`${prefix}stranger`);
  return { olga, organizationId, workspace, wendy, max, ada, stranger };
}

const w = await workspaceOf("g");
const wuId = async (user: TrackUser) => Number((await db("workspace_users").where({ workspace_id: w.workspace, user_id: user.id }).first("id")).id);

t.test("PUT /workspaces/{id}/users/{user_id} and .../workspace_users/{id} make a member a workspace admin or not", async (t) => {
  const before = (await accountEvents(db)).length;
  const res = await sys.api("PUT", `/api/v9/workspaces/${w.workspace}/users/${w.max.id}`, { auth: w.wendy.auth, body: { admin: true } });
  t.equal(res.status, 200, res.text);
  t.equal(res.text, "");
  let row = await db("workspace_users").where({ workspace_id: w.workspace, user_id: w.max.id }).first();
  t.equal(Boolean(row.admin), true);
  t.equal(row.role, "admin");
  const events = (await accountEvents(db)).slice(before);
  t.equal(events.length, 1);
  t.match(workspaceUserOf(events[0]), { admin: true, workspaceId: BigInt(w.workspace), userId: BigInt(w.max.id) });

  const byMembership = await sys.api("PUT", `/api/v9/workspaces/${w.workspace}/workspace_users/${await wuId(w.max)}`, { auth: w.olga.auth, body: { role_id: 2 } });
  t.equal(byMembership.status, 200, byMembership.text);
  row = await db("workspace_users").where({ workspace_id: w.workspace, user_id: w.max.id }).first();
  t.equal(Boolean(row.admin), false);
  t.equal(row.role, "user");
  const count = (await accountEvents(db)).length;
  t.equal((await sys.api("PUT", `/api/v9/workspaces/${w.workspace}/users/${w.max.id}`, { auth: w.olga.auth, body: { admin: false } })).status, 200);
  t.equal((await accountEvents(db)).length, count, "no change, no event");
});

t.test("member changes refuse bad bodies, non-members, non-admins and strangers", async (t) => {
  const users = `/api/v9/workspaces/${w.workspace}/users`;
  const cases: [string, TrackUser, unknown, number, string][] = [
    [`${users}/${w.max.id}`, w.wendy, {}, 400, workspaceMemberChangeMissing().rawMessage],
    [`${users}/${w.max.id}`, w.wendy, { admin: true, role_id: 1 }, 400, workspaceMemberAdminAndRole().rawMessage],
    [`${users}/${w.max.id}`, w.wendy, { role_id: 7 }, 400, workspaceMemberRoleInvalid().rawMessage],
    [`${users}/${w.stranger.id}`, w.wendy, { admin: true }, 400, workspaceMemberNotFound().rawMessage],
    [`/api/v9/workspaces/${w.workspace}/workspace_users/99999999`, w.wendy, { admin: true }, 400, workspaceUserNotFound().rawMessage],
    [`${users}/${w.max.id}`, w.max, { admin: true }, 403, "User does not have access to this resource."],
    [`${users}/${w.max.id}`, w.stranger, { admin: true }, 403, "User does not have access to this resource."],
  ];
  for (const [path, who, body, status, message] of cases) {
    const res = await sys.api("PUT", path, { auth: who.auth, body });
    t.equal(res.status, status, `${path} ${JSON.stringify(body)}`);
    t.equal(res.body, message);
  }
  const strangersMembership = Number((await db("workspace_users").where({ workspace_id: w.stranger.workspaceId, user_id: w.stranger.id }).first("id")).id);
  const foreign = await sys.api("PUT", `/api/v9/workspaces/${w.workspace}/workspace_users/${strangersMembership}`, { auth: w.olga.auth, body: { admin: false } });
  t.equal(foreign.status, 400, "a membership of another workspace is not found through this one");
  t.equal(Boolean((await db("workspace_users").where({ id: strangersMembership }).first()).admin), true);
});

t.test("DELETE .../workspace_users/{id} removes a member from the workspace (not its owner or organization admins)", async (t) => {
  const leaver = await sys.signup("gleaver");
  await addMember(db, w.organizationId, leaver);
  const id = await wuId(leaver);
  const before = (await accountEvents(db)).length;
  const refused = await sys.api("DELETE", `/api/v9/workspaces/${w.workspace}/workspace_users/${id}`, { auth: w.max.auth });
  t.equal(refused.status, 403);
  t.equal(refused.body, workspaceUserNotAccessible().rawMessage);
  t.equal((await sys.api("DELETE", `/api/v9/workspaces/${w.workspace}/workspace_users/${id}`, { auth: w.stranger.auth })).status, 403);

  const res = await sys.api("DELETE", `/api/v9/workspaces/${w.workspace}/workspace_users/${id}`, { auth: w.wendy.auth });
  t.equal(res.status, 200, res.text);
  t.equal(res.text, "");
  t.equal(await db("workspace_users").where({ id }).first(), undefined);
  const events = (await accountEvents(db)).slice(before);
  t.equal(events.length, 1);
  t.equal(events[0].action, "deleted");
  t.equal((await db("users").where({ id: leaver.id }).first("default_workspace_id")).default_workspace_id, leaver.workspaceId, "its own default workspace is kept");

  const gone = await sys.api("DELETE", `/api/v9/workspaces/${w.workspace}/workspace_users/${id}`, { auth: w.wendy.auth });
  t.equal(gone.status, 403);
  t.equal(gone.body, workspaceUserNotAccessible().rawMessage);
  const owner = await sys.api("DELETE", `/api/v9/workspaces/${w.workspace}/workspace_users/${await wuId(w.olga)}`, { auth: w.wendy.auth });
  t.equal(owner.status, 400);
  t.equal(owner.body, workspaceOwnerNotRemovable().rawMessage);
  const admin = await sys.api("DELETE", `/api/v9/workspaces/${w.workspace}/workspace_users/${await wuId(w.ada)}`, { auth: w.wendy.auth });
  t.equal(admin.body, organizationAdminNotRemovable().rawMessage);
});
