import t from "tap";
import togglClient, { type TogglClient, type TogglClientEntity } from "toggl-client";
import { startTestSystem, type TestSystem, type TrackUser } from "../support/harness.js";

// The npm library toggl-client 3.5.0 (saintedlama/toggl-client), as published, against this system.
//
// Its constructor builds one got instance, got.extend({ prefixUrl: "https://api.track.toggl.com/api/v9",
// username: <api token>, password: "api_token", throwHttpErrors: false }), and takes no option or
// environment variable for the host; every method goes through TogglClient.request, which calls
// this.httpClient(path, options). The one thing changed is that instance's prefixUrl: got's own
// extend() derives a client whose prefix is the gateway's /api/v9 and which keeps the library's
// credentials and options. Paths, bodies, statuses and parsing stay the library's.
//
// Served and tested below: user.current, update, resetToken; workspaces.list, get, update, users,
// clients, groups, projects, tasks, tags; projects.create, get, list, update, delete, tasks;
// projectUsers.create, get, update, delete; tags.create, update, delete; timeEntries.start, create,
// current, stop, list, get, update; and the library's generic get/post/put/delete for calls it has
// no named method for (a workspace's clients, tasks, deleting a time entry at its v9 path).
// Where the library expects what no v9 API answers, the test shows the v9 answer is passed through:
// workspaces.get reads a v8 `data` envelope (undefined), workspaces.update wraps its changes in
// `workspace` (ignored), workspaces.tasks is a page object, timeEntries.delete calls the v8 path
// /time_entries/{id} (404, as from the real API).
// The report methods (reports.weekly, details, summary) carry their own prefixUrl
// https://api.track.toggl.com/reports/api/v3: toggl-client-reports.test.ts redirects that one too.
// Paths of the v8 API that the v9 API does not have (the real service answers 404 to them as well):
//   clients.list, create, get, update, delete, projects (/api/v9/clients...); groups.create, update,
//   delete (/api/v9/groups...).

const sys: TestSystem = await startTestSystem(t);

/** The library, unchanged, with its requests sent to this system's gateway. */
function toggl(apiToken: string): TogglClient {
  const client = togglClient({ apiToken });
  client.httpClient = client.httpClient.extend({ prefixUrl: `${sys.url}/api/v9` });
  return client;
}

async function signedUp(name: string): Promise<{ user: TrackUser; client: TogglClient }> {
  const user = await sys.signup(name);
  return { user, client: toggl(user.apiToken) };
}

t.test("user.current answers the caller's account with its API token", async (t) => {
  const { user, client } = await signedUp("ann");
  const me = await client.user.current();
  t.match(me, { id: user.id, email: user.email, fullname: "ann", timezone: "UTC", default_workspace_id: user.workspaceId, api_token: user.apiToken, has_password: true });
  t.match(me.at, /^\d{4}-\d\d-\d\dT/);
});

t.test("user.update changes the profile and answers the changed user", async (t) => {
  const { user, client } = await signedUp("bob");
  const email = `Bob.${user.id}@Example.com`;
  const updated = await client.user.update({ fullname: "Bob Builder", email, timezone: "Europe/Paris" });
  t.match(updated, { id: user.id, fullname: "Bob Builder", email: email.toLowerCase(), timezone: "Europe/Paris", api_token: user.apiToken });
  t.same(await client.user.current(), updated);
});

t.test("user.update with the current password changes the password and keeps the caller's token", async (t) => {
  const { user, client } = await signedUp("cy");
  const password = "a new and longer one";
  const updated = await client.user.update({ current_password: user.password, password });
  t.match(updated, { id: user.id, email: user.email });
  t.equal((await sys.api("GET", "/api/v9/me/logged", { auth: { basic: [user.email, password] } })).status, 200);
  t.equal((await sys.api("GET", "/api/v9/me/logged", { auth: { basic: [user.email, user.password] } })).status, 403);
  t.equal((await client.user.current()).id, user.id);
});

t.test("user.resetToken answers the new token, and the library's old token is refused", async (t) => {
  const { user, client } = await signedUp("dee");
  const token = await client.user.resetToken();
  t.match(token, /^[0-9a-f]{32}$/);
  t.not(token, user.apiToken);
  await t.rejects(client.user.current(), { message: 'Toggl API responded with status code 403. Response: "Incorrect username and/or password"' });
  t.match(await toggl(token).user.current(), { id: user.id, api_token: token });
});

t.test("workspaces.list answers the caller's workspace with the fields the library documents", async (t) => {
  const { user, client } = await signedUp("eve");
  const workspaces = await client.workspaces.list();
  t.equal(workspaces.length, 1);
  t.match(workspaces[0], {
    id: user.workspaceId,
    name: "eve's workspace",
    premium: false,
    admin: true,
    default_hourly_rate: 0,
    default_currency: "USD",
    only_admins_may_create_projects: false,
    only_admins_see_billable_rates: false,
    only_admins_see_team_dashboard: false,
    rounding: 0,
    rounding_minutes: 0,
    at: /^\d{4}-\d\d-\d\dT/,
  });
});

