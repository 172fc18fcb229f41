import t from "tap";
import { Code, ConnectError } from "@connectrpc/connect";
import { startTestSystem, type TestSystem } from "../../../test/support/harness.js";
import { at, candidate, createWorkspace, hiringAdmin, hiringEvents, importData, opening, type HiringWorkspace, type Json } from "./support.js";

/** The data path: imports, recorded tests and reviewer updates, and the events they emit. */

const sys: TestSystem = await startTestSystem(t);

async function counts(ws: HiringWorkspace) {
  const get = async (path: string) => (await sys.api("GET", path, { auth: ws.auth })).body;
  return {
    openings: (await get("/api/v2/openings")).data.length,
    categories: (await get("/api/v2/categories")).data.length,
    tags: (await get("/api/v2/tags")).data.length,
    candidates: (await get("/api/v2/candidates")).total,
  };
}

async function importError(ws: HiringWorkspace, data: Json): Promise<ConnectError> {
  try {
    await importData(sys, ws, data);
  } catch (err) {
    return ConnectError.from(err);
  }
  throw new Error("the import was accepted");
}

const quiz = (started: number, answers: Json[], extra: Json = {}): Json => ({
  type: "quiz",
  started_at: at(started),
  finished_at: at(started + 30),
  points: 99,
  score: 99,
  questions: [
    { id: "q1", question_type: "single-choice", content: "Pick *one*", points: 2, options: [{ id: "q1a", content: "A", correct: true }, { id: "q1b", content: "B", correct: false }], skill: null },
    { id: "q2", question_type: "single-choice", content: "Pick another", points: 3, options: [{ id: "q2a", content: "A", correct: true }], skill: null },
    { id: "q3", question_type: "free-text", content: "Explain", points: 5, options: [], skill: null },
  ],
  answers,
  skills: [],
  ...extra,
});

