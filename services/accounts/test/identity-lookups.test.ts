import t from "tap";
import { Code, ConnectError } from "@connectrpc/connect";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { accountsDb, addMember, ownOrganization } from "./organization-support.js";

/** The questions other services ask the accounts service: members, groups, a user's profile, a workspace's rules. */

const sys: TestSystem = await startTestSystem(t);
const db = await accountsDb(t, sys);
const owner: TrackUser = await sys.signup("Owner");
const member: TrackUser = await sys.signup("Member");
const stranger: TrackUser = await sys.signup("Stranger");
const organizationId = await ownOrganization(sys, owner);
const wid = BigInt(owner.workspaceId);
await addMember(db, organizationId, member);
const identity = sys.directory.client("accounts", IdentityService);

const group = (name: string, users: TrackUser[]) =>
  sys.api("POST", `/api/v9/organizations/${organizationId}/groups`, { auth: owner.auth, body: { name, users: users.map((u) => u.id), workspaces: [owner.workspaceId] } });

t.test("ListWorkspaceMembers: every member with profile, role and groups; nothing for an unknown workspace", async (t) => {
  const created = await group("Team", [member]);
  t.equal(created.status, 200, created.text);
  const { members } = await identity.listWorkspaceMembers({ workspaceId: wid });
  t.same(members.map((m) => m.userId).sort(), [BigInt(owner.id), BigInt(member.id)].sort());
  const own = members.find((m) => m.userId === BigInt(owner.id))!;
  t.match(own, { admin: true, active: true, role: "admin", groupIds: [] });
  t.ok(own.email.includes("@"), "email");
  const other = members.find((m) => m.userId === BigInt(member.id))!;
  t.match(other, { admin: false, active: true, groupIds: [BigInt(created.body.group_id ?? created.body.id)] });
  t.same((await identity.listWorkspaceMembers({ workspaceId: 999_999_999n })).members, []);
  t.same((await identity.listWorkspaceMembers({ workspaceId: -1n })).members, []);
});

t.test("ResolveGroups: the organization's groups by id, unknown and foreign ids left out", async (t) => {
  const mine = await group("Resolvers", [owner, member]);
  const foreignOrg = await ownOrganization(sys, stranger);
  const foreign = await sys.api("POST", `/api/v9/organizations/${foreignOrg}/groups`, { auth: stranger.auth, body: { name: "Theirs" } });
  const mineId = BigInt(mine.body.group_id ?? mine.body.id);
  const foreignId = BigInt(foreign.body.group_id ?? foreign.body.id);
  const { groups } = await identity.resolveGroups({ workspaceId: wid, groupIds: [mineId, foreignId, 123456789n] });
  t.equal(groups.length, 1);
  t.match(groups[0], { groupId: mineId, name: "Resolvers", workspaceIds: [wid] });
  t.same([...groups[0].userIds].sort(), [BigInt(owner.id), BigInt(member.id)].sort());
  const all = await identity.resolveGroups({ workspaceId: wid, groupIds: [] });
  t.ok(all.groups.length >= 2, "every group of the organization when no id is given");
  t.notOk(all.groups.some((g) => g.groupId === foreignId), "never another organization's");
});

t.test("GetUserProfile: the profile, NotFound for no user", async (t) => {
  const profile = await identity.getUserProfile({ userId: BigInt(member.id) });
  t.match(profile, { userId: BigInt(member.id), fullname: "Member" });
  t.ok(profile.timezone.length > 0, "a time zone");
  for (const userId of [0n, 999_999_999n, -5n]) {
    const err = await identity.getUserProfile({ userId }).catch((e: unknown) => e);
    t.equal(ConnectError.from(err).code, Code.NotFound, `${userId}`);
  }
});

t.test("CheckWorkspaceAccess carries the workspace's rules, which follow its settings", async (t) => {
  const before = await identity.checkWorkspaceAccess({ userId: BigInt(member.id), workspaceId: wid });
  t.match(before.rules, { onlyAdminsMayCreateProjects: false, projectsPrivateByDefault: true, projectsBillableByDefault: true, defaultCurrency: "USD", constraintsEnabled: false });
  await identity.setWorkspacePlan({ workspaceId: wid, premium: true });
  const put = await sys.api("PUT", `/api/v9/workspaces/${wid}`, { auth: owner.auth, body: { only_admins_may_create_projects: true, only_admins_may_create_tags: true, projects_private_by_default: false } });
  t.equal(put.status, 200, put.text);
  const after = await identity.checkWorkspaceAccess({ userId: BigInt(member.id), workspaceId: wid });
  t.match(after.rules, { onlyAdminsMayCreateProjects: true, onlyAdminsMayCreateTags: true, projectsPrivateByDefault: false });
  const constraints = await sys.api("POST", `/api/v9/workspaces/${wid}/time_entry_constraints`, { auth: owner.auth, body: { time_entry_constraints_enabled: true, description_present: true, tag_present: true } });
  t.equal(constraints.status, 200, constraints.text);
  t.match((await identity.checkWorkspaceAccess({ userId: BigInt(owner.id), workspaceId: wid })).rules, { constraintsEnabled: true, descriptionPresent: true, tagPresent: true, projectPresent: false, taskPresent: false });
});
