import "../lib/runtime.js";
import Fastify from "fastify";
import { loadConfig } from "../lib/config.js";
import { connectDatabase } from "../lib/db.js";
import { HiringStore } from "../services/hiring/store.js";
import { benchListQuery } from "./support.js";

/**
 * The hiring bench's reference server: the least any HTTP server can do to answer the
 * candidate list from this store. One Fastify route runs the hiring store's queries (as the
 * bench's direct rows do) and writes the stored rows as JSON; no gateway, no RPC, no API key,
 * no message building (its JSON columns stay strings). Started by bench/hiring.ts with the
 * system's environment, BARE_PORT and BARE_WORKSPACE.
 */

const config = loadConfig(process.env);
const workspaceId = process.env.BARE_WORKSPACE!;
const db = await connectDatabase(config, "hiring");
const store = new HiringStore(db);
const app = Fastify();
app.get("/candidates", async (req, reply) => {
  const query = benchListQuery(req.query as Record<string, string | undefined>);
  const after = query.afterId === undefined ? undefined : await store.listPosition(workspaceId, query.afterId);
  const page = await store.listCandidates(workspaceId, query, after);
  return reply.type("application/json").send(JSON.stringify({ data: page.rows, links: { next: null }, total: page.total }));
});
await app.listen({ host: "127.0.0.1", port: Number(process.env.BARE_PORT) });
const stop = () => void app.close().then(() => db.destroy()).finally(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
