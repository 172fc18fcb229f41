import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { CategorySchema, ExportService, type Category } from "../../../gen/hiring/v1/export_pb.js";
import { hiringWorkspace } from "../../../lib/access.js";
import type { HiringKit } from "../kit.js";
import { given } from "../query-values.js";
import { categories, type CategoryRow } from "./store.js";

function categoryMessage(row: CategoryRow): Category {
  return create(CategorySchema, { id: row.id, name: row.name, jobOpeningId: row.job_opening_id });
}

/** The export API's categories (part of `ExportService`). */
export function categoryHandlers({ storage }: HiringKit): Pick<ServiceImpl<typeof ExportService>, "listCategories"> {
  const { db } = storage;
  return {
    async listCategories(req, ctx) {
      const rows = await categories.list(db, hiringWorkspace(ctx), given(req.jobOpeningId));
      return { data: rows.map(categoryMessage) };
    },
  };
}
