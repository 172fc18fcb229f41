import t from "tap";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { HiringAdminService } from "../gen/hiring/v1/admin_pb.js";
import { internalTokenInterceptor } from "../lib/identity.js";
import { MAX_PATH_SEGMENT } from "../gateway/server.js";
import { startReceiver, startTestSystem } from "./support/harness.js";
import { WebhookAdminService } from "../gen/notifier/v1/webhooks_pb.js";

/** One real path through every service, end to end, through the gateway. */
const sys = await startTestSystem(t);
const run = promisify(execFile);

async function admin(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", "cmd/admin.ts", ...args], {
    env: { ...process.env, DATA_DIR: sys.env.DATA_DIR, HIRING_URL: `http://127.0.0.1:${sys.ports.hiring}`, NOTIFIER_URL: `http://127.0.0.1:${sys.ports.notifier}`, ACCOUNTS_URL: `http://127.0.0.1:${sys.ports.accounts}` },
  });
  return JSON.parse(stdout);
}

t.test("hiring: a workspace and key from the admin CLI, openings imported, served under /api/v2 and /api/v2.2", async (t) => {
  const ws = await admin("hire:workspace", "create", "--name", "Acme");
  t.match(ws, { workspace_id: /^ws_/, api_key: /\./ });
  const file = join(sys.env.DATA_DIR!, "openings.json");
  writeFileSync(
    file,
    JSON.stringify({
      openings: [
        { id: "101", name: "Backend Engineer", slug: "backend-engineer", created_at: "2020-02-10T10:00:00", published_at: "2020-02-10T10:00:00", closed_at: null, tests: [{ id: "7", name: "Node quiz", slug: "node-quiz" }] },
      ],
    }),
  );
  await admin("hire:import", "--workspace", ws.workspace_id, file);
  const auth = { bearer: ws.api_key };
  for (const version of ["v2", "v2.2"]) {
    const list = await sys.api("GET", `/api/${version}/openings`, { auth });
    t.equal(list.status, 200);
    t.same(list.body, {
      data: [
        { id: "101", name: "Backend Engineer", slug: "backend-engineer", created_at: "2020-02-10T10:00:00", published_at: "2020-02-10T10:00:00", closed_at: null, tests: [{ id: "7", name: "Node quiz", slug: "node-quiz" }] },
      ],
    });
    const one = await sys.api("GET", `/api/${version}/openings/101`, { auth });
    t.same(one.body, list.body.data[0]);
  }
  const missing = await sys.api("GET", "/api/v2/openings/nope", { auth });
  t.equal(missing.status, 404);
  t.same(missing.body, { error: { type: "NotFoundError" } });
  for (const authorization of [undefined, "Bearer", "Bearer nonsense", `Bearer ${ws.api_key}x`, `Basic ${ws.api_key}`]) {
    const res = await sys.api("GET", "/api/v2/openings", { headers: authorization ? { authorization } : {} });
    t.equal(res.status, 401, String(authorization));
    t.same(res.body, { error: { type: "UnauthorizedError" } });
  }
  const other = await admin("hire:workspace", "create", "--name", "Other");
  const isolated = await sys.api("GET", "/api/v2/openings/101", { auth: { bearer: other.api_key } });
  t.equal(isolated.status, 404, "another workspace's opening is not found");
  t.same((await sys.api("GET", "/api/v2/openings", { auth: { bearer: other.api_key } })).body, { data: [] });
  const unknownPath = await sys.api("GET", "/api/v2/nothing-here", { auth });
  t.same(unknownPath.body, { error: { type: "NotFoundError" } });
});

t.test("accounts: sign-up, session cookie, /api/v9/me", async (t) => {
  const user = await sys.signup("path");
  const me = await sys.api("GET", "/api/v9/me", { auth: user.auth });
  t.equal(me.status, 200);
  t.equal(me.body.email, user.email);
});

