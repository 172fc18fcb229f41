import t from "tap";
import { startTestSystem, type TrackUser } from "../../../test/support/harness.js";
import { ManualClock } from "../../../lib/clock.js";
import { ProjectGroupSchema } from "../../../gen/tracking/v1/project_groups_pb.js";
import { ownOrganization } from "../../accounts/test/organization-support.js";
import { eventObject, expectRefusals, trackingWorld } from "./tracking-support.js";
import { invalidGroup, invalidProject, invalidValue, projectGroupNotFound, projectGroupTaken, projectIdsMissing } from "../errors.js";

const clock = new ManualClock(new Date("2025-03-01T10:00:00Z"));
const sys = await startTestSystem(t, { clock });
const world = await trackingWorld(t, sys, clock);
const { owner } = world;
const member = await world.join("member");
const stranger = await sys.signup("stranger");
const base = `/api/v9/workspaces/${owner.workspaceId}/project_groups`;

async function createGroup(user: TrackUser, organizationId: number, name: string): Promise<number> {
  const res = await sys.api("POST", `/api/v9/organizations/${organizationId}/groups`, { auth: user.auth, body: { name } });
  if (res.status !== 200) throw new Error(`create group: ${res.status} ${res.text}`);
  return res.body.group_id;
}

const crew = await createGroup(owner, world.organizationId, "Crew");
const pilots = await createGroup(owner, world.organizationId, "Pilots");
const foreign = await createGroup(stranger, await ownOrganization(sys, stranger), "Foreign");

async function assign(projectId: bigint, groupId: number, user: TrackUser = owner) {
  const res = await sys.api("POST", base, { auth: user.auth, body: { project_id: projectId, group_id: groupId } });
  if (res.status !== 200) throw new Error(`assign group: ${res.status} ${res.text}`);
  return res.body;
}

async function list(projectIds: bigint[], user: TrackUser = owner) {
  const res = await sys.api("GET", `${base}?project_ids=${projectIds.join(",")}`, { auth: user.auth });
  if (res.status !== 200) throw new Error(`list project groups: ${res.status} ${res.text}`);
  return res.body;
}

t.test("create answers the project group link with the reference's fields", async (t) => {
  const project = await world.project("Apollo");
  const link = await assign(project.id, crew);
  t.same(link, { id: link.id, group_id: crew, pid: project.id, wid: owner.workspaceId });
  t.same(await list([project.id]), [link], "the list answers the same shape");
});

t.test("create refuses unknown projects, groups of other organizations and repeats", async (t) => {
  const project = await world.project("Gemini");
  const gone = await world.project("Mercury", { server_deleted_at: clock.now() });
  await assign(project.id, crew);
  await expectRefusals(t, sys, { method: "POST", path: base, auth: owner.auth }, [
    [{ project_id: 999999, group_id: crew }, invalidProject().rawMessage],
    [{ project_id: gone.id, group_id: crew }, invalidProject().rawMessage],
    [{ group_id: crew }, invalidProject().rawMessage],
    [{ project_id: project.id, group_id: foreign }, invalidGroup().rawMessage],
    [{ project_id: project.id, group_id: 999999 }, invalidGroup().rawMessage],
    [{ project_id: project.id }, invalidGroup().rawMessage],
    [{ project_id: project.id, group_id: crew }, projectGroupTaken().rawMessage],
    [{ project_id: project.id, group_id: "crew" }, "Invalid value for group_id: expected integer, got string"],
  ]);
  t.same((await list([project.id])).map((l: { group_id: number }) => l.group_id), [crew]);
});

t.test("the list needs project_ids and answers only those projects' groups", async (t) => {
  const a = await world.project("List A");
  const b = await world.project("List B");
  const c = await world.project("List C");
  const a1 = await assign(a.id, crew);
  const a2 = await assign(a.id, pilots);
  const b1 = await assign(b.id, pilots);
  await assign(c.id, crew);
  t.same(await list([a.id, b.id]), [a1, a2, b1]);
  for (const [query, message] of [
    ["", projectIdsMissing().rawMessage],
    ["?project_ids=", projectIdsMissing().rawMessage],
    ["?project_ids=x", invalidValue("project_ids").rawMessage],
    [`?project_ids=${Array.from({ length: 201 }, (_, i) => i + 1).join(",")}`, "project_ids cannot exceed 200 elements"],
  ]) {
    const res = await sys.api("GET", `${base}${query}`, { auth: owner.auth });
    t.equal(res.status, 400, query.slice(0, 30));
    t.equal(res.body, message);
  }
});

