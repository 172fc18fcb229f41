import type { JsonObject } from "@bufbuild/protobuf";
import type { UpdateCandidateRequest } from "../../../gen/hiring/v1/admin_pb.js";
import { badRequest } from "../../../lib/errors.js";
import { checkHireState, checkRating, type CandidateData } from "../candidates/rules.js";
import { sameAttempt, type TestData } from "../candidates/scoring.js";
import { RecordReader } from "./records.js";
import { readTest } from "./document.js";
import type { Reference } from "./references.js";

/** The test RecordFinishedTest records: one test entry in the single-candidate shape, finished. */
export function finishedTest(value: JsonObject | undefined): TestData {
  const test = readTest(RecordReader.of(value ?? null, "test"));
  if (test.finished_at === null) throw badRequest("test.finished_at: expected a date-time");
  return test;
}

/** The candidate with the test recorded: recording the same attempt again replaces it rather than adding a second one. */
export function withTest(data: CandidateData, test: TestData): CandidateData {
  const others = data.tests.filter((t) => !sameAttempt(t, test));
  const becomesFirst = others.every((t) => test.started_at < t.started_at);
  return { ...data, tests: [...others, test], given: becomesFirst ? undefined : data.given };
}

/** What UpdateCandidate changes; a field left undefined stays as it is. */
export interface CandidateEdit {
  rating?: number;
  hireState?: string;
  /** Null clears the category. */
  categoryId?: string | null;
  tagIds?: string[];
  /** The category and tags it names, which must be records of the workspace. */
  references: Reference[];
}

/** The UpdateCandidate request checked: ratings 0..3, a known hire state, ids (an empty category clears it). */
export function candidateEdit(req: UpdateCandidateRequest): CandidateEdit {
  const rating = req.rating === undefined ? undefined : checkRating(req.rating, "rating");
  const hireState = req.hireState === undefined ? undefined : checkHireState(req.hireState, "hire_state");
  const categoryId = req.categoryId === undefined ? undefined : req.categoryId.trim() === "" ? null : RecordReader.of({ category_id: req.categoryId }, "request").id("category_id");
  const tagIds = req.tagIds === undefined ? undefined : [...new Set(RecordReader.of({ tag_ids: req.tagIds.ids }, "request").idList("tag_ids"))];
  const references: Reference[] = [
    ...(categoryId ? [{ kind: "category" as const, id: categoryId, at: "category_id" }] : []),
    ...(tagIds ?? []).map((id, i) => ({ kind: "tag" as const, id, at: `tag_ids[${i}]` })),
  ];
  return { rating, hireState, categoryId, tagIds, references };
}

/** The candidate with the edit applied. */
export function editedCandidate(data: CandidateData, edit: CandidateEdit): CandidateData {
  return {
    ...data,
    rating: edit.rating ?? data.rating,
    hire_state: edit.hireState ?? data.hire_state,
    category_id: edit.categoryId === undefined ? data.category_id : edit.categoryId,
    tag_ids: edit.tagIds ?? data.tag_ids,
  };
}
