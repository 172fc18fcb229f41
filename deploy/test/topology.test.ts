import t from "tap";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import * as net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebhookAdminService } from "../../gen/notifier/v1/webhooks_pb.js";
import { HiringAdminService } from "../../gen/hiring/v1/admin_pb.js";
import { loadConfig, SERVICE_NAMES, type ServiceName } from "../../lib/config.js";
import { Directory } from "../../lib/directory.js";
import { cleanUp, freePort, STACK_MODE, startReceiver, type Received } from "../../test/support/harness.js";
import { candidate, opening } from "../../services/hiring/test/support.js";
import { render, type K8sObject } from "./render.js";

/**
 * What the production overlay describes, run as processes on this machine: each Deployment's
 * container as its own process (its command and args, its init container first), configured only
 * by the environment the manifests give it (the ConfigMap, the Secret it expects, and what the
 * cluster provides: an address per pod, a Service name per service). Two replicas of the gateway
 * and of the notifier, one of each other service (CPU is scarce here); MariaDB and NATS JetStream
 * are the external ones of the stack mode. A TCP proxy per Service spreads connections over the
 * ready replicas (kube-proxy); the test's client spreads requests over the gateway replicas (the
 * Ingress). Then one replica of each is stopped as Kubernetes stops a pod, mid-load: taken out of
 * the endpoints and sent SIGTERM at once (the manifests' preStop pause only adds slack).
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// About a minute here; more room when the suite's other file loads the two cores too.
if (STACK_MODE) t.setTimeout(240_000);

/** A Service: new connections go to the ready endpoints in turn. */
class ServiceProxy {
  endpoints: number[] = [];
  private next = 0;
  private readonly server = net.createServer((client) => {
    const port = this.endpoints[this.next++ % Math.max(this.endpoints.length, 1)];
    if (port === undefined) return void client.destroy();
    const upstream = net.connect(port, "127.0.0.1");
    client.pipe(upstream).on("error", () => client.destroy());
    upstream.pipe(client).on("error", () => upstream.destroy());
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  port = 0;
  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }
  close(): void {
    this.server.close();
  }
}

interface Pod {
  name: string;
  port: number;
  child: ChildProcess;
  exited: Promise<number | null>;
  log: string;
}

const ENV_BASE = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" });

t.test("the production topology serves through replicas and loses nothing when one of each stops", { skip: STACK_MODE ? false : "needs MariaDB and NATS JetStream (MYSQL_URL and NATS_URL, as in the stack mode of .ci/run)", timeout: 240_000 }, async (t) => {
  const objs = render("production");
  const find = (kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name) as K8sObject;
  const configMap = objs.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("workhub-config"))!;
  const dir = mkdtempSync(join(tmpdir(), "workhub-topology-"));
  const id = `t${randomBytes(4).toString("hex")}_`;

  // The Services (kube-proxy) and what the cluster gives every pod.
  const proxies = new Map<ServiceName, ServiceProxy>();
  for (const name of SERVICE_NAMES) {
    const p = new ServiceProxy();
    await p.listen();
    proxies.set(name, p);
  }
  const cluster: Record<string, string> = {
    // Service names resolve to the proxies; the external NATS is the stack mode's.
    ...Object.fromEntries(SERVICE_NAMES.map((n) => [`${n.toUpperCase()}_URL`, `http://127.0.0.1:${proxies.get(n)!.port}`])),
    NATS_URL: process.env.NATS_URL!,
    HOST: "127.0.0.1",
  };
  // The Secret the production overlay expects to exist (created by the operator).
  const secret = {
    INTERNAL_TOKEN: randomBytes(32).toString("base64url"),
    ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    MYSQL_URL: process.env.MYSQL_URL!,
  };
  // This test's own databases, stream and files (several test files share the server), and its
  // receiver on loopback.
  const isolation = { DATABASE_PREFIX: id, NATS_PREFIX: id, DATA_DIR: dir, WEBHOOK_ALLOW_INTERNAL: "1", LOG_LEVEL: "warn" };
  const podEnv = (port: Record<string, string>) => ({ ...ENV_BASE(), ...configMap.data, ...secret, ...cluster, ...isolation, ...port });
  const config = loadConfig(podEnv({}));
  t.teardown(async () => {
    for (const p of proxies.values()) p.close();
    await cleanUp(config);
  });

  const pods: Pod[] = [];
  // The survivors stop as they would in the cluster (their databases go after them).
  t.teardown(async () => {
    const running = pods.filter((p) => p.child.exitCode === null);
    for (const p of running) p.child.kill("SIGTERM");
    const late = setTimeout(() => running.forEach((p) => p.child.kill("SIGKILL")), 25_000);
    await Promise.all(running.map((p) => p.exited));
    clearTimeout(late);
  });
  const run = (name: string, container: any, env: NodeJS.ProcessEnv, port = 0): Pod => {
    const log = join(dir, `${name}-${pods.length}.log`);
    const fd = openSync(log, "a");
    const [cmd, ...args] = [...container.command, ...container.args];
    const child = spawn(cmd, args, { env, stdio: ["ignore", fd, fd] });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const pod = { name, port, child, exited, log };
    pods.push(pod);
    return pod;
  };
  const ready = async (pod: Pod, path: string, timeoutMs = 90_000) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (pod.child.exitCode !== null) throw new Error(`${pod.name} exited: ${readFileSync(pod.log, "utf8").slice(-2000)}`);
      const ok = await fetch(`http://127.0.0.1:${pod.port}${path}`, { signal: AbortSignal.timeout(2_000) }).then((r) => r.ok, () => false);
      if (ok) return;
      if (Date.now() > end) throw new Error(`${pod.name} not ready: ${readFileSync(pod.log, "utf8").slice(-2000)}`);
      await sleep(250);
    }
  };

  const replicas: Record<string, number> = { gateway: 2, notifier: 2, hiring: 1, accounts: 1, tracking: 1 };
  const started: Record<string, Pod[]> = {};
  const startDeployment = async (name: string) => {
    const spec = find("Deployment", name).spec.template.spec;
    t.ok(find("Deployment", name).spec.replicas >= replicas[name], `the overlay runs at least ${replicas[name]} ${name} replica(s)`);
    const container = spec.containers[0];
    // Each pod has its own address; here, its own port.
    const pods = await Promise.all(
      Array.from({ length: replicas[name] }, async (_, i) => {
        for (const init of spec.initContainers ?? []) {
          const job = run(`${name}-init`, init, podEnv({}));
          t.equal(await job.exited, 0, `${name}: the init container (${init.args.join(" ")}) succeeded`);
        }
        const port = await freePort();
        const pod = run(`${name}-${i}`, container, podEnv({ [name === "gateway" ? "PORT" : `${name.toUpperCase()}_PORT`]: String(port) }), port);
        await ready(pod, container.readinessProbe.httpGet.path);
        return pod;
      }),
    );
    started[name] = pods;
    if (name !== "gateway") proxies.get(name as ServiceName)!.endpoints = pods.map((p) => p.port);
  };
  await Promise.all(SERVICE_NAMES.map(startDeployment));
  await startDeployment("gateway");
  const gateways = [...started.gateway];
  t.pass(`${pods.filter((p) => !p.name.endsWith("init")).length} processes ready`);

  // The Ingress: requests go to the ready gateway replicas in turn.
  let rr = 0;
  const inflight = new Map<Pod, number>();
  const served = new Map<Pod, number>();
  const failures: string[] = [];
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const pod = gateways[rr++ % gateways.length];
    inflight.set(pod, (inflight.get(pod) ?? 0) + 1);
    try {
      const res = await fetch(`http://127.0.0.1:${pod.port}${path}`, {
        method,
        headers: { ...(body ? { "content-type": "application/json" } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      served.set(pod, (served.get(pod) ?? 0) + 1);
      if (res.status >= 300) failures.push(`${method} ${path} via ${pod.name}: ${res.status} ${text.slice(0, 200)}`);
      return text ? JSON.parse(text) : undefined;
    } catch (err) {
      failures.push(`${method} ${path} via ${pod.name}: ${(err as Error).message}`);
      return undefined;
    } finally {
      inflight.set(pod, inflight.get(pod)! - 1);
    }
  };

  // Hiring data, put in through the hiring Service (as the hiring application does).
  const directory = new Directory(config);
  const hiring = directory.client("hiring", HiringAdminService);
  const ws = await hiring.createWorkspace({ name: "Topology" });
  await hiring.import({
    workspaceId: ws.workspaceId,
    json: JSON.stringify({ openings: [opening("o")], candidates: Array.from({ length: 20 }, (_, i) => candidate({ id: `c${i}`, opening: "o", started: i })) }),
  });
  const hiringAuth = { authorization: `Bearer ${ws.apiKey}` };

  // Users signed up through the gateways, each with a webhook subscription on its workspace.
  const receiver = await startReceiver(t, () => ({ status: 200, delayMs: 5 }));
  const notifierAdmin = directory.client("notifier", WebhookAdminService);
  const users: { workspaceId: number; auth: Record<string, string>; path: string; created: string[] }[] = [];
  for (let i = 0; i < 4; i++) {
    const signup = await api("POST", "/api/signup", { email: `topology${i}.${id}@example.com`, password: "correct horse battery", display_name: `u${i}`, timezone: "UTC" });
    if (!signup) break;
    const path = `u${i}`;
    await notifierAdmin.createSubscription({ service: "tracking", workspaceId: String(signup.default_workspace_id), url: receiver.url(path) });
    users.push({ workspaceId: signup.default_workspace_id, auth: { authorization: `Basic ${Buffer.from(`${signup.api_token}:api_token`).toString("base64")}` }, path: `/${path}`, created: [] });
  }
  t.equal(users.length, 4, "four users signed up");

  // The load: per user, clients created one after another (their order is the creation order),
  // hiring reads and sign-ups alongside, until told to stop.
  let stop = false;
  let signups = 0;
  let reads = 0;
  let webhookReads = 0;
  const workers = [
    ...users.map(async (u) => {
      for (let n = 0; !stop; n++) {
        const c = await api("POST", `/api/v9/workspaces/${u.workspaceId}/clients`, { name: `client ${n}` }, u.auth);
        if (c) u.created.push(String(c.id));
      }
    }),
    (async () => {
      while (!stop) {
        const page = await api("GET", "/api/v2/candidates?limit=5", undefined, hiringAuth);
        if (page?.data?.length === 5) reads++;
      }
    })(),
    // Through the gateways to the notifier replicas (over the notifier Service).
    (async () => {
      for (let n = 0; !stop; n++) {
        const u = users[n % users.length];
        if (await api("GET", `/webhooks/api/v1/subscriptions/${u.workspaceId}`, undefined, u.auth)) webhookReads++;
      }
    })(),
    (async () => {
      for (let n = 0; !stop; n++) {
        if (await api("POST", "/api/signup", { email: `load${n}.${id}@example.com`, password: "correct horse battery", display_name: "load", timezone: "UTC" })) signups++;
      }
    })(),
  ];

  const stopPod = async (pod: Pod, from: Pod[], proxy?: ServiceProxy) => {
    // Out of the endpoints and SIGTERM at the same moment.
    // Mid-load: with requests in flight on it, when it has any (the gateways always do).
    for (let i = 0; i < 200 && proxy === undefined && !(inflight.get(pod) ?? 0); i++) await sleep(10);
    from.splice(from.indexOf(pod), 1);
    if (proxy) proxy.endpoints = from.map((p) => p.port);
    const busy = inflight.get(pod) ?? 0;
    const began = Date.now();
    pod.child.kill("SIGTERM");
    const code = await pod.exited;
    return { code, busy, tookMs: Date.now() - began, log: pod.log };
  };

  await sleep(4_000);
  const deliveredBefore = receiver.received.length;
  const notifierMetrics = await Promise.all(started.notifier.map((p) => fetch(`http://127.0.0.1:${p.port}/metrics`).then((r) => r.text())));
  const gatewayStop = stopPod(gateways[0], gateways);
  await sleep(1_000);
  const notifierStop = stopPod(started.notifier[0], started.notifier, proxies.get("notifier"));
  const [g, n] = await Promise.all([gatewayStop, notifierStop]);
  await sleep(3_000);
  stop = true;
  await Promise.all(workers);

  t.equal(g.code, 0, `the gateway replica exited cleanly on SIGTERM (${g.busy} requests in flight, ${g.tookMs} ms)`, { log: readFileSync(g.log, "utf8").slice(-1500) });
  t.ok(g.tookMs < 25_000, "within the grace period after the preStop pause");
  t.ok(g.busy > 0, "it had requests in flight when it was told to stop");
  t.equal(n.code, 0, `the notifier replica exited cleanly on SIGTERM (${n.tookMs} ms)`, { log: readFileSync(n.log, "utf8").slice(-1500) });
  t.ok(n.tookMs < 25_000, "within the grace period after the preStop pause");
  t.same(failures, [], "no request failed");
  t.ok([...served.values()].filter((c) => c > 0).length === 2, `both gateway replicas served (${[...served.values()].join(" and ")} requests)`);
  t.ok(signups > 0 && reads > 0 && webhookReads > 0, `sign-ups (${signups}), hiring reads (${reads}) and webhook subscription reads (${webhookReads}) went on`);
  t.ok(deliveredBefore > 0, `webhooks were delivered before the stops (${deliveredBefore})`);
  for (const text of notifierMetrics) t.match(text, /# TYPE rpc_requests_total counter[^]*# TYPE webhook_deliveries_total counter/, "each notifier replica serves its figures at /metrics");

  // Every client's notification arrives, in creation order, once the survivors have caught up.
  const firsts = (path: string) => {
    const out: string[] = [];
    for (const r of receiver.received as Received[]) if (r.path === path && r.status === 200 && !out.includes(r.json.metadata.object_id)) out.push(r.json.metadata.object_id);
    return out;
  };
  const total = users.reduce((s, u) => s + u.created.length, 0);
  await receiver.until(() => users.every((u) => firsts(u.path).length >= u.created.length), 60_000).catch(() => undefined);
  for (const u of users) t.same(firsts(u.path), u.created, `${u.path}: every notification (${u.created.length}), in creation order`);
  t.ok(total > 20, `${total} clients created during the test`);
});

t.test("a container's command stops cleanly on SIGTERM, answering the call in progress", async (t) => {
  // Both modes: the signal has to pass npm (the image's entry point) to node, which then drains.
  const objs = render("production");
  const container = objs.find((o) => o.kind === "Deployment" && o.metadata.name === "hiring")!.spec.template.spec.containers[0];
  const dir = mkdtempSync(join(tmpdir(), "workhub-sigterm-"));
  const port = await freePort();
  const env = { ...ENV_BASE(), DATA_DIR: dir, HIRING_PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", MYSQL_URL: "", NATS_URL: "" };
  const config = loadConfig(env);
  t.teardown(() => cleanUp(config));
  const [cmd, ...args] = [...container.command, ...container.args];
  const child = spawn(cmd, args, { env, stdio: "ignore" });
  t.teardown(() => void child.kill("SIGKILL"));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; !(await fetch(`${url}/readyz`).then((r) => r.ok, () => false)); i++) {
    if (i > 300) throw new Error("hiring did not become ready");
    await sleep(100);
  }
  const admin = new Directory({ ...config, serviceUrls: { ...config.serviceUrls, hiring: url } }).client("hiring", HiringAdminService);
  const ws = await admin.createWorkspace({ name: "sigterm" });
  // An import large enough to be in progress when the signal comes.
  const json = JSON.stringify({ openings: [opening("o")], candidates: Array.from({ length: 4000 }, (_, i) => candidate({ id: `c${i}`, opening: "o", started: i })) });
  const importing = admin.import({ workspaceId: ws.workspaceId, json });
  await sleep(300);
  const began = Date.now();
  child.kill("SIGTERM");
  const result = await importing.then(() => "answered", (err) => `failed: ${(err as Error).message}`);
  t.equal(result, "answered", "the call in progress was answered");
  t.equal(await exited, 0, `exited with 0 (${Date.now() - began} ms)`);
  await t.rejects(admin.createWorkspace({ name: "late" }), "a stopped process takes no call");
});
