import type { ConnectRouter } from "@connectrpc/connect";
import { ExportService } from "../../gen/hiring/v1/export_pb.js";
import { HiringAdminService } from "../../gen/hiring/v1/admin_pb.js";
import type { Clock } from "../../lib/clock.js";
import type { Emit, ServiceStorage } from "../../lib/storage.js";
import { caller } from "../../lib/identity.js";
import { hiringWorkspace } from "../../lib/access.js";
import { badRequest, hiringError, notFound } from "../../lib/errors.js";
import type { Knex } from "../../lib/db.js";
import { sortableId } from "../../lib/ids.js";
import { HiringStore, type CandidateChange, type CandidateRow } from "./store.js";
import { KeyVerifier, newApiKey } from "./keys.js";
import { RecordReader } from "./records.js";
import { importDocument, readImport, readTest, type Reference } from "./importing.js";
import { candidateChangeEvent, candidateData, candidateRow, checkHireState, checkRating, sameCandidate, type CandidateData } from "./candidates.js";
import { sameAttempt } from "./scoring.js";
import { candidateQuery, given, nextPageUrl, validationError } from "./listing.js";
import { candidateDetailMessage, candidateMessage, categoryMessage, openingMessage, tagMessage } from "./messages.js";


/** What the tests column (MySQL MEDIUMTEXT, 16 MiB) holds, with room to spare. */
const MAX_TESTS_BYTES = 15 * 1024 * 1024;

const TABLE_OF_KIND = { opening: "openings", category: "categories", tag: "tags" } as const;

