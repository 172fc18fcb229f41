import t from "tap";
import { Family, Scope, type Refusal } from "../gen/gateway/v1/annotations_pb.js";
import { PROTO_FILES } from "../lib/contracts.js";
import { SCOPE_FIELD } from "../lib/access.js";
import { NO_ACCESS } from "../lib/errors.js";
import { accountsDb, addMember } from "../services/accounts/test/organization-support.js";
import { collectRoutes, type RestRoute } from "../gateway/routes.js";
import { startTestSystem, type ApiResponse } from "./support/harness.js";
import { createWorkspace } from "../services/hiring/test/support.js";

/**
 * What every route owes, checked on every route of the gateway's table, so that an endpoint
 * is covered the moment it is declared: credentials required (403 time tracking, 401 hiring),
 * no way into another workspace or organization, every requirement its access declaration names
 * (admins only, premium only) answered as declared, and the family's 4xx for malformed ids. Which
 * routes act in a workspace or an organization comes from their declarations, not their paths.
 */

const routes = collectRoutes(PROTO_FILES.flatMap((f) => f.services));
// Many refusals in a row: each request comes as another client behind the (trusted) proxy, so
// the failed-authentication throttle of one address does not answer in the routes' place.
const sys = await startTestSystem(t, { env: { TRUST_PROXY: "loopback" } });
let clientNumber = 0;
const api: typeof sys.api = (method, path, options = {}) =>
  sys.api(method, path, { ...options, headers: { ...options.headers, "x-forwarded-for": `10.${(++clientNumber >> 16) & 255}.${(clientNumber >> 8) & 255}.${clientNumber & 255}` } });
const owner = await sys.signup("owner");
const stranger = await sys.signup("stranger");
const hiring = await createWorkspace(sys, "Routes");
const ownerOrganization: number = (await sys.api("GET", "/api/v9/me/organizations", { auth: owner.auth })).body.find((o: { owner: boolean }) => o.owner).id;
// A joined, active member of the owner's organization and workspace, admin of neither.
const member = await sys.signup("member");
await addMember(await accountsDb(t, sys), ownerOrganization, member);

/** The owner's own objects that fill a path's variables (others are 1). */
const OWNED: Record<string, string> = { workspace_id: String(owner.workspaceId), organization_id: String(ownerOrganization) };

/** A concrete path of the route, its variables filled in (`workspace_id`, `organization_id` with the owner's). */
function pathOf(route: RestRoute, values: Record<string, string> = {}): string {
  return route.paths[0].replace(/:([a-z_]+)/g, (_m, name: string) => encodeURIComponent(values[name] ?? OWNED[name] ?? "1"));
}

const bodyFor = (route: RestRoute) => (route.option.body ? {} : undefined);
const declares = (scope: Scope) => (route: RestRoute) => route.access.scope === scope;
const isWorkspaceScoped = declares(Scope.WORKSPACE);
const isOrganizationScoped = declares(Scope.ORGANIZATION);
const idVariables = (route: RestRoute) => route.pathVariables.filter((v) => v === "id" || v.endsWith("_id"));
const label = (route: RestRoute) => `${route.httpMethod} ${route.paths[0]}`;

/** The answer a declared refusal gives: [status, the family's JSON string]; the fallback when none is declared. */
const refusalOf = (declared: Refusal | undefined, fallback: [number, string]): [number, string] =>
  declared ? [declared.status || 403, declared.message || "Forbidden"] : fallback;
/** What a caller who is no member is answered: the declaration's, else 403 "Forbidden" (workspace) or NO_ACCESS (organization). */
const deniedOf = (route: RestRoute) => refusalOf(route.access.denied, isWorkspaceScoped(route) ? [403, "Forbidden"] : [403, NO_ACCESS]);

function isFamilyError(route: RestRoute, res: ApiResponse): boolean {
  return route.family === Family.HIRING ? typeof res.body?.error?.type === "string" : typeof res.body === "string";
}

t.test("the table has the routes these checks rely on", async (t) => {
  t.ok(routes.filter(isWorkspaceScoped).length >= 10, "workspace-scoped routes");
  t.ok(routes.filter(isOrganizationScoped).length >= 6, "organization-scoped routes");
  t.ok(routes.filter((r) => r.access.admin).length >= 10, "admin-only routes");
  t.ok(routes.some((r) => r.access.premium), "premium routes");
  t.ok(routes.some((r) => r.family === Family.HIRING), "hiring routes");
  // The checks below fill the scope's id into the path: a scoped route must name it there.
  for (const route of routes.filter((r) => isWorkspaceScoped(r) || isOrganizationScoped(r))) {
    t.ok(route.pathVariables.includes(SCOPE_FIELD[route.access.scope]!), `${label(route)} names its ${SCOPE_FIELD[route.access.scope]} in the path`);
  }
});

t.test("without credentials every non-public route refuses: 403 time tracking, 401 hiring", async (t) => {
  for (const route of routes.filter((r) => !r.public)) {
    const res = await api(route.httpMethod, pathOf(route), { body: bodyFor(route) });
    t.equal(res.status, route.family === Family.HIRING ? 401 : 403, label(route));
    t.ok(isFamilyError(route, res), `${label(route)}: the family's error format`);
  }
});

