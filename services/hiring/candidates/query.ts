import type { ListCandidatesRequest } from "../../../gen/hiring/v1/export_pb.js";
import { hiringError } from "../../../lib/errors.js";
import { given } from "../query-values.js";
import { emailKey } from "./rules.js";

/** Candidate list page sizes: the specification's default, and our maximum (it names none). */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** More tag ids than any workspace uses in one filter; each costs an index probe per row. */
const MAX_TAG_FILTER = 50;

export interface CandidateFilters {
  jobOpeningId?: string;
  categoryId?: string;
  /** The candidate must have every one of them. */
  tagIds: string[];
  hireState?: "possible-hire" | "rejected";
  minScore?: number;
  maxScore?: number;
  minRating?: number;
  maxRating?: number;
  /** Compared lower-cased (see emailKey). */
  email?: string;
}

export interface CandidateQuery {
  filters: CandidateFilters;
  order: "asc" | "desc";
  limit: number;
  afterId?: string;
}

export const validationError = hiringError.validation;

/** The list request as a query, or a ValidationError naming the bad parameter. */
export function candidateQuery(req: ListCandidatesRequest): CandidateQuery {
  const hireState = given(req.hireState);
  if (hireState !== undefined && hireState !== "possible-hire" && hireState !== "rejected") {
    throw validationError("hire_state must be possible-hire or rejected");
  }
  const order = given(req.order) ?? "asc";
  if (order !== "asc" && order !== "desc") throw validationError("order must be asc or desc");
  const limit = req.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw validationError(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  const tagIds = [...new Set(req.tagIds.map((t) => t.trim()).filter((t) => t !== ""))];
  if (tagIds.length > MAX_TAG_FILTER) throw validationError(`tag_ids takes at most ${MAX_TAG_FILTER} ids`);
  const email = given(req.email);
  return {
    filters: {
      jobOpeningId: given(req.jobOpeningId),
      categoryId: given(req.categoryId),
      tagIds,
      hireState,
      minScore: req.minScore,
      maxScore: req.maxScore,
      // Ratings are whole stars, so the bounds round inwards without changing what matches.
      minRating: req.minRating === undefined ? undefined : Math.ceil(req.minRating),
      maxRating: req.maxRating === undefined ? undefined : Math.floor(req.maxRating),
      email: email === undefined ? undefined : emailKey(email),
    },
    order,
    limit,
    afterId: given(req.afterId),
  };
}

/** The decoded name of one `name=value` pair of a query string. */
function paramName(pair: string): string {
  const name = pair.split("=", 1)[0].replace(/\+/g, " ");
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * `links.next`: the request's own URL with `after_id` set to the page's last candidate, so
 * every filter, the order and the limit carry over exactly as the client wrote them. Without
 * the public URL (an internal caller) it is the path of the current API version.
 */
export function nextPageUrl(requestUrl: string | undefined, lastId: string): string {
  const url = requestUrl ?? "/api/v2/candidates";
  const q = url.indexOf("?");
  const base = q < 0 ? url : url.slice(0, q);
  const pairs = q < 0 ? [] : url.slice(q + 1).split("&").filter((p) => p !== "" && paramName(p) !== "after_id");
  pairs.push(`after_id=${encodeURIComponent(lastId)}`);
  return `${base}?${pairs.join("&")}`;
}
