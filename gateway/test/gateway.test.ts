import t from "tap";
import * as net from "node:net";
import knexFactory from "knex";
import { createClient } from "@connectrpc/connect";
import { ClientService } from "../../gen/tracking/v1/clients_pb.js";
import { connectDatabase } from "../../lib/db.js";
import { Directory } from "../../lib/directory.js";
import { createLogger } from "../../lib/logger.js";
import { loadConfig } from "../../lib/config.js";
import { createLocalTransport } from "../../lib/local-transport.js";
import { serverInterceptors } from "../../lib/directory.js";
import { freePort, startTestSystem, testEnv } from "../../test/support/harness.js";
import { buildGateway } from "../server.js";

/** What the gateway owes every route: its steps, its headers, and the truth about failures. */

const sys = await startTestSystem(t);
const user = await sys.signup("gw");
const clients = `/api/v9/workspaces/${user.workspaceId}/clients`;

/** Sends raw bytes to the gateway and reads the whole answer until the connection closes. */
function rawRequest(port: number, text: string | Buffer, { endAfterWrite = true } = {}): Promise<{ raw: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(text);
      if (endAfterWrite) socket.end();
    });
    let raw = "";
    socket.on("data", (d) => (raw += d.toString("latin1")));
    socket.on("close", () => resolve({ raw, ms: Date.now() - started }));
    socket.on("error", reject);
  });
}

const bodyOf = (raw: string) => raw.slice(raw.indexOf("\r\n\r\n") + 4);

t.test("every answer carries nosniff; answers that carry credentials carry no-store", async (t) => {
  for (const path of ["/healthz", "/api/v9/nothing", clients]) {
    const res = await sys.api("GET", path, { auth: user.auth });
    t.equal(res.headers.get("x-content-type-options"), "nosniff", path);
  }
  const me = await sys.api("GET", "/api/v9/me", { auth: user.auth });
  t.equal(me.headers.get("cache-control"), "no-store");
  const signup = await sys.api("POST", "/api/signup", { body: { email: "nostore@example.com", password: "correct horse", timezone: "UTC" } });
  t.equal(signup.headers.get("cache-control"), "no-store");
  const hooks = await sys.api("GET", `/webhooks/api/v1/subscriptions/${user.workspaceId}`, { auth: user.auth });
  t.equal(hooks.headers.get("cache-control"), "no-store");
  const list = await sys.api("GET", clients, { auth: user.auth });
  t.equal(list.headers.get("cache-control"), null, "a list of clients may be cached");
});

t.test("a malformed session cookie is a failed authentication (403), not a 500", async (t) => {
  for (const value of ["%E0%A4%A", "%", "%zz"]) {
    for (const path of ["/api/v9/me", clients, `/webhooks/api/v1/subscriptions/${user.workspaceId}`]) {
      const res = await sys.api("GET", path, { auth: { cookie: `__Secure-accounts-session=${value}` } });
      t.equal(res.status, 403, `${value} ${path}`);
      t.equal(res.body, "Incorrect username and/or password");
    }
  }
});

t.test("with a whole-body route, a query parameter does not overwrite a body field", async (t) => {
  const res = await sys.api("POST", `${clients}?name=Evil`, { auth: user.auth, body: { name: "Good" } });
  t.equal(res.status, 200, res.text);
  t.equal(res.body.name, "Good");
  const fromQuery = await sys.api("POST", `${clients}?name=Only%20Query`, { auth: user.auth, body: {} });
  t.equal(fromQuery.body.name, "Only Query", "a field the body leaves out may come from the query");
});

t.test("a body-less POST with Content-Type: application/json and an empty body is accepted", async (t) => {
  const c = (await sys.api("POST", clients, { auth: user.auth, body: { name: "Empty Body" } })).body;
  const res = await sys.api("POST", `${clients}/${c.id}/restore`, { auth: user.auth, rawBody: "", headers: { "content-type": "application/json" } });
  t.equal(res.status, 200, res.text);
  const spaces = await sys.api("POST", `${clients}/${c.id}/restore`, { auth: user.auth, rawBody: "  \n", headers: { "content-type": "application/json" } });
  t.equal(spaces.status, 200, spaces.text);
});

