import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { ExportService, TagSchema, type Tag } from "../../../gen/hiring/v1/export_pb.js";
import { hiringWorkspace } from "../../../lib/access.js";
import type { HiringKit } from "../kit.js";
import { tags, type TagRow } from "./store.js";

function tagMessage(row: TagRow): Tag {
  return create(TagSchema, { id: row.id, name: row.name });
}

/** The export API's tags (part of `ExportService`). */
export function tagHandlers({ storage }: HiringKit): Pick<ServiceImpl<typeof ExportService>, "listTags"> {
  const { db } = storage;
  return {
    async listTags(_req, ctx) {
      const rows = await tags.list(db, hiringWorkspace(ctx));
      return { data: rows.map(tagMessage) };
    },
  };
}
