import t from "tap";
import { ManualClock } from "../../../lib/clock.js";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { accountsDb, addMember, ownOrganization } from "./organization-support.js";
import {
  groupNameMissing, groupNameTaken, workspaceGroupNotFound,
} from "../errors.js";

/** A workspace's groups through the workspace path: groups of its organization, for its admins. */

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
const groupsPath = `/api/v9/workspaces/${w.workspace}/groups`;

t.test("a workspace admin creates a group of the organization, assigned to the workspace", async (t) => {
  const res = await sys.api("POST", groupsPath, { auth: w.wendy.auth, body: { name: "  Designers " } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { name: "Designers", workspace_id: w.workspace, id: Number, at: "2026-03-01T12:00:00.000000Z" });
  const listed = await sys.api("GET", groupsPath, { auth: w.max.auth });
  t.ok(listed.body.some((g: { id: number }) => g.id === res.body.id), "the workspace's groups list it");
  const organization = await sys.api("GET", `/api/v9/organizations/${w.organizationId}/groups`, { auth: w.olga.auth });
  t.match(organization.body.find((g: { group_id: number }) => g.group_id === res.body.id), { name: "Designers", users: [], workspaces: [w.workspace] }, "a group of the organization");
});

t.test("creating a group refuses empty and taken names, members who are no admins and strangers", async (t) => {
  await sys.api("POST", groupsPath, { auth: w.olga.auth, body: { name: "Taken" } });
  const cases: [TrackUser, unknown, number, string][] = [
    [w.wendy, { name: "  " }, 400, groupNameMissing().rawMessage],
    [w.wendy, {}, 400, groupNameMissing().rawMessage],
    [w.wendy, { name: "taken" }, 400, groupNameTaken().rawMessage],
    [w.wendy, { name: "x".repeat(201) }, 400, "Group name too long, maximum length is 200"],
    [w.max, { name: "Mine" }, 403, "User does not have access to this resource"],
    [w.stranger, { name: "Mine" }, 403, "User does not have access to this resource"],
  ];
  for (const [who, body, status, message] of cases) {
    const res = await sys.api("POST", groupsPath, { auth: who.auth, body });
    t.equal(res.status, status, JSON.stringify(body));
    t.equal(res.body, message);
  }
});

t.test("PUT renames a group assigned to the workspace; DELETE removes it from the organization", async (t) => {
  const created = (await sys.api("POST", groupsPath, { auth: w.olga.auth, body: { name: "Temp" } })).body;
  clock.advance(60_000);
  const renamed = await sys.api("PUT", `${groupsPath}/${created.id}`, { auth: w.ada.auth, body: { name: "Permanent" } });
  t.equal(renamed.status, 200, renamed.text);
  t.match(renamed.body, { id: created.id, name: "Permanent", workspace_id: w.workspace, at: "2026-03-01T12:01:00.000000Z" });
  t.equal((await sys.api("PUT", `${groupsPath}/${created.id}`, { auth: w.ada.auth, body: { name: "Taken" } })).body, groupNameTaken().rawMessage);
  t.equal((await sys.api("PUT", `${groupsPath}/${created.id}`, { auth: w.max.auth, body: { name: "Nope" } })).status, 403);

  const deleted = await sys.api("DELETE", `${groupsPath}/${created.id}`, { auth: w.wendy.auth });
  t.equal(deleted.status, 200, deleted.text);
  t.equal(deleted.text, "");
  t.equal(await db("groups").where({ id: created.id }).first(), undefined);
  const again = await sys.api("DELETE", `${groupsPath}/${created.id}`, { auth: w.wendy.auth });
  t.equal(again.status, 404);
  t.equal(again.body, workspaceGroupNotFound().rawMessage);
});

t.test("a group not assigned to the workspace, or of another organization, is not found through it", async (t) => {
  const elsewhere = await sys.api("POST", `/api/v9/organizations/${w.organizationId}/groups`, { auth: w.olga.auth, body: { name: "Unassigned" } });
  t.equal(elsewhere.status, 200, elsewhere.text);
  const strangers = await sys.api("POST", `/api/v9/workspaces/${w.stranger.workspaceId}/groups`, { auth: w.stranger.auth, body: { name: "Theirs" } });
  for (const id of [elsewhere.body.group_id, strangers.body.id, 99999999]) {
    const res = await sys.api("PUT", `${groupsPath}/${id}`, { auth: w.olga.auth, body: { name: "Mine now" } });
    t.equal(res.status, 404, String(id));
    t.equal(res.body, workspaceGroupNotFound().rawMessage);
    t.equal((await sys.api("DELETE", `${groupsPath}/${id}`, { auth: w.olga.auth })).status, 404);
  }
  t.equal((await db("groups").where({ id: strangers.body.id }).first()).name, "Theirs", "another organization's group is untouched");
  const theirPath = `/api/v9/workspaces/${w.stranger.workspaceId}/groups/${strangers.body.id}`;
  t.equal((await sys.api("DELETE", theirPath, { auth: w.olga.auth })).status, 403, "nor reached through their workspace");
});
