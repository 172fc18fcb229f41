import t from "tap";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as http from "node:http";
import * as https from "node:https";
import { join } from "node:path";
import * as net from "node:net";
import os from "node:os";
import type { LookupAddress } from "node:dns";
import { createDeliverer, DELIVERY_TIMEOUT_MS } from "../delivery/deliver.js";
import type { Resolver } from "../delivery/target.js";
import { startReceiver } from "../../../test/support/harness.js";

const rules = { allowInternal: true };

t.test("a 2xx answer is a success; the body and the signature headers arrive as sent", async (t) => {
  const receiver = await startReceiver(t, () => 204);
  const deliver = createDeliverer(rules);
  t.teardown(() => deliver.close());
  const result = await deliver(receiver.url(), '{"a":1}', { "webhook-id": "ntf_1" });
  t.match(result, { ok: true, status: 204 });
  t.type(result.latencyMs, "number");
  t.equal(receiver.received[0].body, '{"a":1}');
  t.equal(receiver.received[0].headers["webhook-id"], "ntf_1");
  t.equal(receiver.received[0].headers["content-type"], "application/json");
});

t.test("any other status is a failure", async (t) => {
  for (const status of [400, 404, 410, 500, 503]) {
    const receiver = await startReceiver(t, () => status);
    const deliver = createDeliverer(rules);
    t.teardown(() => deliver.close());
    t.match(await deliver(receiver.url(), "{}", {}), { ok: false, status, error: `status ${status}` });
  }
});

t.test("a redirect is a failure and is not followed", async (t) => {
  for (const status of [301, 302, 307, 308]) {
    const receiver = await startReceiver(t, (req) => (req.path === "/redirected" ? 200 : status));
    const deliver = createDeliverer(rules);
    t.teardown(() => deliver.close());
    t.match(await deliver(receiver.url(), "{}", {}), { ok: false, status, error: "redirect (not followed)" });
    t.same(
      receiver.received.map((r) => r.path),
      ["/hook"],
      "the Location was never requested",
    );
  }
});

t.test("a receiver slower than the timeout fails, whether it answers late or never", async (t) => {
  const late = await startReceiver(t, () => ({ status: 200, delayMs: 600 }));
  const deliver = createDeliverer({ ...rules, timeoutMs: 200 });
  t.teardown(() => deliver.close());
  const result = await deliver(late.url(), "{}", {});
  t.match(result, { ok: false, error: "no answer within 200 ms" });
  t.ok(result.latencyMs >= 195 && result.latencyMs < 600, `gave up after ${result.latencyMs} ms`);

  // A server that accepts the connection and never answers.
  const sockets: net.Socket[] = [];
  const silent = net.createServer((socket) => void sockets.push(socket));
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  t.teardown(() => new Promise<void>((r) => (silent.close(() => r()), sockets.forEach((s) => s.destroy()))));
  const port = (silent.address() as net.AddressInfo).port;
  t.match(await deliver(`http://127.0.0.1:${port}/`, "{}", {}), { ok: false, error: "no answer within 200 ms" });
});

t.test("the real limit is 5 seconds: an answer after 5 seconds is a failure", async (t) => {
  t.equal(DELIVERY_TIMEOUT_MS, 5_000);
  const receiver = await startReceiver(t, () => ({ status: 200, delayMs: 5_300 }));
  const deliver = createDeliverer(rules);
  t.teardown(() => deliver.close());
  const result = await deliver(receiver.url(), "{}", {});
  t.match(result, { ok: false, error: "no answer within 5000 ms" });
  t.ok(result.latencyMs >= 4_990 && result.latencyMs < 5_300, `gave up after ${result.latencyMs} ms`);
});

t.test("a refused connection is a failure", async (t) => {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  const deliver = createDeliverer(rules);
  t.teardown(() => deliver.close());
  t.match(await deliver(`http://127.0.0.1:${port}/`, "{}", {}), { ok: false, error: /ECONNREFUSED/ });
});

t.test("the answer's body is read when asked for (a ping looks for the validation code)", async (t) => {
  const receiver = await startReceiver(t, () => ({ status: 200, body: '{"validation_code":"abc"}' }));
  const deliver = createDeliverer(rules);
  t.teardown(() => deliver.close());
  t.match(await deliver(receiver.url(), "{}", {}, { readAnswer: true }), { ok: true, answer: '{"validation_code":"abc"}' });
  t.equal((await deliver(receiver.url(), "{}", {})).answer, undefined);
});