t.test("a successful authentication is remembered briefly; what revokes credentials forgets it at once", async (t) => {
  const who = await sys.signup("remember");
  const signin = await sys.api("POST", "/api/sessions", { body: { email: who.email, password: who.password } });
  const cookie = signin.headers.get("set-cookie")!.split(";")[0];
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { cookie } })).status, 200);
  // The session ends behind the gateway's back: the remembered authentication still answers.
  const db = await connectDatabase(sys.config, "accounts");
  t.teardown(() => db.destroy());
  const sessions = await db("sessions").where({ user_id: who.id }).select("token_hash");
  await db("sessions").where({ user_id: who.id }).delete();
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { cookie } })).status, 200, "remembered, without asking the accounts service");
  await db("sessions").insert(sessions.map((s) => ({ ...s, user_id: who.id, created_at: new Date(), expires_at: new Date(Date.now() + 3_600_000) })));
  // Signing out through the gateway forgets at once.
  t.equal((await sys.api("DELETE", "/api/sessions", { auth: { cookie } })).status, 200);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { cookie } })).status, 403, "the ended session is refused at once");
  // A reset token forgets the old token at once.
  t.equal((await sys.api("GET", "/api/v9/me", { auth: who.auth })).status, 200);
  const reset = await sys.api("POST", "/api/v9/me/reset_token", { auth: who.auth });
  t.equal(reset.status, 200);
  t.equal((await sys.api("GET", "/api/v9/me", { auth: who.auth })).status, 403, "the old token is refused at once");
  t.equal((await sys.api("GET", "/api/v9/me", { auth: { basic: [reset.body, "api_token"] } })).status, 200);
});

t.test("a service that cannot be reached, or drops the connection, answers 503 with Retry-After in the family's format", async (t) => {
  const closedPort = await freePort();
  const refused = await startTestSystem(t, { services: ["accounts", "hiring", "notifier"], env: { TRACKING_URL: `http://127.0.0.1:${closedPort}` } });
  const someone = await refused.signup("refused");
  const res = await refused.api("POST", `/api/v9/workspaces/${someone.workspaceId}/clients`, { auth: someone.auth, body: { name: "x" } });
  t.equal(res.status, 503);
  t.equal(res.body, "Service Unavailable");
  t.equal(res.headers.get("retry-after"), "5");

  // A "service" that accepts the connection and drops it.
  const dropper = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => dropper.listen(0, "127.0.0.1", resolve));
  t.teardown(() => new Promise<void>((resolve) => dropper.close(() => resolve())));
  const port = (dropper.address() as net.AddressInfo).port;
  const dropped = await startTestSystem(t, { services: ["accounts", "hiring", "notifier"], env: { TRACKING_URL: `http://127.0.0.1:${port}` } });
  const other = await dropped.signup("dropped");
  for (const method of ["GET", "POST"]) {
    const r = await dropped.api(method, `/api/v9/workspaces/${other.workspaceId}/clients`, { auth: other.auth, body: method === "POST" ? { name: "x" } : undefined });
    t.equal(r.status, 503, `${method}: ${r.text}`);
    t.equal(r.body, "Service Unavailable", "no transport text is forwarded");
    t.equal(r.headers.get("retry-after"), "5");
  }
});

t.test("a database that cannot be reached answers 503 (unavailable), not 500", async (t) => {
  // A real driver error: MySQL at a port where nothing listens.
  const db = knexFactory({ client: "mysql2", connection: { host: "127.0.0.1", port: await freePort(), user: "root" }, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 2000 });
  t.teardown(() => db.destroy());
  const config = loadConfig(testEnv());
  const transport = createLocalTransport((router) => router.service(ClientService, { async listClients() { await db.raw("select 1"); return { clients: [] }; } }), {
    clientInterceptors: [],
    serverInterceptors: serverInterceptors({ ...config, internalToken: "x" }, createLogger("silent")),
  });
  const client = createClient(ClientService, transport);
  const err = await client.listClients({ workspaceId: 1n }, { headers: { "x-internal-token": "x" } }).catch((e) => e);
  t.equal(err.code, 14, "Code.Unavailable");
});

