import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import { ExportService, OpeningSchema, type Opening } from "../../gen/hiring/v1/export_pb.js";
import { HiringAdminService } from "../../gen/hiring/v1/admin_pb.js";
import type { Clock } from "../../lib/clock.js";
import type { ServiceStorage } from "../../lib/runtime.js";
import { requireHiringWorkspace } from "../../lib/identity.js";
import { invalid, notFound, typedError } from "../../lib/errors.js";
import { sortableId } from "../../lib/ids.js";
import { HiringStore, type OpeningRow } from "./store.js";
import { newApiKey, parseApiKey, secretMatches } from "./keys.js";
import { importLists } from "./records.js";

function openingMessage(row: OpeningRow): Opening {
  return create(OpeningSchema, {
    id: row.id,
    name: row.name,
    slug: row.slug,
    createdAt: timestampFromDate(row.created_at),
    publishedAt: row.published_at ? timestampFromDate(row.published_at) : undefined,
    closedAt: row.closed_at ? timestampFromDate(row.closed_at) : undefined,
    tests: JSON.parse(row.tests),
  });
}

const unauthorized = () => typedError(Code.Unauthenticated, "UnauthorizedError");
const notFoundError = () => typedError(Code.NotFound, "NotFoundError");

export function hiringRoutes(storage: ServiceStorage, clock: Clock) {
  const store = new HiringStore(storage.db);

  return (router: ConnectRouter) => {
    router.service(ExportService, {
      async listOpenings(_req, ctx) {
        const rows = await store.openings(requireHiringWorkspace(ctx));
        return { data: rows.map(openingMessage) };
      },

      async getOpening(req, ctx) {
        const row = await store.opening(requireHiringWorkspace(ctx), req.id);
        if (!row) throw notFoundError();
        return { opening: openingMessage(row) };
      },
    });

    router.service(HiringAdminService, {
      async createWorkspace(req) {
        const name = req.name.trim();
        if (!name || name.length > 200) throw invalid("name must be 1 to 200 characters");
        const id = `ws_${sortableId().toLowerCase()}`;
        const key = newApiKey();
        const now = clock.now();
        await storage.transaction(async (trx) => {
          await store.createWorkspace(trx, id, name, now);
          await store.insertApiKey(trx, { id: key.id, workspace_id: id, secret_hash: key.secretHash, created_at: now });
        });
        return { workspaceId: id, name, apiKeyId: key.id, apiKey: key.key };
      },

      async createApiKey(req) {
        if (!(await store.workspaceExists(req.workspaceId))) throw notFound(`workspace ${req.workspaceId} not found`);
        const key = newApiKey();
        await store.insertApiKey(storage.db, { id: key.id, workspace_id: req.workspaceId, secret_hash: key.secretHash, created_at: clock.now() });
        return { apiKeyId: key.id, apiKey: key.key };
      },

      async revokeApiKey(req) {
        if (!(await store.revokeApiKey(req.apiKeyId, clock.now()))) throw notFound(`API key ${req.apiKeyId} not found or already revoked`);
        return {};
      },

      async verifyApiKey(req) {
        const parsed = parseApiKey(req.apiKey);
        if (!parsed) throw unauthorized();
        const row = await store.apiKey(parsed.id);
        if (!row || !secretMatches(parsed.secret, row.secret_hash)) throw unauthorized();
        return { workspaceId: row.workspace_id };
      },

      async import(req) {
        if (!(await store.workspaceExists(req.workspaceId))) throw notFound(`workspace ${req.workspaceId} not found`);
        const data: Record<string, unknown> = req.data ?? {};
        const lists = importLists(data, ["openings"]);
        const openings = lists.openings.map((r) => ({
          workspace_id: req.workspaceId,
          id: r.id(),
          name: r.string("name"),
          slug: r.string("slug", ""),
          created_at: r.date("created_at"),
          published_at: r.optionalDate("published_at"),
          closed_at: r.optionalDate("closed_at"),
          tests: JSON.stringify(r.list("tests").map((t) => ({ id: t.id(), name: t.string("name", ""), slug: t.string("slug", "") }))),
        }));
        await storage.transaction(async (trx) => {
          for (const row of openings) await store.upsertOpening(trx, row);
        });
        return { openings: openings.length };
      },
    });
  };
}
