import "../lib/runtime.js";
import Fastify from "fastify";
import { loadConfig } from "../lib/config.js";
import { connectDatabase } from "../lib/db.js";
import type { TestSummary } from "../services/hiring/candidates/scoring.js";
import type { CandidateListRow } from "../services/hiring/candidates/store.js";
import { HiringStore } from "../services/hiring/store.js";
import { benchListQuery } from "./support.js";

/**
 * The hiring bench's reference server: the least any HTTP server can do to answer the
 * candidate list from this store. One Fastify route runs the hiring store's queries (as the
 * bench's direct rows do) and writes the stored rows as JSON; no gateway, no RPC, no API key,
 * no message building (its JSON columns stay strings). Started by bench/hiring.ts with the
 * system's environment, BARE_PORT and BARE_WORKSPACE.
 *
 * A second route, `/answer`, writes the API's answer from the same rows by plain code (none of the
 * gateway's or the service's): the stored JSON columns parsed, the tests' times written as the API
 * writes them. Its `data` and `total` are the gateway's (the bench checks), so the
 * gateway's ratio to it is what the gateway and the RPC cost beyond the answer itself.
 */

const config = loadConfig(process.env);
const workspaceId = process.env.BARE_WORKSPACE!;
const db = await connectDatabase(config, "hiring");
const store = new HiringStore(db);
const app = Fastify();

async function page(query: Record<string, string | undefined>) {
  const q = benchListQuery(query);
  const after = q.afterId === undefined ? undefined : await store.listPosition(workspaceId, q.afterId);
  return store.listCandidates(workspaceId, q, after);
}

app.get("/candidates", async (req, reply) => {
  const { rows, total } = await page(req.query as Record<string, string | undefined>);
  return reply.type("application/json").send(JSON.stringify({ data: rows, links: { next: null }, total }));
});

/** The hiring API's timestamp: ISO 8601 without a zone, milliseconds only when there are some. */
function time(ms: number | null): string | null {
  if (ms === null) return null;
  const iso = new Date(ms).toISOString();
  return iso.slice(0, ms % 1000 === 0 ? 19 : 23);
}

/**
 * A list item as the API answers it. The list's columns come in the API's field order, and the stored
 * contact info is already the API's object; only the tests' times are written differently.
 */
function answerItem({ test_summaries, ...row }: CandidateListRow) {
  const tests = JSON.parse(test_summaries) as TestSummary[];
  return {
    ...row,
    contact_info: row.contact_info ? (JSON.parse(row.contact_info) as unknown) : null,
    tests: tests.map((t) => ({ type: t.type, started_at: time(t.started_at), finished_at: time(t.finished_at), points: t.points, score: t.score ?? null })),
  };
}

app.get("/answer", async (req, reply) => {
  const query = req.query as Record<string, string | undefined>;
  const { rows, total, more } = await page(query);
  const next = more ? `/api/v2/candidates?${new URLSearchParams({ ...query, after_id: rows[rows.length - 1].id } as Record<string, string>)}` : null;
  return reply.type("application/json").send(JSON.stringify({ data: rows.map(answerItem), links: { next }, total }));
});

await app.listen({ host: "127.0.0.1", port: Number(process.env.BARE_PORT) });
const stop = () => void app.close().then(() => db.destroy()).finally(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