t.test("workspaces.clients answers the workspace's clients by name", async (t) => {
  const { user, client } = await signedUp("fay");
  t.same(await client.workspaces.clients(user.workspaceId), []);
  for (const name of ["beta", "Alpha"]) {
    const res = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name } });
    t.equal(res.status, 200, res.text);
  }
  const clients = await client.workspaces.clients(user.workspaceId);
  t.same(clients.map((c) => c.name), ["Alpha", "beta"]);
  for (const c of clients) t.match(c, { id: Number, wid: user.workspaceId, archived: false, notes: null, creator_id: user.id });
});

t.test("the library's request methods create, get, update and delete a workspace's client", async (t) => {
  const { user, client } = await signedUp("gus");
  const base = `workspaces/${user.workspaceId}/clients`;
  const created = (await client.post(base, { name: "Acme", notes: "big one" })) as TogglClientEntity;
  t.match(created, { id: Number, wid: user.workspaceId, name: "Acme", notes: "big one", archived: false, creator_id: user.id });
  t.same(await client.get(`${base}/${created.id}`), created);
  const renamed = (await client.put(`${base}/${created.id}`, { name: "Acme Corp" })) as TogglClientEntity;
  t.match(renamed, { id: created.id, name: "Acme Corp", notes: "big one" });
  t.same(await client.workspaces.clients(user.workspaceId), [renamed]);
  // The empty 200 answer of DELETE is parsed by the library as {}.
  t.same(await client.delete(`${base}/${created.id}`), {});
  await t.rejects(client.get(`${base}/${created.id}`), { message: /^Toggl API responded with status code 404\. / });
  t.same(await client.workspaces.clients(user.workspaceId), []);
});

t.test("a wrong token is refused with the reference's message, which the library passes on", async (t) => {
  await t.rejects(toggl("0".repeat(32)).user.current(), {
    message: 'Toggl API responded with status code 403. Response: "Incorrect username and/or password"',
  });
});

t.test("workspaces.users and workspaces.groups answer the workspace's members and groups", async (t) => {
  const { user, client } = await signedUp("hal");
  t.same(await client.workspaces.users(user.workspaceId), [
    { email: user.email, fullname: "hal", id: user.id, inactive: false, is_active: true, is_admin: true, role: "admin" },
  ]);
  t.same(await client.workspaces.groups(user.workspaceId), []);
  const organization = (await sys.api("GET", "/api/v9/me/organizations", { auth: user.auth })).body[0].id;
  const created = await sys.api("POST", `/api/v9/organizations/${organization}/groups`, { auth: user.auth, body: { name: "Crew", users: [user.id], workspaces: [user.workspaceId] } });
  t.equal(created.status, 200, created.text);
  const groups = await client.workspaces.groups(user.workspaceId);
  t.match(groups, [{ name: "Crew" }]);
});

t.test("workspaces.get and workspaces.update: the library's v8 habits against the v9 answers", async (t) => {
  const { user, client } = await signedUp("ida");
  // The library reads a v8 `data` envelope, which v9 answers (ours and the real one) do not have.
  t.equal(await client.workspaces.get(user.workspaceId), undefined);
  // It wraps the changes in `workspace`, which v9 does not read: the workspace comes back unchanged.
  const answered = (await client.workspaces.update(user.workspaceId, { name: "renamed" })) as TogglClientEntity;
  t.match(answered, { id: user.workspaceId, name: "ida's workspace", admin: true });
});

t.test("projects.create, get, list, update, tasks and delete; workspaces.projects and workspaces.tasks", async (t) => {
  const { user, client } = await signedUp("jo");
  const wid = user.workspaceId;
  const created = await client.projects.create(wid, { name: "Apollo", color: "#06aaf5", is_private: false });
  t.match(created, { id: Number, workspace_id: wid, wid, name: "Apollo", color: "#06aaf5", is_private: false, active: true, status: "active", client_id: null });
  t.same(await client.projects.get(wid, created.id), created);
  t.same((await client.projects.list(wid)).map((p) => p.id), [created.id]);
  t.same((await client.workspaces.projects(wid)).map((p) => p.id), [created.id]);
  const renamed = await client.projects.update(wid, created.id, { name: "Apollo 11", client_name: "NASA" });
  t.match(renamed, { id: created.id, name: "Apollo 11", client_id: Number });
  t.same(await client.projects.tasks(wid, created.id), []);
  const task = (await client.post(`workspaces/${wid}/projects/${created.id}/tasks`, { name: "Launch" })) as TogglClientEntity;
  t.match(task, { id: Number, name: "Launch", project_id: created.id, workspace_id: wid, active: true });
  t.same((await client.projects.tasks(wid, created.id)).map((x) => x.id), [task.id]);
  // The v9 answer is a page ({data, page, ...}), not the array the library's JSDoc promises; it is passed through.
  const page = (await client.workspaces.tasks(wid)) as unknown as { data: TogglClientEntity[]; total_count: number };
  t.same(page.data.map((x) => x.id), [task.id]);
  t.equal(page.total_count, 1);
  t.equal(await client.projects.delete(wid, created.id), undefined);
  await t.rejects(client.projects.get(wid, created.id), { message: /^Toggl API responded with status code 400\. Response: "Invalid project_id"/ });
  t.same(await client.workspaces.projects(wid), []);
});

