import t from "tap";
import { Code, ConnectError, createClient, type ConnectRouter } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import * as http from "node:http";
import { HiringAdminService } from "../../gen/hiring/v1/admin_pb.js";
import { serveConnect } from "../serve.js";
import { RpcMetrics } from "../metrics.js";
import { startTestSystem } from "../../test/support/harness.js";

/**
 * Serving: a port that closes lets the calls in progress finish (HTTP/2 and HTTP/1) and takes no
 * new ones; every call is counted per RPC and served at /metrics, on each service and the gateway.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A port whose CreateWorkspace answers after `delayMs` (and fails for the name "refuse"). */
async function slowServer(delayMs: number) {
  const metrics = new RpcMetrics("hiring");
  const state = { arrived: 0 };
  const routes = (router: ConnectRouter) =>
    router.service(HiringAdminService, {
      createWorkspace: async (req) => {
        state.arrived++;
        await sleep(delayMs);
        if (req.name === "refuse") throw new ConnectError("no", Code.FailedPrecondition);
        return { workspaceId: req.name };
      },
    });
  const listening = await serveConnect({ routes, interceptors: [metrics.interceptor], ready: async () => true, metrics: () => metrics.exposition(), port: 0, host: "127.0.0.1" });
  return { listening, metrics, state, url: `http://127.0.0.1:${listening.port}` };
}

for (const httpVersion of ["2", "1.1"] as const) {
  t.test(`closing lets the calls in progress finish and takes no new ones (HTTP/${httpVersion})`, async (t) => {
    const { listening, state, url } = await slowServer(400);
    // A pool of this test's own: no kept-alive connection of another test's (closed) port.
    const agent = new http.Agent({ keepAlive: true });
    t.teardown(() => agent.destroy());
    const transport = () =>
      httpVersion === "1.1" ? createConnectTransport({ baseUrl: url, httpVersion, nodeOptions: { agent } }) : createConnectTransport({ baseUrl: url, httpVersion });
    const client = createClient(HiringAdminService, transport());
    const calls = Array.from({ length: 5 }, (_, i) =>
      client.createWorkspace({ name: `w${i}` }).then(
        (a) => a.workspaceId,
        (err) => `failed: ${(err as Error).message}`,
      ),
    );
    // Closing once all five are being handled (on a busy machine that takes a while).
    while (state.arrived < 5) await sleep(5);
    const started = Date.now();
    const closed = listening.close(10_000);
    t.same(await Promise.all(calls), ["w0", "w1", "w2", "w3", "w4"], "every call in progress was answered");
    await closed;
    const took = Date.now() - started;
    t.ok(took < 5_000, `closed once they were answered (${took} ms), not at the end of the grace period`);
    const fresh = createClient(HiringAdminService, transport());
    await t.rejects(fresh.createWorkspace({ name: "late" }), { code: Code.Unavailable }, "a closed port takes no new call");
  });
}

t.test("closing cuts what is still running at the end of the grace period", async (t) => {
  const { listening, state, url } = await slowServer(5_000);
  const client = createClient(HiringAdminService, createConnectTransport({ baseUrl: url, httpVersion: "2" }));
  const call = client.createWorkspace({ name: "slow" });
  call.catch(() => undefined);
  while (state.arrived < 1) await sleep(5);
  const started = Date.now();
  await listening.close(300);
  t.ok(Date.now() - started < 2_000, "closed after the grace period");
  await t.rejects(call, "the call was cut");
});

t.test("every RPC is counted by procedure and code, with its latency", async (t) => {
  const { listening, metrics, url } = await slowServer(5);
  t.teardown(() => listening.close());
  const client = createClient(HiringAdminService, createConnectTransport({ baseUrl: url, httpVersion: "2" }));
  await client.createWorkspace({ name: "a" });
  await client.createWorkspace({ name: "b" });
  await t.rejects(client.createWorkspace({ name: "refuse" }));
  await t.rejects(client.revokeApiKey({}), { code: Code.Unimplemented });
  const text = await (await fetch(`${url}/metrics`)).text();
  t.equal(text, await metrics.exposition(), "GET /metrics serves the exposition");
  const rpc = "hiring.v1.HiringAdminService/CreateWorkspace";
  t.match(text, `rpc_requests_total{rpc="${rpc}",code="ok",service="hiring"} 2`);
  t.match(text, `rpc_requests_total{rpc="${rpc}",code="failed_precondition",service="hiring"} 1`);
  t.match(text, `rpc_request_duration_seconds_count{service="hiring",rpc="${rpc}"} 3`);
  t.match(text, /rpc_request_duration_seconds_bucket\{le="0\.005",service="hiring",rpc="[^"]+CreateWorkspace"\} \d/);
});

t.test("each service and the gateway serve their figures at /metrics", async (t) => {
  const sys = await startTestSystem(t);
  const user = await sys.signup("metrics");
  t.equal((await sys.api("GET", "/api/v9/me", { auth: user.auth })).status, 200);
  t.equal((await sys.api("GET", "/api/v9/nowhere")).status, 404);

  const gateway = await (await fetch(`${sys.url}/metrics`)).text();
  t.match(gateway, /http_requests_total\{route="\/api\/signup",method="POST",status="200",service="gateway"\} 1/, "the gateway counts per route");
  t.match(gateway, /http_requests_total\{route="\/api\/v9\/me",method="GET",status="200",service="gateway"\} 1/);
  t.match(gateway, /http_requests_total\{route="unmatched",method="GET",status="404",service="gateway"\} 1/, "paths no route serves share one series");
  t.match(gateway, /http_request_duration_seconds_count\{service="gateway",route="\/api\/signup",method="POST"\} 1/);

  const accounts = await (await fetch(`http://127.0.0.1:${sys.ports.accounts}/metrics`)).text();
  // Calls in memory (this process runs every service) are counted as the ones over the network.
  t.match(accounts, /rpc_requests_total\{rpc="accounts\.v1\.[A-Za-z]+\/[A-Za-z]+",code="ok",service="accounts"\} [1-9]/, "the accounts service counts its RPCs");
  const notifier = await (await fetch(`http://127.0.0.1:${sys.ports.notifier}/metrics`)).text();
  t.match(notifier, /# TYPE rpc_requests_total counter/, "the notifier has the RPC figures");
  t.match(notifier, /# TYPE webhook_deliveries_total counter/, "and its delivery figures");
  for (const name of ["hiring", "tracking"] as const) {
    const res = await fetch(`http://127.0.0.1:${sys.ports[name]}/metrics`);
    t.equal(res.status, 200, `${name} serves /metrics`);
    t.match(await res.text(), /# TYPE rpc_request_duration_seconds histogram/);
  }
});
