import { CandidateList } from "./candidates/list.js";
import { candidates } from "./candidates/store.js";
import { openings } from "./openings/store.js";
import { categories } from "./categories/store.js";
import { tags } from "./tags/store.js";

/**
 * The hiring tables as one object, for programs that load and read them without the service:
 * the hiring bench (`bench/hiring.ts`) and its bare server. The service's resources use their
 * own stores; this only gathers them. A new instance remembers no filtered totals.
 */
export class HiringStore extends CandidateList {
  readonly upsertOpenings = openings.upsert;
  readonly upsertCategories = categories.upsert;
  readonly upsertTags = tags.upsert;
  readonly writeCandidates = candidates.write;
}