export function hiringRoutes(storage: ServiceStorage, clock: Clock) {
  const store = new HiringStore(storage.db);
  const keys = new KeyVerifier((id) => store.apiKey(id), clock);

  /** Two writers inserting the same new record make the later one fail with Aborted, for its caller to retry. */
  const change = <T>(work: (trx: Knex.Transaction, emit: Emit) => Promise<T>) => storage.change(work, { onDuplicate: hiringError.concurrentChange });

  /** Every reference must lead to a record of the file (`defined`) or of the workspace. */
  async function checkReferences(db: Knex, workspaceId: string, references: Reference[], defined: Record<Reference["kind"], Set<string>>): Promise<void> {
    const found = { opening: new Set<string>(), category: new Set<string>(), tag: new Set<string>() };
    for (const kind of ["opening", "category", "tag"] as const) {
      const wanted = references.filter((r) => r.kind === kind && !defined[kind].has(r.id)).map((r) => r.id);
      if (wanted.length) found[kind] = await store.existingIds(db, TABLE_OF_KIND[kind], workspaceId, wanted);
    }
    const bad = references.find((r) => !defined[r.kind].has(r.id) && !found[r.kind].has(r.id));
    if (bad) throw badRequest(`${bad.at}: no ${bad.kind} ${bad.id} in this workspace`);
  }

  /**
   * Stores candidates over their current state (`existing`, by id) and emits what each change
   * means. Unchanged candidates are not written and announce nothing, so repeating an import or
   * a call is harmless. Returns the stored rows and the number of events.
   */
  async function saveCandidates(
    trx: Knex.Transaction,
    emit: Emit,
    workspaceId: string,
    candidates: CandidateData[],
    existing: Map<string, { row: CandidateRow; tagIds: string[] }>,
  ): Promise<{ rows: Map<string, CandidateRow>; events: number }> {
    const changes: CandidateChange[] = [];
    const rows = new Map<string, CandidateRow>();
    let events = 0;
    for (const c of candidates) {
      const row = candidateRow(workspaceId, c);
      if (Buffer.byteLength(row.tests) > MAX_TESTS_BYTES) throw badRequest(`candidate ${c.id}: its tests take more than ${MAX_TESTS_BYTES} bytes`);
      const before = existing.get(c.id);
      rows.set(c.id, row);
      if (before && sameCandidate(before.row, before.tagIds, row, c.tag_ids)) continue;
      changes.push({ before: before?.row, row, tagIds: c.tag_ids });
      const action = candidateChangeEvent(before?.row, row);
      if (action) {
        await emit({ workspaceId, entity: "candidate", action, objectId: c.id });
        events++;
      }
    }
    await store.writeCandidates(trx, workspaceId, changes);
    return { rows, events };
  }

  /** One candidate of the workspace, locked for the change, or NotFound. */
  async function candidateForChange(trx: Knex.Transaction, workspaceId: string, id: string) {
    const found = (await store.candidatesByIds(trx, workspaceId, [id], { lock: true })).get(id);
    if (!found) throw notFound(`candidate ${id} not found in workspace ${workspaceId}`);
    return found;
  }

  return (router: ConnectRouter) => {
    router.service(ExportService, {
      async listOpenings(_req, ctx) {
        const rows = await store.openings(hiringWorkspace(ctx));
        return { data: rows.map(openingMessage) };
      },

      async getOpening(req, ctx) {
        const row = await store.opening(hiringWorkspace(ctx), req.id);
        if (!row) throw hiringError.notFound();
        return { opening: openingMessage(row) };
      },

      async listCandidates(req, ctx) {
        const workspaceId = hiringWorkspace(ctx);
        const query = candidateQuery(req);
        let after: { sortKey: Date; id: string } | undefined;
        if (query.afterId !== undefined) {
          after = await store.listPosition(workspaceId, query.afterId);
          if (!after) throw validationError("after_id names no candidate of this workspace's list");
        }
        const page = await store.listCandidates(workspaceId, query, after);
        const last = page.rows[page.rows.length - 1];
        return {
          data: page.rows.map(candidateMessage),
          links: { next: page.more && last ? nextPageUrl(caller(ctx).requestUrl, last.id) : undefined },
          total: BigInt(page.total),
        };
      },

      async getCandidate(req, ctx) {
        const found = await store.listedCandidate(hiringWorkspace(ctx), req.id);
        if (!found) throw hiringError.notFound();
        return { candidate: candidateDetailMessage(found.row, found.tagIds) };
      },

      async listCategories(req, ctx) {
        const rows = await store.categories(hiringWorkspace(ctx), given(req.jobOpeningId));
        return { data: rows.map(categoryMessage) };
      },

      async listTags(_req, ctx) {
        const rows = await store.tags(hiringWorkspace(ctx));
        return { data: rows.map(tagMessage) };
      },
    });

    router.service(HiringAdminService, {
      async createWorkspace(req) {
        const name = req.name.trim();
        if (!name || name.length > 200) throw badRequest("name must be 1 to 200 characters");
        const id = `ws_${sortableId().toLowerCase()}`;
        const key = newApiKey();
        const now = clock.now();
        await storage.change(async (trx) => {
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
        const revoked = await store.revokeApiKey(req.apiKeyId, clock.now());
        keys.forget(req.apiKeyId);
        if (!revoked) throw notFound(`API key ${req.apiKeyId} not found or already revoked`);
        return {};
      },

      async verifyApiKey(req) {
        const workspaceId = await keys.verify(req.apiKey);
        if (!workspaceId) throw hiringError.unauthorized();
        return { workspaceId };
      },

      async import(req) {
        const workspaceId = req.workspaceId;
        if (!(await store.workspaceExists(workspaceId))) throw notFound(`workspace ${workspaceId} not found`);
        const plan = readImport(workspaceId, importDocument(req.data, req.json));
        const events = await change(async (trx, emit) => {
          await checkReferences(trx, workspaceId, plan.references, {
            opening: new Set(plan.openings.map((o) => o.id)),
            category: new Set(plan.categories.map((c) => c.id)),
            tag: new Set(plan.tags.map((t) => t.id)),
          });
          await store.upsertOpenings(trx, plan.openings);
          await store.upsertCategories(trx, plan.categories);
          await store.upsertTags(trx, plan.tags);
          const existing = await store.candidatesByIds(trx, workspaceId, plan.candidates.map((c) => c.id), { lock: true });
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
        const test = readTest(RecordReader.of(req.test ?? null, "test"));
        if (test.finished_at === null) throw badRequest("test.finished_at: expected a date-time");
        const { row, tagIds } = await change(async (trx, emit) => {
          const before = await candidateForChange(trx, req.workspaceId, req.candidateId);
          const data = candidateData(before.row, before.tagIds);
          // Recording the same attempt again replaces it rather than adding a second one.
          const others = data.tests.filter((t) => !sameAttempt(t, test));
          const becomesFirst = others.every((t) => test.started_at < t.started_at);
          const next: CandidateData = { ...data, tests: [...others, test], given: becomesFirst ? undefined : data.given };
          const saved = await saveCandidates(trx, emit, req.workspaceId, [next], new Map([[next.id, before]]));
          return { row: saved.rows.get(next.id)!, tagIds: next.tag_ids };
        });
        return { candidate: candidateDetailMessage(row, tagIds) };
      },

      async updateCandidate(req) {
        const rating = req.rating === undefined ? undefined : checkRating(req.rating, "rating");
        const hireState = req.hireState === undefined ? undefined : checkHireState(req.hireState, "hire_state");
        const categoryId = req.categoryId === undefined ? undefined : req.categoryId.trim() === "" ? null : RecordReader.of({ category_id: req.categoryId }, "request").id("category_id");
        const tagIds = req.tagIds === undefined ? undefined : [...new Set(RecordReader.of({ tag_ids: req.tagIds.ids }, "request").idList("tag_ids"))];
        const references: Reference[] = [
          ...(categoryId ? [{ kind: "category" as const, id: categoryId, at: "category_id" }] : []),
          ...(tagIds ?? []).map((id, i) => ({ kind: "tag" as const, id, at: `tag_ids[${i}]` })),
        ];
        const { row, tags } = await change(async (trx, emit) => {
          const before = await candidateForChange(trx, req.workspaceId, req.candidateId);
          await checkReferences(trx, req.workspaceId, references, { opening: new Set(), category: new Set(), tag: new Set() });
          const data = candidateData(before.row, before.tagIds);
          const next: CandidateData = {
            ...data,
            rating: rating ?? data.rating,
            hire_state: hireState ?? data.hire_state,
            category_id: categoryId === undefined ? data.category_id : categoryId,
            tag_ids: tagIds ?? data.tag_ids,
          };
          const saved = await saveCandidates(trx, emit, req.workspaceId, [next], new Map([[next.id, before]]));
          return { row: saved.rows.get(next.id)!, tags: next.tag_ids };
        });
        return { candidate: candidateDetailMessage(row, [...tags].sort()) };
      },
    });
  };
}
