import t from "tap";
import { startTestSystem, type TestSystem, type TrackUser } from "../../../test/support/harness.js";
import { IdentityService } from "../../../gen/accounts/v1/accounts_pb.js";
import { ManualClock } from "../../../lib/clock.js";
import { clientMissing, clientNameEmpty, clientStatusInvalid, nameTaken, restoreChoiceAmbiguous, widMismatch } from "../errors.js";

// A clock the test moves: the tracking service remembers access answers for 5 s of it.
const clock = new ManualClock(new Date());
const sys: TestSystem = await startTestSystem(t, { clock });
const owner: TrackUser = await sys.signup("owner");
const stranger: TrackUser = await sys.signup("stranger");
const base = `/api/v9/workspaces/${owner.workspaceId}/clients`;

async function createClient(name: string, notes?: string) {
  const res = await sys.api("POST", base, { auth: owner.auth, body: { name, notes } });
  t.equal(res.status, 200, res.text);
  return res.body;
}

async function listNames(query = ""): Promise<string[]> {
  const res = await sys.api("GET", `${base}${query}`, { auth: owner.auth });
  t.equal(res.status, 200, res.text);
  return res.body.map((c: { name: string }) => c.name);
}

t.test("create answers the client with every field of the specification", async (t) => {
  const c = await createClient("Acme Corp", "big one");
  t.match(c, { id: Number, wid: owner.workspaceId, name: "Acme Corp", notes: "big one", archived: false, creator_id: owner.id });
  t.match(c.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  t.equal(c.server_deleted_at, null);
  t.same(Object.keys(c).sort(), ["archived", "at", "creator_id", "id", "name", "notes", "permissions", "server_deleted_at", "wid"]);
  const got = await sys.api("GET", `${base}/${c.id}`, { auth: owner.auth });
  t.same(got.body, c);
});

t.test("notes left out are null", async (t) => {
  const c = await createClient("No Notes Ltd");
  t.equal(c.notes, null);
});

t.test("create rejects bad names and changes nothing", async (t) => {
  const before = await listNames("?status=both");
  for (const [body, message] of [
    [{ name: "" }, clientNameEmpty().rawMessage],
    [{ name: "   " }, clientNameEmpty().rawMessage],
    [{}, clientNameEmpty().rawMessage],
    [{ name: "x".repeat(101) }, "Client name maximum length is 100"],
    [{ name: 42 }, "Invalid value for name: expected string, got number"],
    [{ name: "Acme Corp" }, nameTaken().rawMessage],
    [{ name: "Other", wid: owner.workspaceId + 1000 }, widMismatch().rawMessage],
  ] as const) {
    const res = await sys.api("POST", base, { auth: owner.auth, body });
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body, message);
  }
  const malformed = await sys.api("POST", base, { auth: owner.auth, rawBody: "{not json", headers: { "content-type": "application/json" } });
  t.equal(malformed.status, 400);
  t.equal(malformed.body, "Invalid JSON input");
  const huge = await sys.api("POST", base, { auth: owner.auth, body: { name: "big", notes: "x".repeat(1024 * 1024) } });
  t.equal(huge.status, 413);
  t.same(await listNames("?status=both"), before);
});

t.test("list filters by name, case-insensitively, and by status", async (t) => {
  await createClient("Globex");
  await createClient("globe trotters");
  t.same(await listNames("?name=GLOBE"), ["globe trotters", "Globex"], "sorted by name, ignoring case");
  t.same(await listNames("?name=%25"), [], "a % in the filter is a literal");
  const bad = await sys.api("GET", `${base}?status=deleted`, { auth: owner.auth });
  t.equal(bad.status, 400);
  t.equal(bad.body, clientStatusInvalid().rawMessage);
});