t.test("tags.create, update and delete; workspaces.tags", async (t) => {
  const { user, client } = await signedUp("kim");
  const wid = user.workspaceId;
  const tag = await client.tags.create(wid, { name: "urgent" });
  t.match(tag, { id: Number, workspace_id: wid, name: "urgent", creator_id: user.id });
  const renamed = await client.tags.update(wid, tag.id, { name: "critical" });
  t.match(renamed, { id: tag.id, name: "critical" });
  t.same((await client.workspaces.tags(wid)).map((x) => x.name), ["critical"]);
  t.equal(await client.tags.delete(wid, tag.id), undefined);
  t.same(await client.workspaces.tags(wid), []);
  await t.rejects(client.tags.create(wid, { name: "" }), { message: "The tag must include name" });
});

t.test("projectUsers.create, get, update and delete", async (t) => {
  const { user, client } = await signedUp("lou");
  const wid = user.workspaceId;
  const project = await client.projects.create(wid, { name: "Shared" });
  // The creator is the project's first (managing) user.
  const initial = await client.projectUsers.get(wid);
  t.match(initial, [{ project_id: project.id, user_id: user.id, manager: true }]);
  t.equal(await client.projectUsers.delete(wid, initial[0].id), undefined);
  t.same(await client.projectUsers.get(wid), []);
  const added = await client.projectUsers.create(wid, { project_id: project.id, user_id: user.id, manager: false });
  t.match(added, { id: Number, project_id: project.id, user_id: user.id, workspace_id: wid, manager: false });
  const promoted = await client.projectUsers.update(wid, added.id, { manager: true });
  t.match(promoted, { id: added.id, manager: true });
  t.same((await client.projectUsers.get(wid)).map((p) => p.id), [added.id]);
  await t.rejects(client.projectUsers.create(wid, { project_id: project.id, user_id: user.id }), { message: /status code 400/ });
});

t.test("timeEntries.start, current, stop, create, list, get, update; delete's v8 path is refused as by the real API", async (t) => {
  const { user, client } = await signedUp("max");
  const wid = user.workspaceId;
  t.equal(await client.timeEntries.current(), null, "nothing runs: 200 with null");
  const start = new Date(Date.now() - 60_000);
  start.setMilliseconds(0);
  const running = await client.timeEntries.start({ workspace_id: wid, start: start.toISOString(), duration: -1, description: "writing" });
  t.match(running, { id: Number, workspace_id: wid, wid, user_id: user.id, uid: user.id, description: "writing", stop: null, duration: -Math.floor(start.getTime() / 1000), created_with: undefined });
  t.same((await client.timeEntries.current())?.id, running.id);
  const stopped = await client.timeEntries.stop({ id: running.id, workspace_id: wid });
  t.match(stopped, { id: running.id, stop: /^\d{4}-/ });
  t.ok((stopped.duration as number) >= 60, "a minute or more");
  t.equal(await client.timeEntries.current(), null);

  const made = await client.timeEntries.create({ workspace_id: wid, start: "2026-11-02T09:00:00Z", duration: 3600, description: "meeting", tags: ["calls"] });
  t.match(made, { id: Number, start: /^2026-11-02T09:00:00/, stop: /^2026-11-02T10:00:00/, duration: 3600, tags: ["calls"] });
  const listed = await client.timeEntries.list({ start_date: "2026-11-01", end_date: "2026-11-03" });
  t.same(listed.map((e) => e.id), [made.id]);
  t.match(await client.timeEntries.get(running.id), { id: running.id, description: "writing" }, "get reads the last three months");
  const updated = await client.timeEntries.update(made.id, { workspace_id: wid, description: "stand-up" });
  t.match(updated, { id: made.id, description: "stand-up", duration: 3600 });
  // The library deletes at the v8 path /time_entries/{id}, which v9 does not have (the real API answers 404 too).
  await t.rejects(client.timeEntries.delete(made.id), { message: /status code 404/ });
  const deleted = await client.delete(`workspaces/${wid}/time_entries/${made.id}`);
  t.same(deleted, {});
  t.same((await client.timeEntries.list({ start_date: "2026-11-01", end_date: "2026-11-03" })).map((e) => e.id), []);
});
