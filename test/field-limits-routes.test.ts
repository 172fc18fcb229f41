import t, { type Test } from "tap";
import { ScalarType, getOption, hasOption, type DescField } from "@bufbuild/protobuf";
import { Family, limits as limitsOption, type FieldLimits } from "../gen/gateway/v1/annotations_pb.js";
import { IdentityService } from "../gen/accounts/v1/accounts_pb.js";
import { HiringAdminService } from "../gen/hiring/v1/admin_pb.js";
import { PROTO_FILES } from "../lib/contracts.js";
import { loadConfig, SERVICE_NAMES, type ServiceName } from "../lib/config.js";
import { createLogger } from "../lib/logger.js";
import { collectRoutes, type RestRoute } from "../gateway/routes.js";
import { startSystem } from "../cmd/system.js";
import { cleanUp, startReceiver, startTestSystem, testEnv, type ApiResponse, type Credentials } from "./support/harness.js";
import { createWorkspace } from "../services/hiring/test/support.js";

/**
 * Declared field limits hold through the gateway, on SQLite and on MariaDB alike: every string
 * and bounded number of every route, in the path, the query or the body, at its limit answers
 * without a 5xx (stored where the request is otherwise good), and one past it is the family's
 * 400 naming the field. Driven from the route table, so a new route is covered as it appears.
 */

const sys = await startTestSystem(t);
const user = await sys.signup("limits");
// Premium: three webhooks of up to twelve filters, so that good requests get as far as storage.
await sys.directory.client("accounts", IdentityService).setWorkspacePlan({ workspaceId: BigInt(user.workspaceId), premium: true });
const hiring = await createWorkspace(sys, "Limits");
const receiver = await startReceiver(t);

let counter = 0;
const unique = (prefix: string) => `${prefix} ${++counter}`;

const client = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name: unique("base client") } });
const subscription = await sys.api("POST", `/webhooks/api/v1/subscriptions/${user.workspaceId}`, {
  auth: user.auth,
  body: { url_callback: receiver.url("base"), event_filters: [{ entity: "client", action: "*" }], description: unique("base hook") },
});
if (client.status !== 200 || subscription.status !== 200) throw new Error(`fixtures: ${client.text} ${subscription.text}`);

/** Values of path variables that name no field under test: the caller's own objects. */
const PATH_VALUES: Record<string, string> = {
  workspace_id: String(user.workspaceId),
  client_id: String(client.body.id),
  subscription_id: String(subscription.body.subscription_id),
};

/** A good request of each write RPC, so that a value at its limit reaches storage. */
const GOOD_BODIES: Record<string, () => Record<string, unknown>> = {
  "accounts.v1.AccountService.Signup": () => ({ email: `${unique("signup").replace(" ", "")}@example.com`, password: "correct horse battery", display_name: "Limits", timezone: "UTC" }),
  "accounts.v1.AccountService.CreateSession": () => ({ email: "nobody-limits@example.com", password: "not the password" }),
  "tracking.v1.ClientService.CreateClient": () => ({ name: unique("client") }),
  "tracking.v1.ClientService.UpdateClient": () => ({ name: unique("client") }),
  "notifier.v1.TrackingWebhookService.CreateWorkspaceSubscription": () => ({ url_callback: receiver.url("hook"), event_filters: [{ entity: "client", action: "*" }], description: unique("hook") }),
  "notifier.v1.TrackingWebhookService.UpdateWorkspaceSubscription": () => ({ url_callback: receiver.url("base"), event_filters: [{ entity: "client", action: "*" }], description: unique("hook") }),
  "notifier.v1.TrackingWebhookService.SetWorkspaceSubscriptionEnabled": () => ({ enabled: true }),
};

/** What a successful call made that would stand in the way of the next ones (the webhook limit). */
const CLEAN_UP: Record<string, (res: ApiResponse) => Promise<unknown>> = {
  "notifier.v1.TrackingWebhookService.CreateWorkspaceSubscription": (res) =>
    sys.api("DELETE", `/webhooks/api/v1/subscriptions/${user.workspaceId}/${res.body.subscription_id}`, { auth: user.auth }),
};

