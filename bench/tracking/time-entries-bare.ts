import "../../lib/runtime.js";
import Fastify from "fastify";
import { loadConfig } from "../../lib/config.js";
import { connectDatabase, type Knex } from "../../lib/db.js";
import { idBinding, jsonIds } from "../../lib/ids.js";
import { runAgainOnConflict } from "../../lib/storage.js";
import { newestFirst } from "../../services/tracking/time-entries/rules.js";
import { runningEntry, timeEntries, userEntries } from "../../services/tracking/time-entries/store.js";

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
/** A transaction, run again when it loses a conflict with another process's write, as the service's changes are. */
const change = <T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> => runAgainOnConflict(() => db.transaction(work));

/** A start: stop the running row and insert a running one, in one transaction. */
app.post("/start", async () => {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const id = await change(async (trx) => {
    const running = await trx(timeEntries.table).where("running_user_id", idBinding(userId)).first().forUpdate();
    if (running) await trx(timeEntries.table).where("id", running.id).update({ stop: now, duration: 0, running_user_id: null, at: new Date() });
    const [inserted] = await trx(timeEntries.table).insert({
      workspace_id: Number(process.env.BARE_WORKSPACE), user_id: userId, billable: false, start: now, duration: -Math.round(now.getTime() / 1000),
      running_user_id: userId, tag_ids: "[]", shared_with_user_ids: "[]", created_with: "bare", created_at: new Date(), at: new Date(),
    });
    return Number(inserted);
  });
  return send({ id });
});
/** A stop: the row locked, then stopped. */
app.patch("/stop/:id", async (req) => {
  const id = Number((req.params as { id: string }).id);
  const row = await change(async (trx) => {
    const running = await trx(timeEntries.table).where("id", id).first().forUpdate();
    await trx(timeEntries.table).where("id", id).update({ stop: new Date(), duration: 0, running_user_id: null, at: new Date() });
    return running;
  });
  return send(row);
});
await app.listen({ host: "127.0.0.1", port: Number(process.env.BARE_PORT) });
const stop = () => void app.close().then(() => db.destroy()).finally(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
