import { dbDate, isMysql, type Knex } from "../../lib/db.js";
import type { CandidateFilters, CandidateQuery } from "./listing.js";

export interface OpeningRow {
  workspace_id: string;
  id: string;
  name: string;
  slug: string;
  created_at: Date;
  published_at: Date | null;
  closed_at: Date | null;
  /** JSON array of {id, name, slug}. */
  tests: string;
}

export interface CategoryRow {
  workspace_id: string;
  id: string;
  name: string;
  job_opening_id: string;
}

export interface TagRow {
  workspace_id: string;
  id: string;
  name: string;
}

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

const LIST_COLUMNS = [
  "id", "name", "email", "profile_url", "contact_info", "points", "score", "rating", "hire_state", "category_id",
  "job_opening_id", "utm_source", "utm_medium", "utm_campaign", "referrer_url", "ip_address", "test_summaries",
] as const;

/** A candidate to write: its new row and tags, and its stored row when it exists. */
export interface CandidateChange {
  before?: CandidateRow;
  row: CandidateRow;
  tagIds: string[];
}

/** A list item: the columns the list shows (no full tests). */
export type CandidateListRow = Pick<CandidateRow, (typeof LIST_COLUMNS)[number]>;

export interface CandidatePage {
  rows: CandidateListRow[];
  /** Candidates matching the filters, on every page. */
  total: number;
  /** Whether rows follow the last one of this page. */
  more: boolean;
}

/** Filtered totals remembered at most (each a short key and a number). */
const MAX_REMEMBERED_TOTALS = 10_000;

/** Rows per statement in bulk writes: well below the placeholder limits of both engines. */
const CHUNK = 500;