t.test("delete removes the link; a second delete is 404", async (t) => {
  const project = await world.project("Vostok");
  const link = await assign(project.id, crew);
  const res = await sys.api("DELETE", `${base}/${link.id}`, { auth: owner.auth });
  t.equal(res.status, 200);
  t.equal(res.text, "");
  t.same(await list([project.id]), []);
  const again = await sys.api("DELETE", `${base}/${link.id}`, { auth: owner.auth });
  t.equal(again.status, 404);
  t.equal(again.body, projectGroupNotFound().rawMessage);
  t.equal((await sys.api("DELETE", `${base}/abc`, { auth: owner.auth })).status, 400);
});

t.test("plain members see public projects' groups; only admins and managers change them", async (t) => {
  const project = await world.project("Soyuz");
  const secret = await world.project("Secret", { is_private: true });
  const link = await assign(project.id, crew);
  await assign(secret.id, crew);
  t.same(await list([project.id, secret.id], member), [link], "a private project's groups are its members' business");
  for (const [method, path, body] of [
    ["POST", base, { project_id: project.id, group_id: pilots }],
    ["DELETE", `${base}/${link.id}`, undefined],
  ] as const) {
    const res = await sys.api(method, path, { auth: member.auth, body });
    t.equal(res.status, 403, `${method} ${path}`);
    t.equal(res.body, "User does not have access to this resource.");
  }
  await sys.api("POST", `/api/v9/workspaces/${owner.workspaceId}/project_users`, { auth: owner.auth, body: { project_id: project.id, user_id: member.id, manager: true } });
  const managed = await assign(project.id, pilots, member);
  t.equal(managed.group_id, pilots, "a manager of the project may");
  t.equal((await sys.api("DELETE", `${base}/${managed.id}`, { auth: member.auth })).status, 200);
});

t.test("a user outside the workspace gets 403 and changes nothing", async (t) => {
  const project = await world.project("Isolated");
  const link = await assign(project.id, crew);
  for (const [method, path, body] of [
    ["GET", `${base}?project_ids=${project.id}`, undefined],
    ["POST", base, { project_id: project.id, group_id: foreign }],
    ["DELETE", `${base}/${link.id}`, undefined],
  ] as const) {
    const res = await sys.api(method, path, { auth: stranger.auth, body });
    t.equal(res.status, 403, `${method} ${path}`);
  }
  const theirs = `/api/v9/workspaces/${stranger.workspaceId}/project_groups`;
  t.equal((await sys.api("DELETE", `${theirs}/${link.id}`, { auth: stranger.auth })).status, 404);
  t.same((await sys.api("GET", `${theirs}?project_ids=${project.id}`, { auth: stranger.auth })).body, []);
  t.same(await list([project.id]), [link]);
});

t.test("create and delete are emitted as project_group events", async (t) => {
  const project = await world.project("Evented");
  const link = await assign(project.id, pilots);
  await sys.api("DELETE", `${base}/${link.id}`, { auth: owner.auth });
  const events = (await world.events("project_group")).filter((e) => e.objectId === String(link.id));
  t.same(events.map((e) => e.action), ["created", "deleted"]);
  t.same(eventObject(events[0], ProjectGroupSchema).pid, project.id);
  t.same(eventObject(events[1], ProjectGroupSchema).groupId, BigInt(pilots));
});

t.test("a member who manages a private project changes its tasks where groups are assigned to projects (the viewer is read before the change)", async (t) => {
  const project = await world.project("Skunkworks", { is_private: true });
  await assign(project.id, pilots);
  const manager = await sys.api("POST", `/api/v9/workspaces/${owner.workspaceId}/project_users`, { auth: owner.auth, body: { project_id: project.id, user_id: member.id, manager: true } });
  t.equal(manager.status, 200, manager.text);
  const task = await sys.api("POST", `/api/v9/workspaces/${owner.workspaceId}/projects/${project.id}/tasks`, { auth: member.auth, body: { name: "Blueprint" } });
  t.equal(task.status, 200, task.text);
  const seen = await sys.api("GET", `/api/v9/workspaces/${owner.workspaceId}/projects/${project.id}`, { auth: member.auth });
  t.equal(seen.body.name, "Skunkworks");
});
