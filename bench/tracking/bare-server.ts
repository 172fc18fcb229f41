import Fastify from "fastify";
import { create } from "@bufbuild/protobuf";
import { ListProjectsRequestSchema } from "../../gen/tracking/v1/projects_pb.js";
import { loadConfig } from "../../lib/config.js";
import { connectDatabase } from "../../lib/db.js";
import { jsonIds } from "../../lib/ids.js";
import { coerceParam } from "../../lib/rest-json.js";
import { visibleTo, type Viewer } from "../../services/tracking/projects/access.js";
import { filterProjects, listRows } from "../../services/tracking/projects/list.js";
import { dayOf } from "../../services/tracking/projects/rules.js";
import { projects } from "../../services/tracking/projects/store.js";
import { projectGroups } from "../../services/tracking/project-groups/store.js";
import { actualSeconds } from "../../services/tracking/time-entries/project-link.js";

/**
 * The projects section's reference server: the least any HTTP server can do to answer the
 * project list from this schema. One Fastify route reads the query as the gateway does, runs the
 * projects list's own reads (visibility, filters, sort, page; the project groups check; the
 * page's tracked time) for one member, and writes the stored rows as JSON; no gateway, no RPC,
 * no credentials, no message building. Started by
 * bench/tracking/projects.ts with the system's environment, BARE_PORT, BARE_WORKSPACE and BARE_USER.
 */

const config = loadConfig(process.env);
const db = await connectDatabase(config, "tracking");
const viewer: Viewer = { workspace: BigInt(process.env.BARE_WORKSPACE!), userId: BigInt(process.env.BARE_USER!), admin: false, groupIds: [] };
const app = Fastify();
app.get("/projects", async (req, reply) => {
  const query = req.query as Record<string, string | string[]>;
  const init: Record<string, unknown> = {};
  for (const field of ListProjectsRequestSchema.fields) if (query[field.name] !== undefined) init[field.localName] = coerceParam(field, query[field.name]);
  const request = create(ListProjectsRequestSchema, init);
  const q = filterProjects(db, visibleTo(db, projects.query(db, viewer.workspace), viewer), request, viewer, dayOf(new Date()));
  const rows = await listRows(db, q, viewer.workspace);
  // The same reads as the endpoint's: whether the workspace assigns groups to projects (what
  // decides whether a member's groups are asked for), and the page's tracked time.
  await projectGroups.query(db, viewer.workspace).first("id");
  const actual = await actualSeconds(db, viewer.workspace, rows.map((r) => r.id));
  return reply.type("application/json").send(JSON.stringify(rows.map((r) => ({ ...r, actual_seconds: actual.get(r.id) })), jsonIds));
});
await app.listen({ host: "127.0.0.1", port: Number(process.env.BARE_PORT) });
const stop = () => void app.close().then(() => db.destroy()).finally(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