t.test("update changes name and notes", async (t) => {
  const c = await createClient("Initech");
  const res = await sys.api("PUT", `${base}/${c.id}`, { auth: owner.auth, body: { name: "Initech 2", notes: "renamed" } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { id: c.id, name: "Initech 2", notes: "renamed" });
  const keep = await sys.api("PUT", `${base}/${c.id}`, { auth: owner.auth, body: { notes: "only notes" } });
  t.match(keep.body, { name: "Initech 2", notes: "only notes" });
  const empty = await sys.api("PUT", `${base}/${c.id}`, { auth: owner.auth, body: { name: "" } });
  t.equal(empty.status, 400);
  t.equal(empty.body, clientNameEmpty().rawMessage);
  const missing = await sys.api("PUT", `${base}/999999`, { auth: owner.auth, body: { name: "x" } });
  t.equal(missing.status, 404);
  t.equal(missing.body, clientMissing().rawMessage);
});

t.test("get and delete of an unknown client answer 404 with the specification's message", async (t) => {
  for (const method of ["GET", "DELETE"]) {
    const res = await sys.api(method, `${base}/424242`, { auth: owner.auth });
    t.equal(res.status, 404);
    t.equal(res.body, "No client with ID 424242 was found");
  }
  const bad = await sys.api("GET", `${base}/abc`, { auth: owner.auth });
  t.equal(bad.status, 400);
});

t.test("delete removes the client", async (t) => {
  const c = await createClient("Short Lived");
  const res = await sys.api("DELETE", `${base}/${c.id}`, { auth: owner.auth });
  t.equal(res.status, 200);
  t.equal(res.text, "");
  t.equal((await sys.api("GET", `${base}/${c.id}`, { auth: owner.auth })).status, 404);
});

t.test("archive needs a premium workspace (402), then archives; restore brings it back", async (t) => {
  const c = await createClient("Seasonal");
  const free = await sys.api("POST", `${base}/${c.id}/archive`, { auth: owner.auth });
  t.equal(free.status, 402);
  t.equal((await sys.api("GET", `${base}/${c.id}`, { auth: owner.auth })).body.archived, false, "a refused archive changes nothing");
  await sys.directory.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(owner.workspaceId), premium: true });
  t.teardown(async () => {
    await sys.directory.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(owner.workspaceId), premium: false });
    clock.advance(5_001);
  });
  t.equal((await sys.api("POST", `${base}/${c.id}/archive`, { auth: owner.auth })).status, 402, "the plan is remembered for a few seconds");
  clock.advance(5_001);
  const archived = await sys.api("POST", `${base}/${c.id}/archive`, { auth: owner.auth });
  t.equal(archived.status, 200, archived.text);
  t.same(archived.body, []);
  t.notOk((await listNames()).includes("Seasonal"), "archived clients are not listed by default");
  t.ok((await listNames("?status=archived")).includes("Seasonal"));
  t.ok((await listNames("?status=both")).includes("Seasonal"));
  const bad = await sys.api("POST", `${base}/${c.id}/restore`, { auth: owner.auth, body: { projects: [1], restore_all_projects: true } });
  t.equal(bad.status, 400);
  t.equal(bad.body, restoreChoiceAmbiguous().rawMessage);
  const restored = await sys.api("POST", `${base}/${c.id}/restore`, { auth: owner.auth, body: { restore_all_projects: true } });
  t.equal(restored.status, 200, restored.text);
  t.match(restored.body, { id: c.id, archived: false });
  const noBody = await sys.api("POST", `${base}/${c.id}/restore`, { auth: owner.auth });
  t.equal(noBody.status, 200, "a restore without a body is accepted");
});

t.test("a user outside the workspace gets 403 and learns nothing", async (t) => {
  const c = await createClient("Secret Client");
  const paths: [string, string, unknown?][] = [
    ["GET", base],
    ["POST", base, { name: "Intruder" }],
    ["GET", `${base}/${c.id}`],
    ["PUT", `${base}/${c.id}`, { name: "Hijacked" }],
    ["DELETE", `${base}/${c.id}`],
    ["POST", `${base}/${c.id}/archive`],
    ["POST", `${base}/${c.id}/restore`, {}],
    ["GET", `${base}/999999`],
    ["GET", `/api/v9/workspaces/999999/clients`],
  ];
  for (const [method, path, body] of paths) {
    const res = await sys.api(method, path, { auth: stranger.auth, body });
    t.equal(res.status, 403, `${method} ${path}`);
    t.equal(res.body, "Forbidden");
  }
  const still = await sys.api("GET", `${base}/${c.id}`, { auth: owner.auth });
  t.match(still.body, { name: "Secret Client" }, "nothing changed");
  t.notOk((await listNames()).includes("Intruder"));
});

