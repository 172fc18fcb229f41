import type { ConnectRouter } from "@connectrpc/connect";
import { TagService } from "../../../gen/tracking/v1/tags_pb.js";
import { trackingScope, trackingUserScope } from "../scope.js";
import { idBinding } from "../../../lib/ids.js";
import { changeRow, type ResourceKit } from "../../../lib/resource-kit.js";
import { deleteTag, insertTag, renameTag, tagMessage } from "./changes.js";
import { tagIdsNotInWorkspace, tagNameTaken, tagNotFound } from "../errors.js";
import { checkMayManageTags, tagIdsOf, tagName } from "./rules.js";
import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { tags, type TagRow } from "./store.js";

/** A deleted tag is gone for every endpoint but `GET /me/tags?since=`. */
const liveOnly = (row: TagRow): TagRow => {
  if (row.deleted_at) throw tagNotFound();
  return row;
};

export function tagHandlers({ storage, clock }: ResourceKit) {
  const { db } = storage;
  return (router: ConnectRouter) =>
    router.service(TagService, {
      async listTags(req, ctx) {
        const scope = trackingScope(ctx);
        const rows = await tags.list(db, scope.workspaceId, { where: { deleted_at: null } });
        return { tags: rows.map(tagMessage) };
      },

      async createTag(req, ctx) {
        const scope = trackingScope(ctx);
        checkMayManageTags(scope);
        const name = tagName(req.name);
        const row = await storage.change((trx, emit) => insertTag(trx, emit, scope, name, clock.now()), { onDuplicate: () => tagNameTaken(name) });
        return { tag: tagMessage(row) };
      },

      async updateTag(req, ctx) {
        const scope = trackingScope(ctx);
        checkMayManageTags(scope);
        const name = tagName(req.name);
        const where = { scope: scope.workspaceId, id: req.tagId, missing: tagNotFound };
        const row = await changeRow(storage, tags, where, (existing, trx, emit) => renameTag(trx, emit, scope, liveOnly(existing), name, clock.now()), {
          onDuplicate: () => tagNameTaken(name),
        });
        return { tag: tagMessage(row) };
      },

      async deleteTag(req, ctx) {
        const scope = trackingScope(ctx);
        checkMayManageTags(scope);
        const where = { scope: scope.workspaceId, id: req.tagId, missing: tagNotFound };
        await changeRow(storage, tags, where, (existing, trx, emit) => deleteTag(trx, emit, scope, liveOnly(existing), clock.now()));
        return {};
      },

      async deleteTags(req, ctx) {
        const scope = trackingScope(ctx);
        checkMayManageTags(scope);
        const ids = tagIdsOf(req.tagIds ? toJson(ValueSchema, req.tagIds) : undefined);
        if (ids.length === 0) return {};
        // All or none: one id that is not a live tag of the workspace refuses the whole request.
        await storage.change(async (trx, emit) => {
          const raws = await tags.query(trx, scope.workspaceId).whereIn("id", ids.map(idBinding)).whereNull("deleted_at").orderBy("id").forUpdate();
          if (raws.length !== ids.length) throw tagIdsNotInWorkspace();
          const now = clock.now();
          for (const raw of raws) await deleteTag(trx, emit, scope, tags.read(raw), now);
        });
        return {};
      },

      async listMyTags(req, ctx) {
        const workspaces = await trackingUserScope(ctx).memberships();
        if (workspaces.length === 0) return { tags: [] };
        const q = db(tags.table).whereIn("workspace_id", workspaces.map(idBinding));
        if (req.since === undefined) q.whereNull("deleted_at");
        else q.where("at", ">=", new Date(Number(req.since) * 1000));
        const rows = (await q.orderByRaw("LOWER(name)").orderBy("id")).map((raw: Record<string, unknown>) => tags.read(raw));
        return { tags: rows.map(tagMessage) };
      },
    });
}
