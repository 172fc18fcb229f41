import { fromBinary } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { EventSchema } from "./gen/events/v1/event_pb.js";
import { startTestSystem } from "./test/support/harness.js";
import { WebhookAdminService } from "./gen/notifier/v1/webhooks_pb.js";
import type { Notifier } from "./services/notifier/index.js";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { spawn } from "node:child_process";
const fns: (() => unknown)[] = [];
const t = { teardown: (f: () => unknown) => fns.push(f) };
const sys = await startTestSystem(t, { env: { LOG_LEVEL: "warn" } });
const n = sys.services.get("notifier") as Notifier;
const user = await sys.signup("x");
// receivers in a separate process
const recv = spawn(process.execPath, ["-e", `const http=require("http");const s=http.createServer((q,r)=>{q.resume();q.on("end",()=>r.end())});s.listen(0,"127.0.0.1",()=>console.log(s.address().port))`], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise<number>((res) => recv.stdout!.once("data", (d) => res(Number(String(d).trim()))));
const admin = sys.directory.client("notifier", WebhookAdminService);
for (let i = 0; i < 100; i++) await admin.createSubscription({ service: "tracking", workspaceId: String(user.workspaceId), url: `http://127.0.0.1:${port}/s${i}` });
const stats: Record<string, number[]> = { toIngest: [], ingestMs: [], enqueueMs: [], subsMs: [], readMs: [], recordMs: [] };
const ing = n.ingester as any; const origIngest = ing.ingest.bind(ing);
ing.ingest = async (batch: any[]) => {
  const t0 = Date.now();
  for (const m of batch) { const e = fromBinary(EventSchema, m.data); stats.toIngest.push(t0 - timestampDate(e.occurredAt!).getTime()); }
  await origIngest(batch); stats.ingestMs.push(Date.now() - t0);
};
const st = n.store as any;
for (const [name, key] of [["enqueue", "enqueueMs"], ["pendingBatches", "readMs"], ["recordResults", "recordMs"], ["subscriptionsOfWorkspaces", "subsMs"]] as const) {
  const orig = st[name].bind(st);
  st[name] = async (...a: any[]) => { const t0 = Date.now(); try { return await orig(...a); } finally { stats[key].push(Date.now() - t0); } };
}
const h = monitorEventLoopDelay({ resolution: 5 }); h.enable();
const started = Date.now();
for (let i = 0; i < 150; i++) {
  const due = started + i * 1000 / 12; if (due > Date.now()) await new Promise((res) => setTimeout(res, due - Date.now()));
  await sys.api("POST", `/api/v9/workspaces/${user.workspaceId}/clients`, { auth: user.auth, body: { name: "c" + i } });
}
await new Promise((r) => setTimeout(r, 3000));
h.disable();
const q = (a: number[], p: number) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
for (const [k, v] of Object.entries(stats)) console.log(k, "n", v.length, "p50", q(v, 0.5), "p90", q(v, 0.9), "p99", q(v, 0.99), "max", Math.max(...v));
console.log("event loop delay ms p50", (h.percentile(50) / 1e6).toFixed(1), "p99", (h.percentile(99) / 1e6).toFixed(1), "max", (h.max / 1e6).toFixed(1));
console.log("deliveries", n.counters.deliveries, "latency p50", n.counters.quantile(0.5), "p99", n.counters.quantile(0.99));
recv.kill();
for (const f of fns.reverse()) await f();
process.exit(0);