t.test("what Node's parser refuses is answered in the family's format where the path is known", async (t) => {
  const port = sys.ports.gateway!;
  const bad = await rawRequest(port, "GET /api/v9/me HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n");
  t.match(bad.raw, /^HTTP\/1\.1 400 /);
  t.equal(JSON.parse(bodyOf(bad.raw)), "Bad Request");
  t.match(bad.raw, /x-content-type-options: nosniff/i);
  const big = await rawRequest(port, `GET /api/v2/openings HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
  t.match(big.raw, /^HTTP\/1\.1 431 /);
  t.same(JSON.parse(bodyOf(big.raw)), { error: { type: "RequestHeaderFieldsTooLargeError" } });
  // A request line over the limit (a 24 KB URL): its path's prefix tells the family.
  const longUrl = await rawRequest(port, `GET /api/v2/openings?q=${"a".repeat(24_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  t.match(longUrl.raw, /^HTTP\/1\.1 431 /);
  t.same(JSON.parse(bodyOf(longUrl.raw)), { error: { type: "RequestHeaderFieldsTooLargeError" } });
  const longTracking = await rawRequest(port, `GET /api/v9/me/time_entries?before=${"1".repeat(24_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  t.match(longTracking.raw, /^HTTP\/1\.1 431 /);
  t.match(longTracking.raw, /content-type: application\/json/i);
  t.equal(JSON.parse(bodyOf(longTracking.raw)), "Request Header Fields Too Large");
  const garbage = await rawRequest(port, "HELLO THERE\r\n\r\n");
  t.match(garbage.raw, /^HTTP\/1\.1 400 /);
  t.equal(bodyOf(garbage.raw), "Bad Request", "plain text where no path is known");
});

t.test("a request whose body never arrives is ended at the request timeout, in the family's format", async (t) => {
  const requestMs = 1_000;
  const directory = new Directory(loadConfig(testEnv()));
  const app = await buildGateway({ directory, log: createLogger("silent"), ready: async () => true, trustProxy: false, timeouts: { requestMs, headersMs: requestMs } });
  await app.listen({ port: 0, host: "127.0.0.1" });
  t.teardown(() => app.close());
  const port = (app.server.address() as net.AddressInfo).port;
  // Headers with a Content-Length and no body: five clients, each starting a fifth of a second
  // after the one before, so that their timeouts fall at every phase of Node's checking interval.
  const slow = (path: string, delay: number) =>
    new Promise((resolve) => setTimeout(resolve, delay)).then(() =>
      rawRequest(port, `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`, { endAfterWrite: false }),
    );
  const answers = await Promise.all([0, 200, 400, 600, 800].map((delay, i) => slow(i % 2 ? "/api/v2/openings" : "/api/v9/workspaces/1/clients", delay)));
  for (const [i, slow] of answers.entries()) {
    t.match(slow.raw, /^HTTP\/1\.1 408 /);
    t.ok(slow.ms >= requestMs - 50, `not before its time: ${slow.ms} ms`);
    // At most a checking interval (50 ms here) late, with room for a busy machine; 1 s late before.
    t.ok(slow.ms < requestMs + 400, `closed after ${slow.ms} ms`);
    t.same(JSON.parse(bodyOf(slow.raw)), i % 2 ? { error: { type: "RequestTimeoutError" } } : "Request Timeout");
  }
  const noHeaders = await rawRequest(port, "GET /api/v9/me HTTP/1.1\r\nHost: x\r\n", { endAfterWrite: false });
  t.ok(noHeaders.ms < requestMs + 400, `headers that never end: closed after ${noHeaders.ms} ms`);
});

t.test("the gateway's own timeouts: a body that never arrives is cut at 15 s, as the README says", async (t) => {
  const directory = new Directory(loadConfig(testEnv()));
  const app = await buildGateway({ directory, log: createLogger("silent"), ready: async () => true, trustProxy: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  t.teardown(() => app.close());
  const port = (app.server.address() as net.AddressInfo).port;
  const slow = await rawRequest(port, "POST /api/v9/workspaces/1/clients HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n", { endAfterWrite: false });
  t.match(slow.raw, /^HTTP\/1\.1 408 /);
  // Cut at most a checking interval (250 ms) late, with room for a busy machine; up to 1 s late before.
  t.ok(slow.ms >= 15_000 - 50 && slow.ms < 15_750, `closed after ${slow.ms} ms`);
});