t.test("events: creating a client travels outbox -> bus -> notifier -> webhook receiver", async (t) => {
  const user = await sys.signup("events");
  const receiver = await startReceiver(t);
  await sys.directory.client("notifier", WebhookAdminService).createSubscription({
    service: "tracking",
    workspaceId: String(user.workspaceId),
    url: receiver.url(),
    eventFilters: [{ entity: "client", action: "created" }],
  });
  const created = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name: "Hooked" } });
  t.equal(created.status, 200);
  await receiver.until(() => receiver.received.length >= 1);
  const [delivery] = receiver.received;
  t.match(delivery.json, { metadata: { action: "created", model: "client", workspace_id: String(user.workspaceId) }, payload: { id: created.body.id, name: "Hooked", wid: user.workspaceId } });
  t.match(delivery.headers["webhook-signature"], /^v1,/);
  t.match(delivery.headers["x-webhook-signature-256"], /^sha256=[0-9a-f]{64}$/);
});

t.test("health endpoints answer on the gateway and on every service", async (t) => {
  for (const [name, port] of Object.entries(sys.ports)) {
    for (const path of ["/healthz", "/readyz"]) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      t.equal(res.status, 200, `${name} ${path}`);
    }
  }
});

t.test("services refuse calls without the internal token", async (t) => {
  const res = await fetch(`http://127.0.0.1:${sys.ports.hiring}/hiring.v1.HiringAdminService/CreateWorkspace`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "sneaky" }),
  });
  t.equal(res.status, 401);
  const gw = await sys.api("POST", "/hiring.v1.HiringAdminService/CreateWorkspace", { body: { name: "sneaky" } });
  t.equal(gw.status, 404, "internal RPCs are not reachable through the gateway");
});

t.test("every service speaks Connect, gRPC and gRPC-Web on its own port", async (t) => {
  const interceptors = [internalTokenInterceptor(sys.config.internalToken)];
  const baseUrl = `http://127.0.0.1:${sys.ports.hiring}`;
  const transports = {
    connect: createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors }),
    grpc: createGrpcTransport({ baseUrl, interceptors }),
    grpcWeb: createGrpcWebTransport({ baseUrl, httpVersion: "1.1", interceptors }),
  };
  for (const [protocol, transport] of Object.entries(transports)) {
    const res = await createClient(HiringAdminService, transport).createWorkspace({ name: `via ${protocol}` });
    t.match(res.workspaceId, /^ws_/, protocol);
  }
});

t.test("unknown query parameters are ignored; wrong types are 400", async (t) => {
  const user = await sys.signup("query");
  const ok = await sys.api("GET", `/api/v9/workspaces/${user.workspaceId}/clients?foo=bar&since=12`, { auth: user.auth });
  t.equal(ok.status, 200);
  const bad = await sys.api("GET", `/api/v9/workspaces/${user.workspaceId}/clients/notanumber`, { auth: user.auth });
  t.equal(bad.status, 400);
  t.equal(bad.body, "Invalid client_id");
});

t.test("paths the router refuses answer in the family's error format: malformed encoding 400, over-long segment 414", async (t) => {
  const user = await sys.signup("paths");
  const long = "x".repeat(MAX_PATH_SEGMENT + 1);
  const cases: [string, number, unknown][] = [
    ["/api/v2/openings/%FF", 400, { error: { type: "ValidationError" } }],
    [`/api/v2/candidates/${long}`, 414, { error: { type: "UriTooLongError" } }],
    [`/api/v9/workspaces/${user.workspaceId}/clients/%E0%A4%A`, 400, "Invalid URL"],
    [`/api/v9/workspaces/${user.workspaceId}/clients/${long}`, 414, "URI Too Long"],
  ];
  for (const [path, status, body] of cases) {
    const res = await sys.api("GET", path, { auth: path.startsWith("/api/v2") ? { bearer: "key_x.y" } : user.auth });
    t.equal(res.status, status, path.slice(0, 60));
    t.same(res.body, body);
  }
});

t.test("npm run migrate brings every schema up to date on its own", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "workhub-migrate-"));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const { stdout } = await run(process.execPath, ["--import", "tsx", "cmd/migrate.ts"], { env: { ...process.env, MYSQL_URL: "", NATS_URL: "", DATA_DIR: dataDir } });
  t.same(
    stdout.trim().split("\n").map((l) => JSON.parse(l).service).sort(),
    ["accounts", "hiring", "notifier", "tracking"],
  );
  for (const name of ["accounts", "hiring", "notifier", "tracking"]) t.ok(existsSync(join(dataDir, `${name}.sqlite`)), name);
});
