import type { ServiceImpl } from "@connectrpc/connect";
import type { HiringAdminService } from "../../../gen/hiring/v1/admin_pb.js";
import type { Knex } from "../../../lib/db.js";
import type { Emit } from "../../../lib/storage.js";
import { hiringError, notFound } from "../../../lib/errors.js";
import type { HiringKit } from "../kit.js";
import { workspaces } from "../keys/store.js";
import { openings } from "../openings/store.js";
import { categories } from "../categories/store.js";
import { tags } from "../tags/store.js";
import { candidates } from "../candidates/store.js";
import { candidateData } from "../candidates/rules.js";
import { candidateForChange, saveCandidates } from "../candidates/changes.js";
import { candidateDetailMessage } from "../candidates/view.js";
import { importDocument, readImport } from "./document.js";
import { checkReferences } from "./references.js";
import { candidateEdit, editedCandidate, finishedTest, withTest } from "./rules.js";

/** The hiring application's data coming in: imports, finished tests, reviewers' updates (part of `HiringAdminService`). */
export function importHandlers({ storage }: HiringKit): Pick<ServiceImpl<typeof HiringAdminService>, "import" | "recordFinishedTest" | "updateCandidate"> {
  /** Two writers inserting the same new record make the later one fail with Aborted, for its caller to retry. */
  const change = <T>(work: (trx: Knex.Transaction, emit: Emit) => Promise<T>) => storage.change(work, { onDuplicate: hiringError.concurrentChange });

  return {
    async import(req) {
      const workspaceId = req.workspaceId;
      if (!(await workspaces.exists(storage.db, workspaceId))) throw notFound(`workspace ${workspaceId} not found`);
      const plan = readImport(workspaceId, importDocument(req.data, req.json));
      const events = await change(async (trx, emit) => {
        await checkReferences(trx, workspaceId, plan.references, {
          opening: new Set(plan.openings.map((o) => o.id)),
          category: new Set(plan.categories.map((c) => c.id)),
          tag: new Set(plan.tags.map((t) => t.id)),
        });
        await openings.upsert(trx, plan.openings);
        await categories.upsert(trx, plan.categories);
        await tags.upsert(trx, plan.tags);
        const existing = await candidates.byIds(trx, workspaceId, plan.candidates.map((c) => c.id), { lock: true });
        return (await saveCandidates(trx, emit, workspaceId, plan.candidates, existing)).events;
      });
      return {
        openings: plan.openings.length,
        categories: plan.categories.length,
        tags: plan.tags.length,
        candidates: plan.candidates.length,
        events,
      };
    },

    async recordFinishedTest(req) {
      const test = finishedTest(req.test);
      const { row, tagIds } = await change(async (trx, emit) => {
        const before = await candidateForChange(trx, req.workspaceId, req.candidateId);
        const next = withTest(candidateData(before.row, before.tagIds), test);
        const saved = await saveCandidates(trx, emit, req.workspaceId, [next], new Map([[next.id, before]]));
        return { row: saved.rows.get(next.id)!, tagIds: next.tag_ids };
      });
      return { candidate: candidateDetailMessage(row, tagIds) };
    },

    async updateCandidate(req) {
      const edit = candidateEdit(req);
      const { row, tagIds } = await change(async (trx, emit) => {
        const before = await candidateForChange(trx, req.workspaceId, req.candidateId);
        await checkReferences(trx, req.workspaceId, edit.references, { opening: new Set(), category: new Set(), tag: new Set() });
        const next = editedCandidate(candidateData(before.row, before.tagIds), edit);
        const saved = await saveCandidates(trx, emit, req.workspaceId, [next], new Map([[next.id, before]]));
        return { row: saved.rows.get(next.id)!, tagIds: next.tag_ids };
      });
      return { candidate: candidateDetailMessage(row, [...tagIds].sort()) };
    },
  };
}
