import { dbDate, isMysql, type Knex } from "../../../lib/db.js";
import { LIST_COLUMNS, type CandidateListRow } from "./store.js";
import type { CandidateFilters, CandidateQuery } from "./query.js";

export interface CandidatePage {
  rows: CandidateListRow[];
  /** Candidates matching the filters, on every page. */
  total: number;
  /** Whether rows follow the last one of this page. */
  more: boolean;
}

/** Filtered totals remembered at most (each a short key and a number). */
const MAX_REMEMBERED_TOTALS = 10_000;

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

/**
 * The candidate list's queries: pages in list order and their totals. An object because it
 * remembers filtered totals (see `total`); the service keeps one.
 */
export class CandidateList {
  private readonly mysql: boolean;
  /** Filtered totals by workspace, candidates version and filters (see `total`). */
  private readonly totals = new Map<string, number>();

  constructor(private readonly db: Knex) {
    this.mysql = isMysql(db);
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
