import type { Knex } from "../../../lib/db.js";
import type { Emit } from "../../../lib/storage.js";
import { badRequest, notFound } from "../../../lib/errors.js";
import { candidates, type CandidateChange, type CandidateRow, type StoredCandidate } from "./store.js";
import { candidateChangeEvent, candidateRow, sameCandidate, type CandidateData } from "./rules.js";

/** What the tests column (MySQL MEDIUMTEXT, 16 MiB) holds, with room to spare. */
const MAX_TESTS_BYTES = 15 * 1024 * 1024;

/**
 * Stores candidates over their current state (`existing`, by id) and emits what each change
 * means. Unchanged candidates are not written and announce nothing, so repeating an import or
 * a call is harmless. Returns the stored rows and the number of events.
 */
export async function saveCandidates(
  trx: Knex.Transaction,
  emit: Emit,
  workspaceId: string,
  data: CandidateData[],
  existing: Map<string, StoredCandidate>,
): Promise<{ rows: Map<string, CandidateRow>; events: number }> {
  const changes: CandidateChange[] = [];
  const rows = new Map<string, CandidateRow>();
  let events = 0;
  for (const c of data) {
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
  await candidates.write(trx, workspaceId, changes);
  return { rows, events };
}

/** One candidate of the workspace, locked for the change, or NotFound. */
export async function candidateForChange(trx: Knex.Transaction, workspaceId: string, id: string): Promise<StoredCandidate> {
  const found = (await candidates.byIds(trx, workspaceId, [id], { lock: true })).get(id);
  if (!found) throw notFound(`candidate ${id} not found in workspace ${workspaceId}`);
  return found;
}