const NUMBERS = new Set([ScalarType.INT32, ScalarType.UINT32, ScalarType.SINT32, ScalarType.FIXED32, ScalarType.SFIXED32, ScalarType.DOUBLE, ScalarType.FLOAT, ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);

/** One bounded value of a route: where it goes, its name in the 400's message, its limits. */
interface Target {
  where: "path" | "query" | "body";
  /** The path variable, query parameter, or the JSON path in the body. */
  at: (string | number)[];
  name: string;
  kind: "string" | "number";
  limits: FieldLimits;
}

function targetsOf(field: DescField, where: Target["where"], at: (string | number)[], name: string): Target[] {
  const limits = hasOption(field, limitsOption) ? getOption(field, limitsOption) : undefined;
  const scalar = field.fieldKind === "scalar" || (field.fieldKind === "list" && field.listKind === "scalar") ? field.scalar : undefined;
  const [itemAt, itemName] = field.fieldKind === "list" && where === "body" ? [[...at, 0], `${name}[0]`] : [at, field.fieldKind === "list" ? `${name}[0]` : name];
  if (scalar === ScalarType.STRING && limits?.maxLength) return [{ where, at: itemAt, name: itemName, kind: "string", limits }];
  if (scalar !== undefined && NUMBERS.has(scalar) && limits && (limits.max !== undefined || limits.min !== undefined)) return [{ where, at: itemAt, name: itemName, kind: "number", limits }];
  const message = field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message") ? field.message : undefined;
  if (message && where === "body" && !message.typeName.startsWith("google.protobuf.")) {
    return message.fields.flatMap((f) => targetsOf(f, where, [...itemAt, f.name], `${itemName}.${f.name}`));
  }
  return [];
}

function routeTargets(route: RestRoute): Target[] {
  const input = route.method.input;
  const out: Target[] = [];
  for (const field of input.fields) {
    if (route.pathVariables.includes(field.name)) out.push(...targetsOf(field, "path", [field.name], field.name));
    else if (route.option.body === "*") out.push(...targetsOf(field, "body", [field.name], field.name));
    else if (route.bodyField === field) out.push(...(field.fieldKind === "message" ? field.message.fields.flatMap((f) => targetsOf(f, "body", [f.name], `${field.name}.${f.name}`)) : []));
    else out.push(...targetsOf(field, "query", [field.name], field.name));
  }
  return out;
}

/** A value of `n` characters: four-byte characters in bodies (MariaDB counts bytes in TEXT), a good URL for URLs. */
function text(target: Target, n: number): string {
  if (/url/.test(target.name)) {
    const base = receiver.url("");
    return base + "x".repeat(n - base.length);
  }
  return target.where === "body" ? "😀".repeat(n) : "x".repeat(n);
}

/** JSON for a number: 64-bit values beyond 2^53 as strings of digits, as the REST codec reads them. */
const jsonNumber = (v: bigint) => (v <= BigInt(Number.MAX_SAFE_INTEGER) + 1n && v >= -BigInt(Number.MAX_SAFE_INTEGER) - 1n ? Number(v) : v.toString());

function setAt(body: Record<string, unknown>, at: (string | number)[], value: unknown): void {
  let node: Record<string | number, unknown> = body;
  for (let i = 0; i < at.length - 1; i++) {
    node[at[i]] ??= typeof at[i + 1] === "number" ? [] : {};
    node = node[at[i]] as Record<string | number, unknown>;
  }
  node[at[at.length - 1]] = value;
}

async function call(route: RestRoute, target: Target, value: string | bigint): Promise<ApiResponse> {
  const key = `${route.service.typeName}.${route.method.name}`;
  const pathValue = (name: string) => (target.where === "path" && target.at[0] === name ? String(value) : (PATH_VALUES[name] ?? "1"));
  const path = route.paths[0].replace(/:([a-z_]+)/g, (_m, name: string) => encodeURIComponent(pathValue(name)));
  const query = target.where === "query" ? `?${encodeURIComponent(String(target.at[0]))}=${encodeURIComponent(String(value))}` : "";
  let body: Record<string, unknown> | undefined;
  if (route.option.body) {
    body = structuredClone(GOOD_BODIES[key]?.() ?? {});
    if (target.where === "body") setAt(body, target.at, typeof value === "bigint" ? jsonNumber(value) : value);
  }
  const auth: Credentials = route.family === Family.HIRING ? hiring.auth : user.auth;
  const res = await sys.api(route.httpMethod, `${path}${query}`, { auth, body });
  if (res.status < 300) await CLEAN_UP[key]?.(res);
  return res;
}

function assertRefusal(t: Test, route: RestRoute, res: ApiResponse, message: string, label: string): void {
  t.equal(res.status, 400, `${label}: 400 (${res.text.slice(0, 120)})`);
  if (route.family === Family.HIRING) t.same(res.body, { error: { type: "ValidationError" } }, `${label}: the hiring ValidationError`);
  else t.equal(res.body, message, `${label}: the time-tracking error string names the field`);
}

const routes = collectRoutes(PROTO_FILES.flatMap((f) => f.services));
const driven = routes.map((route) => ({ route, targets: routeTargets(route) })).filter((r) => r.targets.length > 0);

t.test("the route table has bounded fields in paths, queries and bodies of both families", async (t) => {
  const all = driven.flatMap((r) => r.targets.map((x) => ({ ...x, family: r.route.family, method: r.route.httpMethod })));
  for (const where of ["path", "query", "body"] as const) t.ok(all.some((x) => x.where === where), where);
  t.ok(all.some((x) => x.family === Family.HIRING) && all.some((x) => x.family === Family.TRACKING), "both families");
  t.ok(driven.some((r) => r.route.httpMethod === "POST") && driven.some((r) => r.route.httpMethod === "PUT"), "write routes");
});

for (const { route, targets } of driven) {
  t.test(`${route.httpMethod} ${route.paths[0]}: each bounded field at its limit and one past it`, async (t) => {
    for (const target of targets) {
      const label = `${target.where} ${target.name}`;
      if (target.kind === "string") {
        const max = target.limits.maxLength;
        const at = await call(route, target, text(target, max));
        t.ok(at.status < 500, `${label} of ${max} characters: ${at.status} ${at.text.slice(0, 120)}`);
        // The field's own message where it declares one ("Client name maximum length is 100"), else the generic one.
        const refusal = target.limits.tooLong ? target.limits.tooLong.replaceAll("{max}", String(max)) : `${target.name} must be at most ${max} characters`;
        assertRefusal(t, route, await call(route, target, text(target, max + 1)), refusal, `${label} of ${max + 1} characters`);
        continue;
      }
      const { min, max } = target.limits;
      for (const [bound, past, message] of [
        [max, max === undefined ? undefined : max + 1n, `${target.name} must be at most ${max}`],
        [min, min === undefined ? undefined : min - 1n, `${target.name} must be at least ${min}`],
      ] as const) {
        if (bound === undefined || past === undefined) continue;
        const at = await call(route, target, bound);
        t.ok(at.status < 500, `${label} = ${bound}: ${at.status} ${at.text.slice(0, 120)}`);
        assertRefusal(t, route, await call(route, target, past), message, `${label} = ${past}`);
      }
    }
  });
}

t.test("a value at its limit is stored and read back whole: client notes of 10,000 four-byte characters", async (t) => {
  const notes = "😀".repeat(10_000);
  const res = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name: unique("notes"), notes } });
  t.equal(res.status, 200, res.text.slice(0, 200));
  const read = await sys.api("GET", `/api/v9/workspaces/${user.workspaceId}/clients/${res.body.id}`, { auth: user.auth });
  t.equal(read.body.notes, notes);
});