function chunks<T>(items: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function openingRow(row: Record<string, unknown>): OpeningRow {
  return {
    ...(row as unknown as OpeningRow),
    created_at: dbDate(row.created_at as Date),
    published_at: row.published_at == null ? null : dbDate(row.published_at as Date),
    closed_at: row.closed_at == null ? null : dbDate(row.closed_at as Date),
  };
}

/** Both engines give numbers back for the 0/1 flags and doubles; dates differ (see dbDate). */
function candidateRow(row: Record<string, unknown>): CandidateRow {
  return {
    ...(row as unknown as CandidateRow),
    demo: Number(row.demo) ? 1 : 0,
    listed: Number(row.listed) ? 1 : 0,
    first_started_at: row.first_started_at == null ? null : dbDate(row.first_started_at as Date),
  };
}

/** Whether a filter other than tags is set (one on the candidate's own columns). */
function filtersColumns(f: CandidateFilters): boolean {
  return [f.jobOpeningId, f.categoryId, f.hireState, f.email, f.minScore, f.maxScore, f.minRating, f.maxRating].some((v) => v !== undefined);
}

/** Ratings are whole stars: a range of one value is an equality, which its index serves in list order. */
function singleRating(f: CandidateFilters): number | undefined {
  return f.minRating !== undefined && f.minRating === f.maxRating ? f.minRating : undefined;
}

/** The index for a candidate query without tags: the most selective equality filter's (see the migration). */
function candidateIndex(f: CandidateFilters): string {
  if (f.email !== undefined) return "candidates_email";
  if (f.categoryId !== undefined) return "candidates_category";
  if (f.jobOpeningId !== undefined) return "candidates_opening";
  if (singleRating(f) !== undefined) return "candidates_rating";
  if (f.hireState !== undefined) return "candidates_hire_state";
  return "candidates_order";
}

/** The hiring schema's queries. */
export class HiringStore {
  private readonly mysql: boolean;
  /** Filtered totals by workspace, candidates version and filters (see `total`). */
  private readonly totals = new Map<string, number>();

  constructor(private readonly db: Knex) {
    this.mysql = isMysql(db);
  }

  async createWorkspace(trx: Knex.Transaction, id: string, name: string, now: Date): Promise<void> {
    await trx("workspaces").insert({ id, name, created_at: now });
  }

  async workspaceExists(id: string): Promise<boolean> {
    return Boolean(await this.db("workspaces").where({ id }).first("id"));
  }

  async insertApiKey(trx: Knex, key: { id: string; workspace_id: string; secret_hash: string; created_at: Date }): Promise<void> {
    await trx("api_keys").insert(key);
  }

  async apiKey(id: string): Promise<{ workspace_id: string; secret_hash: string } | undefined> {
    return this.db("api_keys").where({ id }).whereNull("revoked_at").first("workspace_id", "secret_hash");
  }

  async revokeApiKey(id: string, now: Date): Promise<number> {
    return this.db("api_keys").where({ id }).whereNull("revoked_at").update({ revoked_at: now });
  }

  /** Inserts or replaces by (workspace_id, id). */
  private async upsert(trx: Knex.Transaction, table: string, rows: object[]): Promise<void> {
    for (const part of chunks(rows)) await trx(table).insert(part).onConflict(["workspace_id", "id"]).merge();
  }

  upsertOpenings(trx: Knex.Transaction, rows: OpeningRow[]): Promise<void> {
    return this.upsert(trx, "openings", rows);
  }

  upsertCategories(trx: Knex.Transaction, rows: CategoryRow[]): Promise<void> {
    return this.upsert(trx, "categories", rows);
  }

  upsertTags(trx: Knex.Transaction, rows: TagRow[]): Promise<void> {
    return this.upsert(trx, "tags", rows);
  }

  async openings(workspaceId: string): Promise<OpeningRow[]> {
    const rows = await this.db("openings").where({ workspace_id: workspaceId }).orderBy("created_at").orderBy("id");
    return rows.map(openingRow);
  }

  async opening(workspaceId: string, id: string): Promise<OpeningRow | undefined> {
    const row = await this.db("openings").where({ workspace_id: workspaceId, id }).first();
    return row ? openingRow(row) : undefined;
  }

  async categories(workspaceId: string, jobOpeningId?: string): Promise<CategoryRow[]> {
    const q = this.db("categories").where({ workspace_id: workspaceId });
    if (jobOpeningId !== undefined) q.andWhere({ job_opening_id: jobOpeningId });
    return q.orderBy("name").orderBy("id").select("workspace_id", "id", "name", "job_opening_id");
  }

  async tags(workspaceId: string): Promise<TagRow[]> {
    return this.db("tags").where({ workspace_id: workspaceId }).orderBy("name").orderBy("id").select("workspace_id", "id", "name");
  }

  /** Which of the ids exist in the workspace's table. */
  async existingIds(db: Knex, table: "openings" | "categories" | "tags", workspaceId: string, ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const part of chunks([...new Set(ids)])) {
      const rows: { id: string }[] = await db(table).where({ workspace_id: workspaceId }).whereIn("id", part).select("id");
      for (const r of rows) found.add(r.id);
    }
    return found;
  }

  /** Stored candidates with their tag ids, by id (whether exported or not). */
  async candidatesByIds(db: Knex, workspaceId: string, ids: string[], options: { lock?: boolean } = {}): Promise<Map<string, { row: CandidateRow; tagIds: string[] }>> {
    const out = new Map<string, { row: CandidateRow; tagIds: string[] }>();
    for (const part of chunks(ids)) {
      const q = this.withTests(db).where({ "c.workspace_id": workspaceId }).whereIn("c.id", part);
      // MySQL needs the row lock against a concurrent change; knex leaves it out on SQLite, which serializes writers.
      if (options.lock) q.forUpdate();
      for (const r of await q) out.set(r.id, { row: candidateRow(r), tagIds: [] });
      const tags: { candidate_id: string; tag_id: string }[] = await db("candidate_tags")
        .where({ workspace_id: workspaceId })
        .whereIn("candidate_id", part)
        .orderBy("tag_id")
        .select("candidate_id", "tag_id");
      for (const t of tags) out.get(t.candidate_id)?.tagIds.push(t.tag_id);
    }
    return out;
  }

  /**
   * Writes changed candidates: new rows, changed rows, their tag entries (rewritten with every
   * change, as they carry copies of the candidate's list columns), the workspace's count of
   * listed candidates (the unfiltered list's total, which would otherwise count every entry) and
   * its candidates version (which retires remembered totals, see `total`). Every candidate write
   * goes through here.
   */
  async writeCandidates(trx: Knex.Transaction, workspaceId: string, changes: CandidateChange[]): Promise<void> {
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
  }

  /** An exported candidate (listed) with its tag ids. */
  async listedCandidate(workspaceId: string, id: string): Promise<{ row: CandidateRow; tagIds: string[] } | undefined> {
    const row = await this.withTests(this.db).where({ "c.workspace_id": workspaceId, "c.id": id, "c.listed": 1 }).first();
    if (!row) return undefined;
    const tags: { tag_id: string }[] = await this.db("candidate_tags").where({ workspace_id: workspaceId, candidate_id: id }).orderBy("tag_id").select("tag_id");
    return { row: candidateRow(row), tagIds: tags.map((t) => t.tag_id) };
  }

  /** Candidate rows with their full tests. */
  private withTests(db: Knex): Knex.QueryBuilder {
    return db("candidates as c")
      .join("candidate_tests as d", (j) => j.on("d.workspace_id", "c.workspace_id").andOn("d.candidate_id", "c.id"))
      .select("c.*", "d.tests");
  }

  /** Where a listed candidate stands in the list order: the seek position `after_id` names. */
  async listPosition(workspaceId: string, id: string): Promise<{ sortKey: Date; id: string } | undefined> {
    const row = await this.db("candidates").where({ workspace_id: workspaceId, id, listed: 1 }).first("first_started_at", "id");
    return row ? { sortKey: dbDate(row.first_started_at), id: row.id } : undefined;
  }

  /**
   * Listed candidates of the workspace matching every filter (AND), and the columns that order
   * them.
   *
   * The store names the index rather than leaving it to the planner: MariaDB counts through
   * the clustered index (reading every candidate row) and sorts filtered pages instead of
   * walking an ordered index, and SQLite's choice depends on whether ANALYZE ever ran. The most
   * selective equality filter's index serves the order and the seek, and carries the other
   * filter columns (see the migration), so pages and totals never read rows they do not return.
   *
   * With a tag filter the query walks the first tag's entries instead (they carry copies of the
   * candidate's `listed`, sort key and filter columns), joins one entry per further tag, and
   * joins the candidate only when its columns are needed (`rows`, or the email filter); the join
   * order is fixed as written (STRAIGHT_JOIN, CROSS JOIN in SQLite).
   */
  private matching(workspaceId: string, f: CandidateFilters, rows: boolean): { q: Knex.QueryBuilder; sortKey: string; id: string } {
    const [byTag, ...otherTags] = f.tagIds;
    const join = this.mysql ? "straight_join" : "cross join";
    let q: Knex.QueryBuilder;
    // Where the filter columns are read: the candidate, or the tag entry's copies.
    let at = "c";
    if (byTag === undefined) {
      q = this.db.queryBuilder().from(this.indexed("candidates", "c", candidateIndex(f))).where({ "c.workspace_id": workspaceId, "c.listed": 1 });
    } else {
      at = "t";
      q = this.db.queryBuilder().from(this.indexed("candidate_tags", "t", "candidate_tags_order")).where({ "t.workspace_id": workspaceId, "t.tag_id": byTag, "t.listed": 1 });
      otherTags.forEach((tagId, i) => {
        q.joinRaw(`${join} ?? as ?? on ??.workspace_id = t.workspace_id and ??.candidate_id = t.candidate_id and ??.tag_id = ?`, ["candidate_tags", `t${i}`, `t${i}`, `t${i}`, `t${i}`, tagId]);
      });
      if (rows || f.email !== undefined) q.joinRaw(`${join} candidates as c on c.workspace_id = t.workspace_id and c.id = t.candidate_id`);
    }
    if (f.jobOpeningId !== undefined) q.andWhere(`${at}.job_opening_id`, f.jobOpeningId);
    if (f.categoryId !== undefined) q.andWhere(`${at}.category_id`, f.categoryId);
    if (f.hireState !== undefined) q.andWhere(`${at}.hire_state`, f.hireState);
    if (f.email !== undefined) q.andWhere("c.email_key", f.email);
    if (f.minScore !== undefined) q.andWhere(`${at}.score`, ">=", f.minScore);
    if (f.maxScore !== undefined) q.andWhere(`${at}.score`, "<=", f.maxScore);
    if (singleRating(f) !== undefined) q.andWhere(`${at}.rating`, singleRating(f));
    else {
      if (f.minRating !== undefined) q.andWhere(`${at}.rating`, ">=", f.minRating);
      if (f.maxRating !== undefined) q.andWhere(`${at}.rating`, "<=", f.maxRating);
    }
    return at === "c" ? { q, sortKey: "c.first_started_at", id: "c.id" } : { q, sortKey: "t.first_started_at", id: "t.candidate_id" };
  }

  /** `table AS alias` read through the named index. */
  private indexed(table: string, alias: string, index: string): Knex.Raw {
    return this.db.raw(this.mysql ? "?? as ?? force index (??)" : "?? as ?? indexed by ??", [table, alias, index]);
  }

  /**
   * One page in list order, seeking past `after` (a keyset condition on (first_started_at, id),
   * written as `k >= ? AND (k > ? OR id > ?)` so that MariaDB, which does not range-scan row
   * value comparisons, uses the index as SQLite and MySQL do), and the total of all matches.
   */
  async listCandidates(workspaceId: string, query: CandidateQuery, after?: { sortKey: Date; id: string }): Promise<CandidatePage> {
    const { q: page, sortKey, id } = this.matching(workspaceId, query.filters, true);
    if (after) {
      const [cmpEq, cmp] = query.order === "desc" ? ["<=", "<"] : [">=", ">"];
      page.andWhere(sortKey, cmpEq, after.sortKey).andWhere((w) => w.where(sortKey, cmp, after.sortKey).orWhere(id, cmp, after.id));
    }
    page
      .orderBy(sortKey, query.order)
      .orderBy(id, query.order)
      .limit(query.limit + 1)
      .select(LIST_COLUMNS.map((c) => `c.${c}`));
    const [rows, total] = await Promise.all([page, this.total(workspaceId, query.filters)]);
    const more = rows.length > query.limit;
    return { rows: (more ? rows.slice(0, query.limit) : rows) as CandidateListRow[], total, more };
  }

  /**
   * Candidates matching the filters. Without filters it is the workspace's kept count. A filtered
   * count reads every matching index entry (tens of milliseconds for a broad filter at 200,000
   * candidates), and a client walking the pages asks for the same total with every page: it is
   * counted once per version of the workspace's candidates and remembered, and any candidate
   * write moves the version on. A total counted while a write commits may include that write
   * (as the page and the total may disagree by a concurrent write anyway).
   */
  private async total(workspaceId: string, f: CandidateFilters): Promise<number> {
    const ws = await this.db("workspaces").where({ id: workspaceId }).first("listed_candidates", "candidates_version");
    if (!ws) return 0;
    if (f.tagIds.length === 0 && !filtersColumns(f)) return Number(ws.listed_candidates);
    const key = `${workspaceId} ${ws.candidates_version} ${JSON.stringify(f)}`;
    const known = this.totals.get(key);
    if (known !== undefined) return known;
    const [row] = (await this.matching(workspaceId, f, false).q.count({ n: "*" })) as { n: number | string }[];
    const n = Number(row.n);
    // Bounded; a full map is simply started afresh.
    if (this.totals.size >= MAX_REMEMBERED_TOTALS) this.totals.clear();
    this.totals.set(key, n);
    return n;
  }
}