t.test("a bad record is reported with its position and nothing of the file is imported", async (t) => {
  const ws = await createWorkspace(sys);
  const good = {
    openings: [opening("o1")],
    categories: [{ id: "k1", name: "Shortlist", job_opening_id: "o1" }],
    tags: [{ id: "g1", name: "senior" }],
  };
  const c = (id: string, extra: Json = {}) => ({ ...candidate({ id, opening: "o1", started: 10, tags: ["g1"], category: "k1" }), ...extra });
  const cases: [Json, RegExp][] = [
    [{ ...good, candidates: [c("c1"), c("c2"), c("c3", { rating: 7 })] }, /^candidates\[2\]\.rating: /],
    [{ ...good, candidates: [c("c1"), c("c2", { hire_state: "hired" })] }, /^candidates\[1\]\.hire_state: /],
    [{ ...good, candidates: [c("c1", { tests: [{ type: "quiz", started_at: "yesterday" }] })] }, /^candidates\[0\]\.tests\[0\]\.started_at: expected a date-time/],
    [{ ...good, candidates: [c("c1", { tests: [quiz(1, [{ question_id: "q1", points: "two" }])] })] }, /^candidates\[0\]\.tests\[0\]\.answers\[0\]\.points: expected a number/],
    [{ ...good, candidates: [c("c1", { tests: [quiz(1, [{ question_id: "q9", points: 1 }])] })] }, /^candidates\[0\]\.tests\[0\]\.answers\[0\]\.question_id: /],
    [{ ...good, candidates: [c("c1"), c("c2", { category_id: "k9" })] }, /^candidates\[1\]\.category_id: no category k9/],
    [{ ...good, candidates: [c("c1", { tag_ids: ["g1", "g9"] })] }, /^candidates\[0\]\.tag_ids\[1\]: no tag g9/],
    [{ ...good, candidates: [c("c1", { job_opening_id: "o9" })] }, /^candidates\[0\]\.job_opening_id: no opening o9/],
    [{ ...good, candidates: [c("c1"), c("c1")] }, /^candidates\[1\]\.id: c1 is already used by candidates\[0\]/],
    [{ ...good, candidates: [c("c1", { name: "x".repeat(501) })] }, /^candidates\[0\]\.name: expected a string of at most 500/],
    [{ ...good, candidates: [c("c1", { tag_ids: "g1" })] }, /^candidates\[0\]\.tag_ids: expected an array/],
    [{ ...good, candidates: [c("c1", { id: "" })] }, /^candidates\[0\]\.id: /],
    [{ ...good, categories: [{ id: "k2", name: "x", job_opening_id: "o9" }] }, /^categories\[0\]\.job_opening_id: no opening o9/],
    [{ ...good, openings: [opening("o1"), { id: "o2", name: 5 }] }, /^openings\[1\]\.name: expected a string/],
    [{ ...good, tags: [{ id: "g1" }] }, /^tags\[0\]\.name: /],
    [{ ...good, candidates: {} }, /^candidates: expected an array/],
    [{ ...good, candidates: [5] }, /^candidates\[0\]: expected an object/],
  ];
  for (const [data, message] of cases) {
    const err = await importError(ws, data);
    t.equal(err.code, Code.InvalidArgument, String(message));
    t.match(err.rawMessage, message);
  }
  // Found while writing (after the openings, categories and tags were written): all rolled back.
  const longAnswer = { question_id: "q3", text_answer: "x".repeat(100_000), points: null };
  const huge = c("c-huge", { tests: [quiz(1, Array.from({ length: 160 }, () => longAnswer))] });
  const late = await importError(ws, { ...good, candidates: [c("c1"), huge] });
  t.equal(late.code, Code.InvalidArgument);
  t.match(late.rawMessage, /^candidate c-huge: its tests take more than/);
  t.same(await counts(ws), { openings: 0, categories: 0, tags: 0, candidates: 0 }, "nothing of any bad file was imported");
  t.same(await hiringEvents(sys, ws.id), [], "and nothing was announced");
  const ok = await importData(sys, ws, { ...good, candidates: [c("c1"), c("c2")] });
  t.match(ok, { openings: 1, categories: 1, tags: 1, candidates: 2, events: 2 });
  t.same(await counts(ws), { openings: 1, categories: 1, tags: 1, candidates: 2 });
});

t.test("a file may refer to records imported before", async (t) => {
  const ws = await createWorkspace(sys);
  await importData(sys, ws, { openings: [opening("o1")], categories: [{ id: "k1", name: "A", job_opening_id: "o1" }], tags: [{ id: "g1", name: "g" }] });
  await importData(sys, ws, { candidates: [candidate({ id: "c1", opening: "o1", started: 1, category: "k1", tags: ["g1"] })] });
  t.same((await sys.api("GET", "/api/v2/candidates/c1", { auth: ws.auth })).body.tag_ids, ["g1"]);
});