t.test("a webhook's URL of 2,048 characters and secret of 200 are stored", async (t) => {
  const url = text({ name: "url_callback" } as Target, 2048);
  const secret = "😀".repeat(200);
  const res = await sys.api("PUT", `/webhooks/api/v1/subscriptions/${user.workspaceId}/${PATH_VALUES.subscription_id}`, {
    auth: user.auth,
    body: { url_callback: url, secret, event_filters: [{ entity: "client", action: "*" }], description: unique("hook") },
  });
  t.equal(res.status, 200, res.text.slice(0, 200));
  t.match(res.body, { url_callback: url, secret });
});

t.test("the hiring list's limit beyond 32 bits is a ValidationError, not a 500", async (t) => {
  for (const limit of ["2147483648", "4294967295", "4294967296", "1001", "0"]) {
    const res = await sys.api("GET", `/api/v2/candidates?limit=${limit}`, { auth: hiring.auth });
    t.equal(res.status, 400, `limit=${limit}`);
    t.same(res.body, { error: { type: "ValidationError" } });
  }
});

t.test("over the network the services check the same limits (the gateway calls them over HTTP/2)", async (t) => {
  const env = testEnv();
  const log = createLogger("silent");
  const config = loadConfig(env);
  const services = await startSystem({ config, services: SERVICE_NAMES, gateway: false, log, host: "127.0.0.1" });
  const urls = Object.fromEntries(SERVICE_NAMES.map((name: ServiceName) => [`${name.toUpperCase()}_URL`, `http://127.0.0.1:${services.ports[name]}`]));
  const gateway = await startSystem({ config: loadConfig({ ...env, ...urls }), services: [], gateway: true, log, host: "127.0.0.1" });
  t.teardown(async () => {
    await gateway.close();
    await services.close();
    await cleanUp(config);
  });
  const api = (path: string, init: RequestInit) => fetch(`${gateway.gatewayUrl}${path}`, init).then(async (r) => ({ status: r.status, body: await r.json() }));
  const ws = await gateway.directory.client("hiring", HiringAdminService).createWorkspace({ name: "Remote" });
  const bearer = { authorization: `Bearer ${ws.apiKey}` };
  t.same(await api("/api/v2/candidates?limit=1001", { headers: bearer }), { status: 400, body: { error: { type: "ValidationError" } } }, "limit=1001");
  t.same(await api(`/api/v2/candidates?email=${"x".repeat(321)}`, { headers: bearer }), { status: 400, body: { error: { type: "ValidationError" } } }, "email of 321 characters");
  const signup = await api("/api/signup", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "remote@example.com", password: "correct horse battery", display_name: "😀".repeat(256) }) });
  t.same(signup, { status: 400, body: "display_name must be at most 255 characters" }, "a time-tracking body field");
  t.same(await api("/api/v2/candidates?limit=2147483648", { headers: bearer }), { status: 400, body: { error: { type: "ValidationError" } } }, "a value beyond a signed 32-bit field");
});
