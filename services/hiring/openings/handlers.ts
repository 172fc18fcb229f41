import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { ExportService, OpeningSchema, type Opening } from "../../../gen/hiring/v1/export_pb.js";
import { hiringWorkspace } from "../../../lib/access.js";
import { hiringError } from "../../../lib/errors.js";
import type { HiringKit } from "../kit.js";
import { openings, type OpeningRow } from "./store.js";

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

/** The export API's openings (part of `ExportService`). */
export function openingHandlers({ storage }: HiringKit): Pick<ServiceImpl<typeof ExportService>, "listOpenings" | "getOpening"> {
  const { db } = storage;
  return {
    async listOpenings(_req, ctx) {
      const rows = await openings.list(db, hiringWorkspace(ctx));
      return { data: rows.map(openingMessage) };
    },

    async getOpening(req, ctx) {
      const row = await openings.get(db, hiringWorkspace(ctx), req.id);
      if (!row) throw hiringError.notFound();
      return { opening: openingMessage(row) };
    },
  };
}