t.test("an import announces each new candidate who submitted a test; re-importing announces nothing", async (t) => {
  const ws = await createWorkspace(sys);
  const data = {
    openings: [opening("o1")],
    tags: [{ id: "g1", name: "g" }],
    candidates: [
      candidate({ id: "new-1", opening: "o1", started: 10, tags: ["g1"] }),
      candidate({ id: "new-2", opening: "o1", started: 20 }),
      candidate({ id: "demo-1", opening: "o1", started: 30, demo: true }),
      candidate({ id: "busy-1", opening: "o1", started: 40, finished: false }),
      candidate({ id: "none-1", opening: "o1" }),
    ],
  };
  const first = await importData(sys, ws, data);
  t.equal(first.events, 2);
  t.same(await hiringEvents(sys, ws.id), [
    { workspaceId: ws.id, entity: "candidate", action: "test.finished", objectId: "new-1" },
    { workspaceId: ws.id, entity: "candidate", action: "test.finished", objectId: "new-2" },
  ]);
  const again = await importData(sys, ws, data);
  t.equal(again.events, 0);
  t.match(again, { openings: 1, tags: 1, candidates: 5 }, "the answer counts the records read");
  t.equal((await hiringEvents(sys, ws.id)).length, 2, "the same data again emits nothing");

  // The unfinished test is finished now, a reviewer rated new-2, the demo stays a demo.
  const changed = {
    candidates: [
      candidate({ id: "busy-1", opening: "o1", started: 40 }),
      candidate({ id: "new-2", opening: "o1", started: 20, rating: 3 }),
      candidate({ id: "demo-1", opening: "o1", started: 30, demo: true, rating: 2 }),
      candidate({ id: "new-1", opening: "o1", started: 10, tags: ["g1"] }),
    ],
  };
  const third = await importData(sys, ws, changed);
  t.equal(third.events, 2);
  t.same((await hiringEvents(sys, ws.id)).slice(2), [
    { workspaceId: ws.id, entity: "candidate", action: "test.finished", objectId: "busy-1" },
    { workspaceId: ws.id, entity: "candidate", action: "updated", objectId: "new-2" },
  ]);
  t.equal((await sys.api("GET", "/api/v2/candidates/new-2", { auth: ws.auth })).body.rating, 3);
  t.equal((await sys.api("GET", "/api/v2/candidates/busy-1", { auth: ws.auth })).status, 200, "a candidate who submitted is listed from then on");
  t.equal((await importData(sys, ws, changed)).events, 0);
  // A demo flag set later hides the candidate again, and the totals follow.
  await importData(sys, ws, { candidates: [candidate({ id: "new-1", opening: "o1", started: 10, tags: ["g1"], demo: true })] });
  const total = (await sys.api("GET", "/api/v2/candidates", { auth: ws.auth })).body.total;
  t.equal(total, 2, "new-2 and busy-1");
  t.equal((await sys.api("GET", "/api/v2/candidates?min_score=-1", { auth: ws.auth })).body.total, total, "kept and counted totals agree");
  t.same((await sys.api("GET", "/api/v2/candidates?tag_ids=g1", { auth: ws.auth })).body, { data: [], links: { next: null }, total: 0 }, "the tag entries follow too");
});

t.test("points and score are derived from the first test's graded answers", async (t) => {
  const ws = await createWorkspace(sys);
  const answers = [
    { question_id: "q1", text_answer: "", points: 2, chosen_option_ids: ["q1a"] },
    { question_id: "q2", text_answer: "", points: 0, chosen_option_ids: ["q2b"] },
    // Not graded yet: no points, still part of the maximum.
    { question_id: "q3", text_answer: "Because.", points: null, chosen_option_ids: [] },
  ];
  const video = {
    type: "video",
    started_at: at(100),
    finished_at: at(110),
    points: 0,
    questions: [{ id: "v1", question_type: "video", content: "Hello", points: 0, options: [], skill: "communication" }],
    answers: [{ question_id: "v1", text_answer: "", points: null, chosen_option_ids: [], recording_url: "https://media.example.com/1.webm" }],
    skills: [{ skill: "communication", score: 80 }],
  };
  await importData(sys, ws, {
    openings: [opening("o1")],
    candidates: [
      // Tests in any order: the first test is the one started first.
      { ...candidate({ id: "c1", opening: "o1" }), points: 50, score: 50, tests: [video, quiz(10, answers)] },
      { ...candidate({ id: "c2", opening: "o1" }), points: 7, score: 70, tests: [{ ...quiz(10, []), points: 7, score: 70 }] },
    ],
  });
  const c1 = (await sys.api("GET", "/api/v2/candidates/c1", { auth: ws.auth })).body;
  t.equal(c1.points, 2, "points: the sum of the graded answers");
  t.equal(c1.score, 20, "score: 2 of 10 possible points");
  t.same(
    c1.tests.map((x: { type: string }) => x.type),
    ["quiz", "video"],
    "tests in the order they started",
  );
  t.match(c1.tests[0], { points: 2, score: 20, started_at: at(10) });
  t.match(c1.tests[1], { type: "video", points: 0, score: null, skills: [{ skill: "communication", score: 80 }] });
  t.same(c1.tests[1].answers[0], { question_id: "v1", text_answer: "", points: null, chosen_option_ids: [], recording_url: "https://media.example.com/1.webm" });
  t.same(c1.tests[1].questions[0], { id: "v1", question_type: "video", content: "Hello", points: 0, options: [], skill: "communication" });
  t.same(c1.tests[0].answers[2], { question_id: "q3", text_answer: "Because.", points: null, chosen_option_ids: [], recording_url: null });
  const c2 = (await sys.api("GET", "/api/v2/candidates/c2", { auth: ws.auth })).body;
  t.match(c2, { points: 7, score: 70 }, "without answers the given values stand");
  const filtered = await sys.api("GET", "/api/v2/candidates?min_score=20&max_score=20", { auth: ws.auth });
  t.same(
    filtered.body.data.map((c: { id: string }) => c.id),
    ["c1"],
    "the list filters on the derived score",
  );
});