t.test("an answer read for a ping must end within the timeout; a long one is cut at 64 KB", async (t) => {
  // Headers at once, then a byte every 50 ms, never ending.
  const sockets = new Set<net.Socket>();
  const trickle = http.createServer((req, res) => {
    sockets.add(req.socket);
    res.writeHead(200, { "content-type": "application/json" });
    const timer = setInterval(() => res.write(" "), 50);
    res.on("close", () => clearInterval(timer));
  });
  await new Promise<void>((r) => trickle.listen(0, "127.0.0.1", r));
  t.teardown(() => new Promise<void>((r) => (trickle.close(() => r()), sockets.forEach((s) => s.destroy()))));
  const deliver = createDeliverer({ ...rules, timeoutMs: 300 });
  t.teardown(() => deliver.close());
  const url = `http://127.0.0.1:${(trickle.address() as net.AddressInfo).port}/hook`;
  const result = await deliver(url, "{}", {}, { readAnswer: true });
  t.match(result, { ok: false, error: "no answer within 300 ms" });
  t.equal(result.answer, undefined);

  const long = await startReceiver(t, () => ({ status: 200, body: "x".repeat(200 * 1024) }));
  const answered = await deliver(long.url(), "{}", {}, { readAnswer: true });
  t.equal(answered.ok, true);
  t.equal(answered.answer?.length, 64 * 1024);
  // Not asked for, the long answer is dropped (its connection with it) and the next delivery goes on.
  for (let i = 0; i < 2; i++) t.match(await deliver(long.url(), "{}", {}), { ok: true, status: 200, answer: undefined });
});

t.test("deliveries to one receiver reuse their connections, after a failed status too", async (t) => {
  const receiver = await startReceiver(t, (_req, n) => (n % 2 ? 200 : 500));
  let connections = 0;
  receiver.server.on("connection", () => connections++);
  const deliver = createDeliverer(rules);
  t.teardown(() => deliver.close());
  const outcomes = [];
  for (let i = 0; i < 6; i++) outcomes.push((await deliver(receiver.url(), "{}", {})).ok);
  t.same(outcomes, [true, false, true, false, true, false]);
  // undici's pool takes a second connection for a request sent in the same turn as the last
  // answer (the first is handed back a moment later), then alternates between the two.
  t.ok(connections <= 2, `${connections} connections for six deliveries in turn`);
});

t.test("an https receiver's certificate is verified: one nobody signed is a failure, and nothing is posted", async (t) => {
  const dir = mkdtempSync(join(os.tmpdir(), "deliver-tls-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const made = spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")], { stdio: "ignore" });
  if (!t.equal(made.status, 0, "openssl made a self-signed certificate")) return;
  let posted = 0;
  const server = https.createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (_req, res) => {
    posted++;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  t.teardown(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  const deliver = createDeliverer(rules);
  t.teardown(() => deliver.close());
  const result = await deliver(`https://localhost:${(server.address() as net.AddressInfo).port}/hook`, "{}", {});
  t.match(result, { ok: false, error: /self[- ]signed certificate/ });
  t.equal(posted, 0);
});

t.test("under the default rules a delivery connects neither to this host's own address nor to IPv4 written in IPv6, literal or resolved", async (t) => {
  const own = Object.values(os.networkInterfaces())
    .flat()
    .map((i) => i?.address ?? "")
    .filter((a) => net.isIP(a) && a !== "127.0.0.1" && a !== "::1");
  t.ok(own.length > 0, "the host has an address besides loopback");
  const inside = ["::7f00:1", "::ffff:7f00:1", "64:ff9b::7f00:1", "64:ff9b:1::7f00:1", "2002:7f00:1::1", "2001:0:4136:e378:8000:63bf:80ff:fffe", "198.18.0.1"];
  const answers: Record<string, string[]> = Object.fromEntries([...own, ...inside].map((a, i) => [`n${i}.example`, [a]]));
  const resolve: Resolver = (hostname, callback) => callback(null, (answers[hostname] ?? []).map((address): LookupAddress => ({ address, family: net.isIP(address) })));
  const deliver = createDeliverer({ allowInternal: false, resolve, timeoutMs: 1_000 });
  t.teardown(() => deliver.close());
  for (const [i, address] of [...own, ...inside].entries()) {
    const literal = `http://${net.isIP(address) === 6 ? `[${address}]` : address}/hook`;
    t.match(await deliver(literal, "{}", {}), { ok: false, error: "refusing to connect to an internal address" }, literal);
    t.match(await deliver(`http://n${i}.example/hook`, "{}", {}), { ok: false, error: `refusing to connect to internal address of n${i}.example` }, `a name for ${address}`);
  }
});
