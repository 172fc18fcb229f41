import type { ServiceImpl } from "@connectrpc/connect";
import type { ExportService } from "../../../gen/hiring/v1/export_pb.js";
import { caller } from "../../../lib/identity.js";
import { hiringWorkspace } from "../../../lib/access.js";
import { hiringError } from "../../../lib/errors.js";
import type { HiringKit } from "../kit.js";
import { candidates } from "./store.js";
import { CandidateList } from "./list.js";
import { candidateQuery, nextPageUrl, validationError } from "./query.js";
import { candidateDetailMessage, candidateMessage } from "./view.js";

/** The export API's candidates (part of `ExportService`). */
export function candidateHandlers({ storage }: HiringKit): Pick<ServiceImpl<typeof ExportService>, "listCandidates" | "getCandidate"> {
  const { db } = storage;
  const list = new CandidateList(db);
  return {
    async listCandidates(req, ctx) {
      const workspaceId = hiringWorkspace(ctx);
      const query = candidateQuery(req);
      let after: { sortKey: Date; id: string } | undefined;
      if (query.afterId !== undefined) {
        after = await list.listPosition(workspaceId, query.afterId);
        if (!after) throw validationError("after_id names no candidate of this workspace's list");
      }
      const page = await list.listCandidates(workspaceId, query, after);
      const last = page.rows[page.rows.length - 1];
      return {
        data: page.rows.map(candidateMessage),
        links: { next: page.more && last ? nextPageUrl(caller(ctx).requestUrl, last.id) : undefined },
        total: BigInt(page.total),
      };
    },

    async getCandidate(req, ctx) {
      const found = await candidates.listed(db, hiringWorkspace(ctx), req.id);
      if (!found) throw hiringError.notFound();
      return { candidate: candidateDetailMessage(found.row, found.tagIds) };
    },
  };
}