t.test("with malformed credentials every non-public route refuses the same way", async (t) => {
  const malformed = [
    { cookie: "__Secure-accounts-session=%E0%A4%A" },
    { cookie: "__Secure-accounts-session=%" },
    { headers: { authorization: "Basic %%%" } },
    { headers: { authorization: `Basic ${Buffer.from("no-colon").toString("base64")}` } },
    { headers: { authorization: "Bearer" } },
  ];
  for (const route of routes.filter((r) => !r.public)) {
    for (const m of malformed) {
      const res = await api(route.httpMethod, pathOf(route), { body: bodyFor(route), auth: m.cookie ? { cookie: m.cookie } : undefined, headers: m.headers });
      t.equal(res.status, route.family === Family.HIRING ? 401 : 403, `${label(route)} ${JSON.stringify(m)}`);
    }
  }
});

t.test("a user of another workspace is refused on every workspace-scoped route as declared and changes nothing", async (t) => {
  const before = await api("GET", `/api/v9/workspaces/${owner.workspaceId}/clients?status=both`, { auth: owner.auth });
  for (const route of routes.filter(isWorkspaceScoped)) {
    const res = await api(route.httpMethod, pathOf(route), { auth: stranger.auth, body: bodyFor(route) });
    t.same([res.status, res.body], deniedOf(route), label(route));
    const gone = await api(route.httpMethod, pathOf(route, { workspace_id: "999999999" }), { auth: owner.auth, body: bodyFor(route) });
    t.same([gone.status, gone.body], deniedOf(route), `${label(route)}: a workspace that does not exist`);
  }
  const after = await api("GET", `/api/v9/workspaces/${owner.workspaceId}/clients?status=both`, { auth: owner.auth });
  t.same(after.body, before.body);
});

t.test("a user of another organization is refused on every organization-scoped route as declared, sees no data and changes nothing", async (t) => {
  const organization = `/api/v9/organizations/${ownerOrganization}`;
  const state = async () => [(await api("GET", organization, { auth: owner.auth })).body, (await api("GET", `${organization}/users`, { auth: owner.auth })).body];
  const before = await state();
  for (const route of routes.filter(isOrganizationScoped)) {
    const res = await api(route.httpMethod, pathOf(route), { auth: stranger.auth, body: bodyFor(route) });
    t.same([res.status, res.body], deniedOf(route), label(route));
    t.equal(res.headers.get("x-records"), null, `${label(route)}: no data in headers either`);
    const gone = await api(route.httpMethod, pathOf(route, { organization_id: "999999999" }), { auth: owner.auth, body: bodyFor(route) });
    t.same([gone.status, gone.body], refusalOf(route.access.missing, deniedOf(route)), `${label(route)}: an organization that does not exist`);
  }
  t.same(await state(), before);
});

t.test("a member who is no admin is refused on every admin-only route as declared", async (t) => {
  const adminOnly = routes.filter((r) => r.access.admin);
  for (const route of adminOnly) {
    const res = await api(route.httpMethod, pathOf(route), { auth: member.auth, body: bodyFor(route) });
    t.same([res.status, res.body], refusalOf(route.access.notAdmin, [403, NO_ACCESS]), label(route));
  }
});

t.test("a free workspace is refused on every premium route with the declared 402", async (t) => {
  for (const route of routes.filter((r) => r.access.premium)) {
    const res = await api(route.httpMethod, pathOf(route), { auth: owner.auth, body: bodyFor(route) });
    t.same([res.status, res.body], [402, route.access.notPremium], label(route));
  }
});

t.test("malformed and unstorable ids answer the family's 4xx on every route", async (t) => {
  const ids = ["abc", "-1", "0", "1.5", "9007199254740993", "18446744073709551616", "99999999999999999999999999", "%20", "1e3"];
  for (const route of routes.filter((r) => idVariables(r).length > 0)) {
    for (const name of idVariables(route)) {
      for (const id of ids) {
        const auth = route.family === Family.HIRING ? hiring.auth : owner.auth;
        const res = await api(route.httpMethod, pathOf(route, { [name]: id }), { auth, body: bodyFor(route) });
        const where = `${label(route)} ${name}=${id}`;
        t.ok(res.status >= 400 && res.status < 500, `${where}: ${res.status} ${res.text.slice(0, 80)}`);
        t.ok(isFamilyError(route, res), `${where}: the family's error format`);
      }
    }
  }
});

t.test("no read shows a member a private project they are not in, nor its tasks", async (t) => {
  const wid = owner.workspaceId;
  const project = await api("POST", `/api/v9/workspaces/${wid}/projects`, { auth: owner.auth, body: { name: "zz-secret-project", is_private: true } });
  t.equal(project.status, 200, project.text);
  const task = await api("POST", `/api/v9/workspaces/${wid}/projects/${project.body.id}/tasks`, { auth: owner.auth, body: { name: "zz-secret-task" } });
  t.equal(task.status, 200, task.text);
  const own = await api("GET", `/api/v9/workspaces/${wid}/tasks`, { auth: owner.auth });
  t.match(own.text, /zz-secret-project.*zz-secret-task|zz-secret-task.*zz-secret-project/s, "the project's users see both (the check below can fail)");
  const ids = { project_id: String(project.body.id), task_id: String(task.body.id) };
  const reads = routes.filter((r) => r.httpMethod === "GET" && r.family !== Family.HIRING && !r.public);
  t.ok(reads.length > 20, "the reads");
  for (const route of reads) {
    const res = await api("GET", pathOf(route, ids), { auth: member.auth });
    t.notMatch(res.text, /zz-secret/, `${label(route)}: ${res.status}`);
  }
});
