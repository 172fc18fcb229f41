import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Answer, Candidate, CandidateDetail, ContactInfo, Question, QuestionOption, SkillScore, TestDetail, TestResult } from "../../../gen/hiring/v1/export_pb.js";
import type { CandidateListRow, CandidateRow } from "./store.js";
import type { ContactInfoData } from "./rules.js";
import type { AnswerData, QuestionData, TestData, TestSummary } from "./scoring.js";

/** Stored candidates as the export API's messages. */

/*
 * Candidates are built as complete message literals rather than with `create()`: a list page
 * holds 100 candidates with nested contact info, tests and timestamps, and `create()` walking
 * the descriptors for each of them cost about 3 ms a page. The generated types make the
 * compiler check that every field is there.
 */

function timestamp(ms: number): Timestamp {
  const seconds = Math.floor(ms / 1000);
  return { $typeName: "google.protobuf.Timestamp", seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
}

function contactInfo(json: string | null): ContactInfo | undefined {
  if (!json) return undefined;
  const c = JSON.parse(json) as ContactInfoData;
  return { $typeName: "hiring.v1.ContactInfo", fullName: c.full_name, contactEmail: c.contact_email, network: c.network, phone: c.phone, city: c.city, country: c.country };
}

function testResult(t: TestSummary): TestResult {
  return {
    $typeName: "hiring.v1.TestResult",
    type: t.type,
    startedAt: timestamp(t.started_at),
    finishedAt: t.finished_at === null ? undefined : timestamp(t.finished_at),
    points: t.points,
    score: t.score ?? undefined,
  };
}

function question(q: QuestionData): Question {
  return {
    $typeName: "hiring.v1.Question",
    id: q.id,
    questionType: q.question_type,
    content: q.content,
    points: q.points,
    options: q.options.map((o): QuestionOption => ({ $typeName: "hiring.v1.QuestionOption", id: o.id, content: o.content, correct: o.correct })),
    skill: q.skill ?? undefined,
  };
}

function answer(a: AnswerData): Answer {
  return {
    $typeName: "hiring.v1.Answer",
    questionId: a.question_id,
    textAnswer: a.text_answer,
    points: a.points ?? undefined,
    chosenOptionIds: a.chosen_option_ids,
    recordingUrl: a.recording_url ?? undefined,
  };
}

function testDetail(t: TestData): TestDetail {
  return {
    ...testResult(t),
    $typeName: "hiring.v1.TestDetail",
    questions: t.questions.map(question),
    answers: t.answers.map(answer),
    skills: t.skills.map((s): SkillScore => ({ $typeName: "hiring.v1.SkillScore", skill: s.skill, score: s.score })),
  };
}

/** A list item: short test entries, no tag ids. One literal: spreading shared fields into it cost an object per candidate. */
export function candidateMessage(row: CandidateListRow): Candidate {
  const tests = JSON.parse(row.test_summaries) as TestSummary[];
  return {
    $typeName: "hiring.v1.Candidate",
    id: row.id,
    name: row.name,
    email: row.email,
    profileUrl: row.profile_url,
    contactInfo: contactInfo(row.contact_info),
    points: row.points,
    score: row.score,
    rating: row.rating,
    hireState: row.hire_state,
    categoryId: row.category_id ?? undefined,
    jobOpeningId: row.job_opening_id,
    utmSource: row.utm_source,
    utmMedium: row.utm_medium,
    utmCampaign: row.utm_campaign,
    referrerUrl: row.referrer_url,
    ipAddress: row.ip_address,
    tests: tests.map(testResult),
  };
}

/** The single-candidate answer: full tests and tag ids. */
export function candidateDetailMessage(row: CandidateRow, tagIds: string[]): CandidateDetail {
  const tests = JSON.parse(row.tests) as TestData[];
  // The list item's fields, with the full tests in place of the short ones.
  return { ...candidateMessage(row), $typeName: "hiring.v1.CandidateDetail", tests: tests.map(testDetail), tagIds };
}
