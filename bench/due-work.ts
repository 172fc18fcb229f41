/**
 * What the notifier's look for due work costs against the size of the backlog: BENCH_QUEUES
 * subscriptions with BENCH_PENDING pending notifications each, then one of them given
 * BENCH_STUCK more (a receiver that has been down), each size timed over BENCH_LOOKS looks of
 * `DispatchStore.dueSubscriptions` on the engine the environment names (SQLite, or MySQL with
 * MYSQL_URL). The dispatcher looks every 250 ms and whenever it is told of new work. Beside each
 * look, the queue-depth count (`NotificationStore.pendingCounts`, what a metrics scrape and
 * GetMetrics run), which counts every pending notification and so grows with the backlog.
 *
 *   npm run bench:due
 *   MYSQL_URL=mysql://root@127.0.0.1:3306 npm run bench:due
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../lib/config.js";
import { dropDatabase, openDatabase } from "../lib/db.js";
import { SecretBox } from "../lib/secret-box.js";
import { DispatchStore } from "../services/notifier/delivery/dispatch-store.js";
import { IngestStore } from "../services/notifier/delivery/ingest-store.js";
import { NotificationStore, type NewNotification } from "../services/notifier/notifications/store.js";
import { migrations } from "../services/notifier/migrations.js";
import { log } from "./support.js";

const QUEUES = Number(process.env.BENCH_QUEUES ?? 100);
const PENDING = Number(process.env.BENCH_PENDING ?? 300);
const STUCK = (process.env.BENCH_STUCK ?? "0,20000,200000").split(",").map(Number);
const LOOKS = Number(process.env.BENCH_LOOKS ?? 20);

const dataDir = mkdtempSync(join(tmpdir(), "bench-due-"));
const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DATABASE_PREFIX: `bench_due_${process.pid}_` });
const engine = config.mysqlUrl ? "MySQL" : "SQLite";
if (config.mysqlUrl) await dropDatabase(config, "notifier");
const db = await openDatabase(config, "notifier", migrations);
const store = new DispatchStore(db, new SecretBox(config.encryptionKey));
const notifications = new NotificationStore(db);
const now = new Date();

await db("subscriptions").insert(
  Array.from({ length: QUEUES }, (_, i) => ({ id: i + 1, family: "tracking", workspace_id: "1", url: "http://receiver.test/", secret: "", event_filters: "[]", created_at: now, updated_at: now })),
);
const ingest = new IngestStore(db);
let queued = 0;
/** `events` more pending notifications for each of `subscriptions`, queued event by event as ingest queues them. */
async function queue(subscriptions: number[], events: number): Promise<void> {
  const rows: NewNotification[] = [];
  for (let e = 0; e < events; e++) {
    for (const s of subscriptions) rows.push({ id: `ntf_${queued}`, subscription_id: BigInt(s), event_id: `evt_${queued++}`, state: "pending", attempts: 0, next_attempt_at_ms: 0, created_at: now });
  }
  await ingest.enqueue(rows, []);
}

/** `call` run LOOKS times after one untimed run: wall and this process's CPU ms a call, and its last answer. */
async function timed<T>(call: () => Promise<T>): Promise<{ wallMs: number; cpuMs: number; last: T }> {
  let last = await call();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < LOOKS; i++) last = await call();
  const used = process.cpuUsage(cpu);
  return { wallMs: (performance.now() - started) / LOOKS, cpuMs: (used.user + used.system) / 1000 / LOOKS, last };
}

const lookOptions = { holder: "rep_bench", share: { index: 0, of: 1 }, limit: 1000 };
/** A look for due work, as the dispatcher makes it. */
const look = () => store.dueSubscriptions({ ...lookOptions, nowMs: Date.now() });
/** The queue depths, as a metrics scrape reads them. */
const depths = () => notifications.pendingCounts();

log(`${engine}: ${QUEUES} queues of ${PENDING}, then one of them longer by ${STUCK.join(", ")}; ${LOOKS} looks each`);
await queue(Array.from({ length: QUEUES }, (_, i) => i + 1), PENDING);
console.log(`engine ${engine}`);
console.log("pending      wall ms a look   CPU ms a look (this process)   due   wall ms a depth count   counted");
let stuck = 0;
for (const size of STUCK) {
  await queue([1], size - stuck);
  stuck = size;
  const r = await timed(look);
  const d = await timed(depths);
  const counted = [...d.last.values()].reduce((a, b) => a + b, 0);
  console.log(
    `${String(QUEUES * PENDING + stuck).padEnd(12)} ${r.wallMs.toFixed(2).padStart(15)} ${r.cpuMs.toFixed(2).padStart(31)} ${String(r.last.length).padStart(5)} ${d.wallMs.toFixed(2).padStart(23)} ${String(counted).padStart(9)}`,
  );
}
await db.destroy();
if (config.mysqlUrl) await dropDatabase(config, "notifier");
rmSync(dataDir, { recursive: true, force: true });
