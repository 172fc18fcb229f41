/**
 * A candidate's tests and what follows from them: points and score of a test, which test is
 * the first, whether the candidate has submitted, and the list's sort key. Pure functions; times
 * are epoch milliseconds so that the stored JSON round-trips exactly.
 */

export interface OptionData {
  id: string;
  content: string;
  correct: boolean;
}

export interface QuestionData {
  id: string;
  question_type: string;
  content: string;
  points: number;
  options: OptionData[];
  skill: string | null;
}

export interface AnswerData {
  question_id: string;
  text_answer: string;
  /** Null when not graded. */
  points: number | null;
  chosen_option_ids: string[];
  recording_url: string | null;
}

export interface SkillData {
  skill: string;
  score: number;
}

export interface TestData {
  type: string;
  started_at: number;
  finished_at: number | null;
  points: number;
  score: number | null;
  questions: QuestionData[];
  answers: AnswerData[];
  skills: SkillData[];
}

/** The short test entry of a candidate list item. */
export type TestSummary = Pick<TestData, "type" | "started_at" | "finished_at" | "points" | "score">;

/** Sums of decimal points pick up binary noise (0.1 + 0.2); six decimals is more than any grading uses. */
function tidy(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/**
 * Points and score of a test from its answers, when it has answers: points are the sum of the
 * graded answers' points; the score (quiz tests, as in the export) is the actual points over the
 * maximum points (the sum of the questions' points) times 100. Without answers, or without a
 * maximum, the given values stand.
 */
export function gradeTest(test: TestData): TestData {
  if (test.answers.length === 0) return test;
  const points = tidy(test.answers.reduce((sum, a) => sum + (a.points ?? 0), 0));
  const maximum = test.questions.reduce((sum, q) => sum + q.points, 0);
  const score = test.type === "quiz" && maximum > 0 ? tidy((points / maximum) * 100) : test.score;
  return { ...test, points, score };
}

/** Tests in the order they were started (stable for equal times); the first is the first test. */
export function orderTests(tests: TestData[]): TestData[] {
  return tests.map((t, i) => ({ t, i })).sort((a, b) => a.t.started_at - b.t.started_at || a.i - b.i).map(({ t }) => t);
}

export interface CandidateStanding {
  /** Has finished at least one test: only such candidates are exported. */
  submitted: boolean;
  /** `started_at` of the first test: the candidate list's sort key. */
  firstStartedAt: number | null;
  points: number;
  score: number;
}

/**
 * What the tests (ordered, graded) say about the candidate. The candidate's points and score
 * are the first test's when that test has answers to derive them from; otherwise the values
 * the hiring application gave (`given`), or else the first test's own.
 */
export function candidateStanding(tests: TestData[], given?: { points: number; score: number }): CandidateStanding {
  const first = tests[0];
  const submitted = tests.some((t) => t.finished_at !== null);
  const fromFirst = first ? { points: first.points, score: first.score ?? 0 } : { points: 0, score: 0 };
  const scores = first && first.answers.length > 0 ? fromFirst : (given ?? fromFirst);
  return { submitted, firstStartedAt: first ? first.started_at : null, ...scores };
}

export function testSummary(t: TestData): TestSummary {
  return { type: t.type, started_at: t.started_at, finished_at: t.finished_at, points: t.points, score: t.score };
}

/** Two tests are the same attempt when type and start time match (the export has no test-attempt id). */
export function sameAttempt(a: TestData, b: TestData): boolean {
  return a.type === b.type && a.started_at === b.started_at;
}
