import { badRequest } from "../../../lib/errors.js";
import type { CandidateRow } from "./store.js";
import { candidateStanding, gradeTest, orderTests, testSummary, type TestData } from "./scoring.js";

/** Hire states a candidate can be in; the empty string is "not decided". */
const HIRE_STATES = ["", "possible-hire", "rejected"] as const;
const MAX_RATING = 3;

export interface ContactInfoData {
  full_name: string;
  contact_email: string;
  network: string;
  phone: string;
  city: string;
  country: string;
}

/** A candidate as the hiring application describes it (the single-candidate export shape). */
export interface CandidateData {
  id: string;
  name: string;
  email: string;
  profile_url: string;
  contact_info: ContactInfoData | null;
  rating: number;
  hire_state: string;
  category_id: string | null;
  job_opening_id: string;
  utm_source: string;
  utm_medium: string;
  utm_campaign: string;
  referrer_url: string;
  ip_address: string;
  tests: TestData[];
  tag_ids: string[];
  /** Demo candidates are kept but never exported. */
  demo: boolean;
  /** Points and score as given, used when the first test has no answers to derive them from. */
  given?: { points: number; score: number };
}

export function checkRating(rating: number, at: string): number {
  if (!Number.isInteger(rating) || rating < 0 || rating > MAX_RATING) throw badRequest(`${at}: expected an integer from 0 to ${MAX_RATING}`);
  return rating;
}

export function checkHireState(state: string, at: string): string {
  if (!(HIRE_STATES as readonly string[]).includes(state)) throw badRequest(`${at}: expected one of "", "possible-hire", "rejected"`);
  return state;
}

/** The email filter matches regardless of case and surrounding blanks. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** The stored row: the data plus what the tests say (standing, sort key, whether it is exported). */
export function candidateRow(workspaceId: string, c: CandidateData): CandidateRow {
  const tests = orderTests(c.tests.map(gradeTest));
  const standing = candidateStanding(tests, c.given);
  return {
    workspace_id: workspaceId,
    id: c.id,
    name: c.name,
    email: c.email,
    email_key: emailKey(c.email),
    profile_url: c.profile_url,
    contact_info: c.contact_info ? JSON.stringify(c.contact_info) : null,
    points: standing.points,
    score: standing.score,
    rating: c.rating,
    hire_state: c.hire_state,
    category_id: c.category_id,
    job_opening_id: c.job_opening_id,
    utm_source: c.utm_source,
    utm_medium: c.utm_medium,
    utm_campaign: c.utm_campaign,
    referrer_url: c.referrer_url,
    ip_address: c.ip_address,
    demo: c.demo ? 1 : 0,
    listed: standing.submitted && !c.demo ? 1 : 0,
    first_started_at: standing.firstStartedAt === null ? null : new Date(standing.firstStartedAt),
    test_summaries: JSON.stringify(tests.map(testSummary)),
    tests: JSON.stringify(tests),
  };
}

/** The candidate back from its row (to change it and store it again). */
export function candidateData(row: CandidateRow, tagIds: string[]): CandidateData {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    profile_url: row.profile_url,
    contact_info: row.contact_info ? (JSON.parse(row.contact_info) as ContactInfoData) : null,
    rating: row.rating,
    hire_state: row.hire_state,
    category_id: row.category_id,
    job_opening_id: row.job_opening_id,
    utm_source: row.utm_source,
    utm_medium: row.utm_medium,
    utm_campaign: row.utm_campaign,
    referrer_url: row.referrer_url,
    ip_address: row.ip_address,
    tests: JSON.parse(row.tests) as TestData[],
    tag_ids: tagIds,
    demo: row.demo === 1,
    given: { points: row.points, score: row.score },
  };
}

const COMPARED: (keyof CandidateRow)[] = [
  "name", "email", "profile_url", "contact_info", "points", "score", "rating", "hire_state", "category_id", "job_opening_id",
  "utm_source", "utm_medium", "utm_campaign", "referrer_url", "ip_address", "demo", "listed", "tests",
];

/** True when storing `next` over `current` would change nothing (re-imports of the same data). */
export function sameCandidate(current: CandidateRow, currentTags: string[], next: CandidateRow, nextTags: string[]): boolean {
  if (COMPARED.some((k) => current[k] !== next[k])) return false;
  const a = [...new Set(currentTags)].sort();
  const b = [...new Set(nextTags)].sort();
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

function finishedTests(row: CandidateRow): number {
  return (JSON.parse(row.test_summaries) as { finished_at: number | null }[]).filter((t) => t.finished_at !== null).length;
}

/**
 * The event a change of a candidate means. Only candidates the export API shows are announced
 * (a receiver fetches the candidate; demo and unsubmitted ones would answer 404): a candidate
 * that appears, or finished one more test, is `test.finished`; any other change `updated`.
 */
export function candidateChangeEvent(before: CandidateRow | undefined, after: CandidateRow): "test.finished" | "updated" | undefined {
  if (after.listed !== 1) return undefined;
  if (!before || before.listed !== 1 || finishedTests(after) > finishedTests(before)) return "test.finished";
  return "updated";
}