t.test("recording a finished test announces test.finished and updates the candidate", async (t) => {
  const ws = await createWorkspace(sys);
  await importData(sys, ws, {
    openings: [opening("o1")],
    candidates: [candidate({ id: "c1", opening: "o1", started: 10 }), candidate({ id: "fresh", opening: "o1" }), candidate({ id: "demo", opening: "o1", demo: true })],
  });
  const before = (await hiringEvents(sys, ws.id)).length;
  const admin = hiringAdmin(sys);
  const second = quiz(500, [{ question_id: "q1", points: 2, chosen_option_ids: ["q1a"] }, { question_id: "q2", points: 3, chosen_option_ids: ["q2a"] }]);
  const res = await admin.recordFinishedTest({ workspaceId: ws.id, candidateId: "c1", test: second as never });
  t.equal(res.candidate?.tests.length, 2);
  t.equal((await sys.api("GET", "/api/v2/candidates/c1", { auth: ws.auth })).body.tests[1].score, 50, "a later test is scored but is not the first");

  await admin.recordFinishedTest({ workspaceId: ws.id, candidateId: "fresh", test: quiz(20, [{ question_id: "q3", points: 5 }]) as never });
  const fresh = await sys.api("GET", "/api/v2/candidates/fresh", { auth: ws.auth });
  t.equal(fresh.status, 200, "a candidate appears once a test is finished");
  t.match(fresh.body, { points: 5, score: 50 });

  await admin.recordFinishedTest({ workspaceId: ws.id, candidateId: "demo", test: quiz(30, []) as never });
  t.equal((await sys.api("GET", "/api/v2/candidates/demo", { auth: ws.auth })).status, 404, "demo candidates stay hidden");

  t.same((await hiringEvents(sys, ws.id)).slice(before), [
    { workspaceId: ws.id, entity: "candidate", action: "test.finished", objectId: "c1" },
    { workspaceId: ws.id, entity: "candidate", action: "test.finished", objectId: "fresh" },
  ]);
  await admin.recordFinishedTest({ workspaceId: ws.id, candidateId: "c1", test: second as never });
  t.equal((await hiringEvents(sys, ws.id)).length, before + 2, "recording the same attempt again changes and announces nothing");
  t.equal((await sys.api("GET", "/api/v2/candidates/c1", { auth: ws.auth })).body.tests.length, 2);

  const bad: [Json | undefined, RegExp, Code][] = [
    [{ ...quiz(1, []), finished_at: null }, /^test\.finished_at: expected a date-time/, Code.InvalidArgument],
    [quiz(1, [{ question_id: "q1", points: "x" }]), /^test\.answers\[0\]\.points: expected a number/, Code.InvalidArgument],
    [undefined, /^test: expected an object/, Code.InvalidArgument],
  ];
  for (const [test, message, code] of bad) {
    const err = await admin.recordFinishedTest({ workspaceId: ws.id, candidateId: "c1", test: test as never }).then(() => undefined, (e) => ConnectError.from(e));
    t.equal(err?.code, code, String(message));
    t.match(err?.rawMessage, message);
  }
  await t.rejects(admin.recordFinishedTest({ workspaceId: ws.id, candidateId: "nobody", test: quiz(1, []) as never }), { code: Code.NotFound });
});

