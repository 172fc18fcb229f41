import "../../lib/runtime.js";
import Fastify from "fastify";
import { loadConfig } from "../../lib/config.js";
import { connectDatabase } from "../../lib/db.js";
import { jsonIds } from "../../lib/ids.js";
import { newestFirst } from "../../services/tracking/time-entries/rules.js";
import { runningEntry, timeEntries, userEntries } from "../../services/tracking/time-entries/store.js";
import { bareTimer } from "./bare-timer.js";

/**
 * The time entries bench's reference server: the least any HTTP server can do to answer the same
 * reads and writes from the same table. One Fastify route per query runs the query the service
 * runs (the store's `userEntries`, the same filters, rows read and ordered the same way) and writes them as JSON;
 * no gateway, no RPC, no authentication, no message building. Started by bench/tracking/time-entries.ts
 * with the system's environment, BARE_PORT and BARE_USER.
 */

const config = loadConfig(process.env);
const userId = BigInt(process.env.BARE_USER!);
const db = await connectDatabase(config, "tracking");
const app = Fastify();
// The rows hold bigint ids: written as JSON numbers, as the service writes them.
const send = (rows: unknown) => JSON.stringify(rows, jsonIds);

app.get("/range", async (req) => {
  const q = req.query as { from: string; to: string };
  const rows = await userEntries(db, userId).whereNull("server_deleted_at").where("start", ">=", new Date(q.from)).where("start", "<", new Date(q.to));
  return send(rows.map((r: Record<string, unknown>) => timeEntries.read(r)).sort(newestFirst));
});
app.get("/since", async (req) => {
  const q = req.query as { since: string };
  const rows = await userEntries(db, userId).where("at", ">=", new Date(Number(q.since) * 1000));
  return send(rows.map((r: Record<string, unknown>) => timeEntries.read(r)).sort(newestFirst));
});
app.get("/current", async () => send((await runningEntry(db, userId)) ?? null));
const timer = bareTimer(db, userId, Number(process.env.BARE_WORKSPACE));
app.post("/start", async () => send({ id: await timer.start() }));
app.patch("/stop/:id", async (req) => send(await timer.stop(Number((req.params as { id: string }).id))));
await app.listen({ host: "127.0.0.1", port: Number(process.env.BARE_PORT) });
const stop = () => void app.close().then(() => db.destroy()).finally(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
