import { badRequest } from "../../../lib/errors.js";
import { importLists, RecordReader } from "./records.js";
import type { Reference } from "./references.js";
import { checkHireState, checkRating, type CandidateData, type ContactInfoData } from "../candidates/rules.js";
import type { AnswerData, QuestionData, TestData } from "../candidates/scoring.js";
import type { OpeningRow } from "../openings/store.js";
import type { CategoryRow } from "../categories/store.js";
import type { TagRow } from "../tags/store.js";

/**
 * Reading an import file (`{"openings":[...],"categories":[...],"tags":[...],"candidates":[...]}`,
 * records in the export shapes, candidates in the single-candidate shape plus `demo`). Shapes
 * are checked here, before anything is written; references to other records are checked by the
 * import against the file and the workspace.
 */

export interface ImportPlan {
  openings: OpeningRow[];
  categories: CategoryRow[];
  tags: TagRow[];
  candidates: CandidateData[];
  references: Reference[];
}

/** Free text (question content, written answers) lives in the tests JSON, not in a sized column. */
const LONG_TEXT = 100_000;

const ms = (d: Date | null) => (d === null ? null : d.getTime());

function readQuestion(q: RecordReader): QuestionData {
  const skill = q.raw("skill");
  return {
    id: q.id(),
    question_type: q.string("question_type", "", 100),
    content: q.string("content", "", LONG_TEXT),
    points: q.number("points", 0),
    options: q.list("options").map((o) => ({ id: o.id(), content: o.string("content", "", LONG_TEXT), correct: o.boolean("correct", false) })),
    skill: skill === undefined || skill === null ? null : q.string("skill", undefined, 200),
  };
}

function readAnswer(a: RecordReader, questionIds: Set<string>): AnswerData {
  const questionId = a.id("question_id");
  if (questionIds.size > 0 && !questionIds.has(questionId)) a.fail("question_id", "the id of a question of this test");
  const points = a.raw("points");
  const recording = a.raw("recording_url");
  return {
    question_id: questionId,
    text_answer: a.string("text_answer", "", LONG_TEXT),
    points: points === null || points === undefined ? null : a.number("points"),
    chosen_option_ids: a.idList("chosen_option_ids"),
    recording_url: recording === undefined || recording === null ? null : a.string("recording_url"),
  };
}

/** One test entry in the single-candidate shape. */
export function readTest(t: RecordReader): TestData {
  const questions = t.list("questions").map(readQuestion);
  const questionIds = new Set(questions.map((q) => q.id));
  const score = t.raw("score");
  const startedAt = t.date("started_at");
  const finishedAt = t.optionalDate("finished_at");
  if (finishedAt && finishedAt < startedAt) t.fail("finished_at", "a date-time not before started_at");
  return {
    type: t.string("type", "quiz", 100),
    started_at: startedAt.getTime(),
    finished_at: ms(finishedAt),
    points: t.number("points", 0),
    score: score === undefined || score === null ? null : t.number("score"),
    questions,
    answers: t.list("answers").map((a) => readAnswer(a, questionIds)),
    skills: t.list("skills").map((s) => ({ skill: s.string("skill", undefined, 200), score: s.number("score") })),
  };
}

function readContactInfo(r: RecordReader): ContactInfoData | null {
  const v = r.raw("contact_info");
  if (v === undefined || v === null) return null;
  const c = RecordReader.of(v, `${r.at}.contact_info`);
  return {
    full_name: c.string("full_name", "", 500),
    contact_email: c.string("contact_email", "", 320),
    network: c.string("network", ""),
    phone: c.string("phone", "", 100),
    city: c.string("city", "", 500),
    country: c.string("country", "", 500),
  };
}

function readCandidate(r: RecordReader): CandidateData {
  const points = r.raw("points");
  const score = r.raw("score");
  const given = points === undefined && score === undefined ? undefined : { points: r.number("points", 0), score: r.number("score", 0) };
  return {
    id: r.id(),
    name: r.string("name", "", 500),
    email: r.string("email", "", 320),
    profile_url: r.string("profile_url", ""),
    contact_info: readContactInfo(r),
    rating: checkRating(r.number("rating", 0), `${r.at}.rating`),
    hire_state: checkHireState(r.string("hire_state", ""), `${r.at}.hire_state`),
    category_id: r.optionalId("category_id"),
    job_opening_id: r.id("job_opening_id"),
    utm_source: r.string("utm_source", "", 500),
    utm_medium: r.string("utm_medium", "", 500),
    utm_campaign: r.string("utm_campaign", "", 500),
    referrer_url: r.string("referrer_url", ""),
    ip_address: r.string("ip_address", "", 64),
    tests: r.list("tests").map(readTest),
    tag_ids: [...new Set(r.idList("tag_ids"))],
    demo: r.boolean("demo", false),
    given,
  };
}

function readOpening(workspaceId: string, r: RecordReader): OpeningRow {
  return {
    workspace_id: workspaceId,
    id: r.id(),
    name: r.string("name", undefined, 500),
    slug: r.string("slug", "", 500),
    created_at: r.date("created_at"),
    published_at: r.optionalDate("published_at"),
    closed_at: r.optionalDate("closed_at"),
    tests: JSON.stringify(r.list("tests").map((t) => ({ id: t.id(), name: t.string("name", "", 500), slug: t.string("slug", "", 500) }))),
  };
}

/** Ids must be unique within a list of the file: two versions of one record are a mistake. */
function unique<T extends { id: string }>(name: string, items: T[]): T[] {
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const earlier = seen.get(item.id);
    if (earlier !== undefined) throw badRequest(`${name}[${i}].id: ${item.id} is already used by ${name}[${earlier}]`);
    seen.set(item.id, i);
  });
  return items;
}

/** The import document, given as a Struct (`data`) or as JSON text (`json`), not both. */
export function importDocument(data: Record<string, unknown> | undefined, json: string): Record<string, unknown> {
  if (json === "") return data ?? {};
  if (data !== undefined) throw badRequest("give the document as data or as json, not both");
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw badRequest(`json: ${(err as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw badRequest("json: expected an object");
  return parsed as Record<string, unknown>;
}

/** Reads and checks the whole file; throws on the first bad record, naming its position. */
export function readImport(workspaceId: string, data: Record<string, unknown>): ImportPlan {
  const lists = importLists(data, ["openings", "categories", "tags", "candidates"]);
  const references: Reference[] = [];
  const openings = unique("openings", lists.openings.map((r) => readOpening(workspaceId, r)));
  const categories = unique(
    "categories",
    lists.categories.map((r) => {
      const row = { workspace_id: workspaceId, id: r.id(), name: r.string("name", undefined, 500), job_opening_id: r.id("job_opening_id") };
      references.push({ kind: "opening", id: row.job_opening_id, at: `${r.at}.job_opening_id` });
      return row;
    }),
  );
  const tags = unique("tags", lists.tags.map((r) => ({ workspace_id: workspaceId, id: r.id(), name: r.string("name", undefined, 500) })));
  const candidates = unique(
    "candidates",
    lists.candidates.map((r) => {
      const c = readCandidate(r);
      references.push({ kind: "opening", id: c.job_opening_id, at: `${r.at}.job_opening_id` });
      if (c.category_id !== null) references.push({ kind: "category", id: c.category_id, at: `${r.at}.category_id` });
      c.tag_ids.forEach((id, i) => references.push({ kind: "tag", id, at: `${r.at}.tag_ids[${i}]` }));
      return c;
    }),
  );
  return { openings, categories, tags, candidates, references };
}