t.test("requests without valid credentials get 403", async (t) => {
  for (const auth of [undefined, { basic: ["nobody@example.com", "wrong"] as [string, string] }, { basic: ["deadbeef", "api_token"] as [string, string] }, { cookie: "__Secure-accounts-session=forged" }]) {
    const res = await sys.api("GET", base, { auth });
    t.equal(res.status, 403, JSON.stringify(auth));
    t.type(res.body, "string");
  }
});

t.test("archiving a client archives its projects and answers their ids; restore brings back the named ones or all", async (t) => {
  const projectsBase = `/api/v9/workspaces/${owner.workspaceId}/projects`;
  const project = async (body: Record<string, unknown>) => {
    const res = await sys.api("POST", projectsBase, { auth: owner.auth, body });
    if (res.status !== 200) throw new Error(res.text);
    return res.body as { id: number; active: boolean };
  };
  const active = async (id: number) => (await sys.api("GET", `${projectsBase}/${id}`, { auth: owner.auth })).body.active;
  const c = await createClient("Cascade Client");
  const other = await createClient("Bystander Client");
  const p1 = await project({ name: "Cascade One", client_id: c.id });
  const p2 = await project({ name: "Cascade Two", client_id: c.id });
  const shelved = await project({ name: "Cascade Shelved", client_id: c.id, active: false });
  const bystander = await project({ name: "Bystander", client_id: other.id });
  await sys.directory.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(owner.workspaceId), premium: true });
  clock.advance(5_001);
  t.teardown(async () => {
    await sys.directory.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(owner.workspaceId), premium: false });
    clock.advance(5_001);
  });
  const archived = await sys.api("POST", `${base}/${c.id}/archive`, { auth: owner.auth });
  t.equal(archived.status, 200, archived.text);
  t.same(archived.body, [p1.id, p2.id], "the ids of the projects it archived");
  t.equal(await active(p1.id), false);
  t.equal(await active(p2.id), false);
  t.equal(await active(bystander.id), true, "another client's project is untouched");
  const foreign = await sys.api("POST", `${base}/${c.id}/restore`, { auth: owner.auth, body: { projects: [bystander.id] } });
  t.equal(foreign.status, 400);
  t.equal(foreign.body, `Project ${bystander.id} is not a project of client ${c.id}`);
  t.equal(await active(p1.id), false, "a refused restore changes nothing");
  t.equal((await sys.api("GET", `${base}/${c.id}`, { auth: owner.auth })).body.archived, true);
  const named = await sys.api("POST", `${base}/${c.id}/restore`, { auth: owner.auth, body: { projects: [p1.id] } });
  t.equal(named.status, 200, named.text);
  t.equal(named.body.archived, false);
  t.equal(await active(p1.id), true);
  t.equal(await active(p2.id), false, "only the named project");
  await sys.api("POST", `${base}/${c.id}/archive`, { auth: owner.auth });
  const all = await sys.api("POST", `${base}/${c.id}/restore`, { auth: owner.auth, body: { restore_all_projects: true } });
  t.equal(all.status, 200, all.text);
  for (const p of [p1, p2, shelved]) t.equal(await active(p.id), true, "all the client's projects, archived before it too");
  const again = await sys.api("POST", `${base}/${c.id}/archive`, { auth: owner.auth });
  t.same(again.body.sort(), [p1.id, p2.id, shelved.id].sort());
  const twice = await sys.api("POST", `${base}/${c.id}/archive`, { auth: owner.auth });
  t.same(twice.body, [], "nothing left to archive");
});

t.test("deleting a client keeps its projects, without client", async (t) => {
  const c = await createClient("Leaving Client");
  const projectsBase = `/api/v9/workspaces/${owner.workspaceId}/projects`;
  const p = (await sys.api("POST", projectsBase, { auth: owner.auth, body: { name: "Orphan", client_id: c.id } })).body;
  t.equal(p.client_id, c.id);
  t.equal((await sys.api("DELETE", `${base}/${c.id}`, { auth: owner.auth })).status, 200);
  const after = await sys.api("GET", `${projectsBase}/${p.id}`, { auth: owner.auth });
  t.equal(after.status, 200);
  t.equal(after.body.client_id, null);
});
