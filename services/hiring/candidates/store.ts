import { dbDate, type Knex } from "../../../lib/db.js";
import { chunks } from "../../../lib/chunks.js";

/** A candidate as stored: the export's fields plus what the list's filters and order need. */
export interface CandidateRow {
  workspace_id: string;
  id: string;
  name: string;
  email: string;
  /** Lower-cased email, for the `email` filter. */
  email_key: string;
  profile_url: string;
  /** JSON of the contact info, or null when the candidate gave none. */
  contact_info: string | null;
  points: number;
  score: number;
  rating: number;
  hire_state: string;
  category_id: string | null;
  job_opening_id: string;
  utm_source: string;
  utm_medium: string;
  utm_campaign: string;
  referrer_url: string;
  ip_address: string;
  demo: 0 | 1;
  /** Submitted a test and is no demo: the only candidates the export API shows. */
  listed: 0 | 1;
  /** `started_at` of the first test: the list's sort key (ties broken by id). */
  first_started_at: Date | null;
  /** JSON array of the short test entries of a list item. */
  test_summaries: string;
  /** JSON array of the full tests (TestData), kept in `candidate_tests`. */
  tests: string;
}

export const LIST_COLUMNS = [
  "id", "name", "email", "profile_url", "contact_info", "points", "score", "rating", "hire_state", "category_id",
  "job_opening_id", "utm_source", "utm_medium", "utm_campaign", "referrer_url", "ip_address", "test_summaries",
] as const;

/** A list item: the columns the list shows (no full tests). */
export type CandidateListRow = Pick<CandidateRow, (typeof LIST_COLUMNS)[number]>;

/** A candidate to write: its new row and tags, and its stored row when it exists. */
export interface CandidateChange {
  before?: CandidateRow;
  row: CandidateRow;
  tagIds: string[];
}

/** A stored candidate with its tag ids. */
export interface StoredCandidate {
  row: CandidateRow;
  tagIds: string[];
}

/** Both engines give numbers back for the 0/1 flags and doubles; dates differ (see dbDate). */
function candidateFromDb(row: Record<string, unknown>): CandidateRow {
  return {
    ...(row as unknown as CandidateRow),
    demo: Number(row.demo) ? 1 : 0,
    listed: Number(row.listed) ? 1 : 0,
    first_started_at: row.first_started_at == null ? null : dbDate(row.first_started_at as Date),
  };
}

/** Candidate rows with their full tests. */
function withTests(db: Knex): Knex.QueryBuilder {
  return db("candidates as c")
    .join("candidate_tests as d", (j) => j.on("d.workspace_id", "c.workspace_id").andOn("d.candidate_id", "c.id"))
    .select("c.*", "d.tests");
}

/** A workspace's candidates, one by one (the list's queries are in `list.ts`). */
export const candidates = {
  /** Stored candidates with their tag ids, by id (whether exported or not). */
  async byIds(db: Knex, workspaceId: string, ids: string[], options: { lock?: boolean } = {}): Promise<Map<string, StoredCandidate>> {
    const out = new Map<string, StoredCandidate>();
    for (const part of chunks(ids)) {
      const q = withTests(db).where({ "c.workspace_id": workspaceId }).whereIn("c.id", part);
      // MySQL needs the row lock against a concurrent change; knex leaves it out on SQLite, which serializes writers.
      if (options.lock) q.forUpdate();
      for (const r of await q) out.set(r.id, { row: candidateFromDb(r), tagIds: [] });
      const tags: { candidate_id: string; tag_id: string }[] = await db("candidate_tags")
        .where({ workspace_id: workspaceId })
        .whereIn("candidate_id", part)
        .orderBy("tag_id")
        .select("candidate_id", "tag_id");
      for (const t of tags) out.get(t.candidate_id)?.tagIds.push(t.tag_id);
    }
    return out;
  },

  /** An exported candidate (listed) with its tag ids. */
  async listed(db: Knex, workspaceId: string, id: string): Promise<StoredCandidate | undefined> {
    const row = await withTests(db).where({ "c.workspace_id": workspaceId, "c.id": id, "c.listed": 1 }).first();
    if (!row) return undefined;
    const tags: { tag_id: string }[] = await db("candidate_tags").where({ workspace_id: workspaceId, candidate_id: id }).orderBy("tag_id").select("tag_id");
    return { row: candidateFromDb(row), tagIds: tags.map((t) => t.tag_id) };
  },

  /**
   * Writes changed candidates: new rows, changed rows, their tag entries (rewritten with every
   * change, as they carry copies of the candidate's list columns), the workspace's count of
   * listed candidates (the unfiltered list's total, which would otherwise count every entry) and
   * its candidates version (which retires remembered totals, see `CandidateList.total`). Every
   * candidate write goes through here.
   */
  async write(trx: Knex.Transaction, workspaceId: string, changes: CandidateChange[]): Promise<void> {
    const inserts = changes.filter((c) => !c.before).map((c) => c.row);
    for (const part of chunks(inserts, 200)) {
      await trx("candidates").insert(part.map(({ tests: _, ...rest }) => rest));
      await trx("candidate_tests").insert(part.map((r) => ({ workspace_id: r.workspace_id, candidate_id: r.id, tests: r.tests })));
    }
    for (const { before, row } of changes) {
      if (!before) continue;
      const { workspace_id, id, tests, ...rest } = row;
      await trx("candidates").where({ workspace_id, id }).update(rest);
      if (tests !== before.tests) await trx("candidate_tests").where({ workspace_id, candidate_id: id }).update({ tests });
    }
    // New candidates have no entries yet.
    for (const part of chunks(changes.filter((c) => c.before).map((c) => c.row.id))) {
      await trx("candidate_tags").where({ workspace_id: workspaceId }).whereIn("candidate_id", part).delete();
    }
    const tags = changes.flatMap(({ row, tagIds }) =>
      tagIds.map((tag_id) => ({
        workspace_id: workspaceId,
        candidate_id: row.id,
        tag_id,
        listed: row.listed,
        first_started_at: row.first_started_at,
        score: row.score,
        rating: row.rating,
        hire_state: row.hire_state,
        job_opening_id: row.job_opening_id,
        category_id: row.category_id,
      })),
    );
    for (const part of chunks(tags)) await trx("candidate_tags").insert(part);
    if (changes.length === 0) return;
    const listedDelta = changes.reduce((n, c) => n + c.row.listed - (c.before?.listed ?? 0), 0);
    await trx("workspaces")
      .where({ id: workspaceId })
      .update({ listed_candidates: trx.raw("listed_candidates + ?", [listedDelta]), candidates_version: trx.raw("candidates_version + 1") });
  },
};