t.test("updating rating, hire state, category and tags announces updated, once per real change", async (t) => {
  const ws = await createWorkspace(sys);
  await importData(sys, ws, {
    openings: [opening("o1")],
    categories: [{ id: "k1", name: "A", job_opening_id: "o1" }],
    tags: [{ id: "g1", name: "one" }, { id: "g2", name: "two" }],
    candidates: [candidate({ id: "c1", opening: "o1", started: 10, tags: ["g1"] }), candidate({ id: "busy", opening: "o1", started: 20, finished: false })],
  });
  const before = (await hiringEvents(sys, ws.id)).length;
  const admin = hiringAdmin(sys);
  const res = await admin.updateCandidate({ workspaceId: ws.id, candidateId: "c1", rating: 3, hireState: "possible-hire", categoryId: "k1", tagIds: { ids: ["g2", "g1", "g2"] } });
  t.match(res.candidate, { rating: 3, hireState: "possible-hire", categoryId: "k1", tagIds: ["g1", "g2"] });
  t.match((await sys.api("GET", "/api/v2/candidates/c1", { auth: ws.auth })).body, { rating: 3, hire_state: "possible-hire", category_id: "k1", tag_ids: ["g1", "g2"] });
  t.same(
    (await sys.api("GET", "/api/v2/candidates?tag_ids=g1,g2&hire_state=possible-hire&min_rating=3", { auth: ws.auth })).body.data.map((c: { id: string }) => c.id),
    ["c1"],
  );
  await admin.updateCandidate({ workspaceId: ws.id, candidateId: "c1", rating: 3 });
  await admin.updateCandidate({ workspaceId: ws.id, candidateId: "c1" });
  await admin.updateCandidate({ workspaceId: ws.id, candidateId: "c1", hireState: "", categoryId: "", tagIds: { ids: [] } });
  t.match((await sys.api("GET", "/api/v2/candidates/c1", { auth: ws.auth })).body, { rating: 3, hire_state: "", category_id: null, tag_ids: [] }, "empty values clear");
  await admin.updateCandidate({ workspaceId: ws.id, candidateId: "busy", rating: 1 });
  t.same((await hiringEvents(sys, ws.id)).slice(before), [
    { workspaceId: ws.id, entity: "candidate", action: "updated", objectId: "c1" },
    { workspaceId: ws.id, entity: "candidate", action: "updated", objectId: "c1" },
  ], "no event for a change that changes nothing, nor for a candidate the API does not show");

  const bad: [Parameters<typeof admin.updateCandidate>[0], RegExp][] = [
    [{ rating: 4 }, /^rating: expected an integer from 0 to 3/],
    [{ rating: -1 }, /^rating: /],
    [{ hireState: "hired" }, /^hire_state: /],
    [{ categoryId: "k9" }, /^category_id: no category k9/],
    [{ tagIds: { ids: ["g1", "g9"] } }, /^tag_ids\[1\]: no tag g9/],
    [{ tagIds: { ids: [""] } }, /tag_ids\[0\]: expected a non-empty string id/],
  ];
  for (const [change, message] of bad) {
    const err = await admin.updateCandidate({ workspaceId: ws.id, candidateId: "c1", ...change }).then(() => undefined, (e) => ConnectError.from(e));
    t.equal(err?.code, Code.InvalidArgument, String(message));
    t.match(err?.rawMessage, message);
  }
  await t.rejects(admin.updateCandidate({ workspaceId: ws.id, candidateId: "nobody", rating: 1 }), { code: Code.NotFound });
  t.equal((await hiringEvents(sys, ws.id)).length, before + 2, "refused changes announce nothing");
});
