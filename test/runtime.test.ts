import t from "tap";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../lib/config.js";
import { gcTraceFile, startProcess, stopProcess, summarizeGcTrace } from "../bench/support.js";
import { cleanUp, freePort, testEnv } from "./support/harness.js";

/**
 * lib/runtime.ts: the V8 settings of a server's process. Every entry point that serves requests
 * imports it before anything else, and in a running system a request's objects are collected
 * young: the young collections promote next to nothing to the old generation.
 */

const root = join(import.meta.dirname, "..");
t.setTimeout(120_000);

const SERVERS = ["cmd/start.ts", "cmd/service.ts", "bench/bare-server.ts", "bench/tracking/time-entries-bare.ts", "bench/webhooks-system.ts", "bench/webhooks-floor.ts", "bench/layers.ts"];

t.test("every server's entry point imports lib/runtime first", async (t) => {
  for (const entry of SERVERS) {
    const first = readFileSync(join(root, entry), "utf8").split("\n").find((line) => line.startsWith("import "));
    t.match(first, /^import "(\.\.\/)+lib\/runtime\.js";$/, entry);
  }
});

t.test("the system's young collections leave a request's objects young", async (t) => {
  const port = await freePort();
  // Embedded, in both modes of the suite: on MariaDB the system still promotes about 130 KiB per
  // young collection with pretenuring off (235 with it on), not yet explained (docs/gateway-cost.md).
  const env = testEnv({ PORT: String(port), LOG_LEVEL: "warn", MYSQL_URL: "", NATS_URL: "" });
  const traces = mkdtempSync(join(tmpdir(), "runtime-gc-"));
  const base = `http://127.0.0.1:${port}`;
  const child = await startProcess("cmd/start.ts", env, `${base}/readyz`, { gcTraceDir: traces });
  t.teardown(async () => {
    await stopProcess(child);
    await cleanUp(loadConfig(env));
    rmSync(traces, { recursive: true, force: true });
  });
  const trace = () => readFileSync(gcTraceFile(traces, "cmd/start.ts"), "utf8");
  const email = `gc${Date.now()}@example.com`;
  const signup = await fetch(`${base}/api/signup`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: "correct horse battery", display_name: "gc", timezone: "UTC" }) });
  t.equal(signup.status, 200);
  const { default_workspace_id: workspaceId } = (await signup.json()) as { default_workspace_id: number };
  const authorization = `Basic ${Buffer.from(`${email}:correct horse battery`).toString("base64")}`;
  const started = await fetch(`${base}/api/v9/workspaces/${workspaceId}/time_entries`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ created_with: "gc", start: new Date().toISOString().slice(0, 19) + "Z", workspace_id: workspaceId, duration: -1 }),
  });
  t.equal(started.status, 200);

  // Many small reads, four at a time; the trace of the second half is read (the first warms up).
  const reads = async (n: number) => {
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = 0; i < n / 4; i++) {
          const res = await fetch(`${base}/api/v9/me/time_entries/current`, { headers: { authorization } });
          if (res.status !== 200) throw new Error(`current: ${res.status}`);
          await res.arrayBuffer();
        }
      }),
    );
  };
  await reads(2_000);
  const from = trace().length;
  await reads(6_000);
  const s = summarizeGcTrace(trace().slice(from));
  t.ok(s.young >= 3, `young collections while reading: ${s.young}`);
  // With V8's allocation-site pretenuring on, each young collection promoted 200-400 KiB of
  // requests' objects; without it a few KiB.
  const promotedKiB = s.promotedBytes / s.young / 1024;
  t.ok(promotedKiB < 64, `KiB promoted per young collection: ${promotedKiB.toFixed(1)}`);
});
