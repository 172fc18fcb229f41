import t from "tap";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebhookAdminService } from "../../../gen/notifier/v1/webhooks_pb.js";
import { loadConfig } from "../../../lib/config.js";
import { Directory } from "../../../lib/directory.js";
import { cleanUp, freePort, STACK_MODE, startTestSystem, testEnv, type TestContext, type TrackUser, startReceiver, type Received } from "../../../test/support/harness.js";
import { openBus, publishEvent } from "./support.js";

/**
 * At least once, in order, across restarts: of the notifier (killed, in both modes) and of NATS
 * (in the stack mode).
 */

async function untilListening(port: number, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => (socket.destroy(), resolve(true)));
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > end) throw new Error(`nothing listens on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function untilOk(url: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok).catch(() => false);
    if (ok) return;
    if (Date.now() > end) throw new Error(`${url} did not become ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Object ids in the order their first successful delivery arrived. */
function firstSuccesses(received: Received[]): string[] {
  const out: string[] = [];
  for (const r of received) if (r.status === 200 && !out.includes(r.json.metadata.object_id)) out.push(r.json.metadata.object_id);
  return out;
}

/** A whole system (`npm start`) in a child process, so that it can be killed. */
async function startChild(t: TestContext, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "cmd/start.ts"], { env: { ...process.env, ...env }, stdio: "ignore" });
  t.teardown(() => void child.kill("SIGKILL"));
  await untilOk(`http://127.0.0.1:${env.PORT}/readyz`);
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

t.test("a notifier killed in the middle of delivering loses nothing and keeps the order", async (t) => {
  const ports = { PORT: 0, HIRING_PORT: 0, ACCOUNTS_PORT: 0, TRACKING_PORT: 0, NOTIFIER_PORT: 0 };
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  const env = testEnv(Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])));
  const config = loadConfig(env);
  t.teardown(() => cleanUp(config));
  const gateway = `http://127.0.0.1:${ports.PORT}`;
  const api = async (path: string, body: unknown, auth?: string) => {
    const res = await fetch(`${gateway}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };

  let child = await startChild(t, env);
  const signup = await api("/api/signup", { email: `crash.${ports.PORT}@example.com`, password: "correct horse battery", display_name: "crash", timezone: "UTC" });
  const user: Pick<TrackUser, "workspaceId"> & { authorization: string } = {
    workspaceId: signup.default_workspace_id,
    authorization: `Basic ${Buffer.from(`${signup.api_token}:api_token`).toString("base64")}`,
  };
  const receiver = await startReceiver(t, () => ({ status: 200, delayMs: 40 }));
  const directory = new Directory(config);
  await directory.client("notifier", WebhookAdminService).createSubscription({ service: "tracking", workspaceId: String(user.workspaceId), url: receiver.url() });

  const created: string[] = [];
  const createClients = async (n: number, prefix: string) => {
    for (let i = 0; i < n; i++) created.push(String((await api(`/api/v9/workspaces/${user.workspaceId}/clients`, { name: `${prefix} ${i}` }, user.authorization)).id));
  };
  await createClients(12, "before");
  await receiver.until(() => receiver.received.length >= 3);
  await kill(child);
  const atKill = firstSuccesses(receiver.received).length;
  t.ok(atKill < created.length, `killed with ${created.length - atKill} notifications not yet delivered`);

  if (STACK_MODE) {
    // Events that reach the stream while no notifier runs wait there.
    const bus = await openBus(config);
    for (let i = 0; i < 3; i++) {
      const objectId = `while-down-${i}`;
      await publishEvent(bus, { workspaceId: String(user.workspaceId), objectId });
      created.push(objectId);
    }
    await bus.close();
  }

  child = await startChild(t, env);
  await createClients(4, "after");
  // The killed process's claims and leases expire first (15 s at most).
  await receiver.until(() => firstSuccesses(receiver.received).length === created.length, 60_000);
  const delivered = firstSuccesses(receiver.received);
  t.same([...delivered].sort(), [...created].sort(), "every notification arrived");
  // The events published straight to the stream may come before a client made just before the
  // kill whose outbox row the restarted relay published later: order is the stream's order,
  // which each producer's own events keep.
  const direct = (id: string) => id.startsWith("while-down-");
  t.same(
    delivered.filter((id) => !direct(id)),
    created.filter((id) => !direct(id)),
    "the clients' notifications in creation order",
  );
  t.same(
    delivered.filter(direct),
    created.filter(direct),
    "the events published while the notifier was down, in order",
  );
  await kill(child);
});

if (STACK_MODE) {
  t.test("a NATS restart loses nothing and keeps the order", async (t) => {
    // A NATS server of this test's own (same flags as the shared one, its own port and store),
    // so that restarting it does not disturb the test files that run alongside.
    const port = await freePort();
    const store = mkdtempSync(join(tmpdir(), "workhub-nats-"));
    const args = ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store];
    let nats: ChildProcess | undefined;
    const startNats = async () => {
      nats = spawn("/usr/sbin/nats-server", args, { stdio: "ignore" });
      await untilListening(port);
    };
    const stopNats = async () => {
      const exited = new Promise((resolve) => nats!.once("exit", resolve));
      nats!.kill("SIGTERM");
      await exited;
    };
    t.teardown(() => {
      nats?.kill("SIGKILL");
      rmSync(store, { recursive: true, force: true });
    });
    await startNats();

    const sys = await startTestSystem(t, { env: { NATS_URL: `nats://127.0.0.1:${port}` } });
    const user = await sys.signup("nats");
    const receiver = await startReceiver(t);
    await sys.directory.client("notifier", WebhookAdminService).createSubscription({ service: "tracking", workspaceId: String(user.workspaceId), url: receiver.url() });
    const created: string[] = [];
    const createClients = async (n: number, prefix: string) => {
      for (let i = 0; i < n; i++) {
        const res = await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name: `${prefix} ${i}` } });
        created.push(String(res.body.id));
      }
    };
    await createClients(5, "before");
    await receiver.until(() => firstSuccesses(receiver.received).length === 5);
    await stopNats();
    await createClients(5, "while NATS is down");
    await startNats();
    await createClients(5, "after");
    await receiver.until(() => firstSuccesses(receiver.received).length === created.length, 60_000);
    t.same(firstSuccesses(receiver.received), created, "every notification, in creation order");
  });
}
