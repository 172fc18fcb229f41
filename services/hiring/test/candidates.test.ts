import t from "tap";
import * as http from "node:http";
import { startTestSystem, type TestSystem } from "../../../test/support/harness.js";
import { at, candidate, createWorkspace, hiringAdmin, importData, opening, pathOf, type CandidateSpec, type HiringWorkspace } from "./support.js";

/**
 * The candidate list and the single candidate, through the gateway over HTTP, checked against
 * a reference computed here from the imported records.
 */

const sys: TestSystem = await startTestSystem(t);
const ws: HiringWorkspace = await createWorkspace(sys, "Acme");
const other: HiringWorkspace = await createWorkspace(sys, "Other");

const TAGS = ["g1", "g2", "g3", "g4"];
const OPENINGS = ["o1", "o2", "o3"];
const N = 140;

/** 140 candidates: ties in start time (groups of three, ids not in insertion order), demo and unsubmitted ones. */
function fixture(): CandidateSpec[] {
  const specs: CandidateSpec[] = [];
  for (let i = 0; i < N; i++) {
    const openingId = OPENINGS[(i * 7) % 3];
    const category = openingId === "o1" ? (["k1", "k2", null] as const)[i % 3] : openingId === "o2" ? (i % 2 ? "k3" : null) : null;
    const score = (i * 13) % 101;
    specs.push({
      id: `c${String((i * 37) % N).padStart(3, "0")}`,
      opening: openingId,
      started: i === N - 1 ? undefined : Math.floor(i / 3) * 10,
      finished: i % 29 !== 7,
      demo: i % 23 === 5,
      score,
      points: score / 10,
      rating: i % 4,
      hireState: ["", "possible-hire", "rejected"][((i * 5) % 7) % 3],
      category,
      tags: TAGS.filter((_, k) => i % [2, 3, 5, 7][k] === 0),
      email: i === 10 ? "Shared@Example.com" : i === 20 ? "shared@example.COM" : undefined,
    });
  }
  return specs;
}

const specs = fixture();
await importData(sys, ws, {
  openings: OPENINGS.map((id) => opening(id)),
  categories: [
    { id: "k1", name: "Shortlist", job_opening_id: "o1" },
    { id: "k2", name: "Maybe", job_opening_id: "o1" },
    { id: "k3", name: "Shortlist", job_opening_id: "o2" },
  ],
  tags: TAGS.map((id) => ({ id, name: `tag ${id}` })),
  candidates: specs.map(candidate),
});
// Another workspace with the same shape of data: it must never show up.
await importData(sys, other, {
  openings: [opening("x1")],
  tags: [{ id: "xg", name: "x" }],
  candidates: [candidate({ id: "x001", opening: "x1", started: 5 }), candidate({ id: "x002", opening: "x1", started: 15, tags: ["xg"] })],
});

const listed = specs.filter((s) => s.started !== undefined && s.finished !== false && !s.demo);
const demo = specs.find((s) => s.demo)!;
const unsubmitted = specs.find((s) => s.started !== undefined && s.finished === false && !s.demo)!;
const noTests = specs.find((s) => s.started === undefined)!;

/** The reference: what the list must answer for these query parameters. */
function expected(query: Record<string, string>): string[] {
  const n = (k: string) => (query[k] === undefined ? undefined : Number(query[k]));
  const tags = query.tag_ids ? query.tag_ids.split(",") : [];
  const rows = listed.filter(
    (s) =>
      (query.job_opening_id === undefined || s.opening === query.job_opening_id) &&
      (query.category_id === undefined || s.category === query.category_id) &&
      tags.every((g) => s.tags!.includes(g)) &&
      (query.hire_state === undefined || s.hireState === query.hire_state) &&
      (n("min_score") === undefined || s.score! >= n("min_score")!) &&
      (n("max_score") === undefined || s.score! <= n("max_score")!) &&
      (n("min_rating") === undefined || s.rating! >= n("min_rating")!) &&
      (n("max_rating") === undefined || s.rating! <= n("max_rating")!) &&
      (query.email === undefined || (s.email ?? `${s.id}@example.com`).toLowerCase() === query.email.toLowerCase()),
  );
  rows.sort((a, b) => a.started! - b.started! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = rows.map((s) => s.id);
  return query.order === "desc" ? ids.reverse() : ids;
}

function qs(query: Record<string, string>): string {
  const s = new URLSearchParams(query).toString();
  return s ? `?${s}` : "";
}

async function list(query: Record<string, string>, workspace = ws) {
  const res = await sys.api("GET", `/api/v2/candidates${qs(query)}`, { auth: workspace.auth });
  if (res.status !== 200) throw new Error(`GET ${qs(query)}: ${res.status} ${res.text}`);
  return res.body as { data: { id: string }[]; links: { next: string | null }; total: number };
}

/** Follows links.next from the first page; returns every id seen and the pages' next links. */
async function walk(query: Record<string, string>, workspace = ws, between?: (page: { data: { id: string }[]; links: { next: string | null } }) => Promise<void>) {
  const ids: string[] = [];
  const links: (string | null)[] = [];
  let path: string | null = `/api/v2/candidates${qs(query)}`;
  for (let pages = 0; path; pages++) {
    if (pages > 500) throw new Error("links.next does not end");
    const res = await sys.api("GET", path, { auth: workspace.auth });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
    ids.push(...res.body.data.map((c: { id: string }) => c.id));
    links.push(res.body.links.next);
    if (between) await between(res.body);
    path = res.body.links.next ? pathOf(sys, res.body.links.next) : null;
  }
  return { ids, links };
}

t.test("the list holds only candidates who submitted a test and are no demo, by first test start then id", async (t) => {
  const page = await list({ limit: "1000" });
  t.same(
    page.data.map((c) => c.id),
    expected({}),
  );
  t.equal(page.total, listed.length);
  t.equal((await list({ min_rating: "0" })).total, listed.length, "the kept total of the unfiltered list equals a counted one");
  t.ok(listed.length < N - 10, "the fixture has demo and unsubmitted candidates");
  const ids = new Set(page.data.map((c) => c.id));
  for (const hidden of [demo, unsubmitted, noTests]) t.notOk(ids.has(hidden.id), `${hidden.id} is not listed`);
  t.notOk(ids.has("x001"), "another workspace's candidates are never listed");
  t.equal(page.links.next, null, "everything fits: no next page");
});

t.test("order=desc is the exact reverse, ties included", async (t) => {
  const asc = (await list({ limit: "1000", order: "asc" })).data.map((c) => c.id);
  const desc = (await list({ limit: "1000", order: "desc" })).data.map((c) => c.id);
  t.same(desc, [...asc].reverse());
  t.same(desc, expected({ order: "desc" }));
});

t.test("limit defaults to 100; total counts every match, not the page", async (t) => {
  const page = await list({});
  t.equal(page.data.length, 100);
  t.same(
    page.data.map((c) => c.id),
    expected({}).slice(0, 100),
  );
  t.equal(page.total, listed.length);
  t.type(page.links.next, "string");
  const small = await list({ limit: "3", hire_state: "rejected" });
  t.equal(small.data.length, 3);
  t.equal(small.total, expected({ hire_state: "rejected" }).length);
  const one = await list({ limit: "1" });
  t.equal(one.data.length, 1);
  const max = await list({ limit: "1000" });
  t.equal(max.data.length, listed.length, "1000 is allowed");
});

const SINGLE_FILTERS: Record<string, string>[] = [
  { job_opening_id: "o1" },
  { job_opening_id: "o3" },
  { job_opening_id: "no-such-opening" },
  { category_id: "k1" },
  { category_id: "k3" },
  { tag_ids: "g1" },
  { tag_ids: "g1,g2" },
  { tag_ids: "g2,g3,g1" },
  { tag_ids: "g4,xg" },
  { hire_state: "possible-hire" },
  { hire_state: "rejected" },
  { min_score: "50" },
  { min_score: "52" },
  { max_score: "13" },
  { max_score: "-1" },
  { min_score: "10.5", max_score: "70.25" },
  { min_rating: "2" },
  { max_rating: "1" },
  { min_rating: "1.5", max_rating: "2.5" },
  { min_rating: "3", max_rating: "1" },
  { email: "shared@example.com" },
  { email: "SHARED@EXAMPLE.COM" },
  { email: "c037@example.com" },
];

t.test("every filter alone, in both orders", async (t) => {
  for (const filter of SINGLE_FILTERS) {
    for (const order of ["asc", "desc"]) {
      const query = { ...filter, order, limit: "1000" };
      const page = await list(query);
      t.same(
        page.data.map((c) => c.id),
        expected(query),
        JSON.stringify(query),
      );
      t.equal(page.total, expected(query).length, `total of ${JSON.stringify(query)}`);
    }
  }
  t.ok(expected({ email: "shared@example.com" }).length === 2, "the email filter ignores case");
  t.ok(expected({ min_score: "52" }).some((id) => listed.find((s) => s.id === id)!.score === 52), "the fixture tests an inclusive bound (a score of exactly 52)");
});

const COMBINED: Record<string, string>[] = [
  { job_opening_id: "o1", category_id: "k1" },
  { job_opening_id: "o1", hire_state: "possible-hire", min_rating: "1" },
  { tag_ids: "g1", min_score: "20", max_score: "80", order: "desc" },
  { job_opening_id: "o2", category_id: "k3", tag_ids: "g1", hire_state: "rejected", min_score: "0", max_score: "100", min_rating: "0", max_rating: "3" },
  { job_opening_id: "o1", category_id: "k2", tag_ids: "g2", hire_state: "possible-hire", min_score: "1", max_score: "99", min_rating: "1", max_rating: "3", email: "c037@example.com" },
  { email: "shared@example.com", job_opening_id: "o2" },
];

t.test("filters combine with AND", async (t) => {
  for (const filter of COMBINED) {
    const query = { order: "asc", limit: "1000", ...filter };
    const page = await list(query);
    t.same(
      page.data.map((c) => c.id),
      expected(query),
      JSON.stringify(query),
    );
    t.equal(page.total, expected(query).length);
  }
});

t.test("walking links.next visits every match exactly once, in order, keeping every parameter", async (t) => {
  const walks: Record<string, string>[] = [{}, { order: "desc" }, { tag_ids: "g1", min_score: "10" }, { job_opening_id: "o1", order: "desc", max_rating: "2" }, { hire_state: "rejected", min_rating: "1", max_score: "90" }];
  for (const filter of walks) {
    for (const limit of ["7", "1", "50"]) {
      const query = { ...filter, limit };
      const { ids, links } = await walk(query);
      t.same(ids, expected(query), `walk ${JSON.stringify(query)}`);
      t.equal(links[links.length - 1], null, "the last page's next is null");
      for (const link of links.slice(0, -1)) {
        const params = new URL(link!).searchParams;
        for (const [k, v] of Object.entries(query)) t.equal(params.get(k), v, `next keeps ${k}`);
      }
      t.equal(links.length, Math.max(1, Math.ceil(ids.length / Number(limit))), "no empty trailing page");
    }
  }
});

t.test("links.next is the full URL with after_id set to the page's last candidate", async (t) => {
  const page = await list({ limit: "4", min_score: "5", tag_ids: "g1,g2" });
  const next = new URL(page.links.next!);
  t.equal(next.origin, new URL(sys.url).origin);
  t.equal(next.pathname, "/api/v2/candidates");
  t.equal(next.searchParams.get("after_id"), page.data[3].id);
  t.equal(next.searchParams.get("tag_ids"), "g1,g2");
  // A client may set after_id itself; the next link replaces it rather than repeating it.
  const second = await sys.api("GET", pathOf(sys, page.links.next!), { auth: ws.auth });
  t.equal(new URL(second.body.links.next).searchParams.getAll("after_id").length, 1);
  const alias = await sys.api("GET", "/api/v2.2/candidates?limit=2", { auth: ws.auth });
  t.equal(new URL(alias.body.links.next).pathname, "/api/v2.2/candidates", "the next link stays on the version asked for");
});

t.test("links.next is on PUBLIC_URL behind a trusted proxy, whatever it forwards", async (t) => {
  const proxied = await startTestSystem(t, { env: { TRUST_PROXY: "loopback", PUBLIC_URL: "https://hiring.example.com" } });
  const w = await createWorkspace(proxied, "Proxied");
  await importData(proxied, w, { openings: [opening("p")], candidates: [candidate({ id: "p1", opening: "p", started: 1 }), candidate({ id: "p2", opening: "p", started: 2 })] });
  const res = await proxied.api("GET", "/api/v2/candidates?limit=1", { auth: w.auth, headers: { "x-forwarded-proto": "http", "x-forwarded-host": "evil.example.com" } });
  t.match(res.body.links.next, /^https:\/\/hiring\.example\.com\/api\/v2\/candidates\?limit=1&after_id=/);
});

t.test("links.next ignores a forged Host and X-Forwarded-Proto/-Host: it is on PUBLIC_URL", async (t) => {
  const direct = await startTestSystem(t);
  const w = await createWorkspace(direct, "Direct");
  await importData(direct, w, { openings: [opening("p")], candidates: [candidate({ id: "d1", opening: "p", started: 1 }), candidate({ id: "d2", opening: "p", started: 2 })] });
  const forwarded = await direct.api("GET", "/api/v2/candidates?limit=1", { auth: w.auth, headers: { "x-forwarded-proto": "https", "x-forwarded-host": "evil.example.com" } });
  t.equal(new URL(forwarded.body.links.next).origin, direct.env.PUBLIC_URL);
  // fetch cannot send another Host: a raw request can.
  const forged = await new Promise<string>((resolve, reject) => {
    const url = new URL(direct.url);
    http
      .get({ host: url.hostname, port: url.port, path: "/api/v2/candidates?limit=1", headers: { host: "evil.example", authorization: `Bearer ${w.key}` } }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c)).on("end", () => resolve(body));
      })
      .on("error", reject);
  });
  t.equal(new URL(JSON.parse(forged).links.next).origin, direct.env.PUBLIC_URL, "not evil.example");
});

t.test("after_id seeks from that candidate's place, also one the filters leave out", async (t) => {
  const all = expected({});
  const pivot = all[40];
  const page = await list({ after_id: pivot, limit: "5" });
  t.same(
    page.data.map((c) => c.id),
    all.slice(41, 46),
  );
  t.equal(page.total, all.length, "total ignores after_id");
  const rejected = expected({ hire_state: "rejected" });
  const pivotPlace = all.indexOf(pivot);
  const after = rejected.filter((id) => all.indexOf(id) > pivotPlace);
  const filtered = await list({ after_id: pivot, hire_state: "rejected", limit: "1000" });
  t.same(
    filtered.data.map((c) => c.id),
    after,
  );
  const last = await list({ after_id: all[all.length - 1] });
  t.same(last.data, []);
  t.equal(last.links.next, null);
});

t.test("list items carry short tests and no tag_ids; the single candidate has tag_ids and full tests", async (t) => {
  const withTags = listed.find((s) => s.tags!.length >= 2)!;
  const page = await list({ limit: "1000" });
  const item = page.data.find((c) => c.id === withTags.id) as unknown as Record<string, unknown>;
  t.same(Object.keys(item).sort(), [
    "category_id", "contact_info", "email", "hire_state", "id", "ip_address", "job_opening_id", "name", "points", "profile_url", "rating",
    "referrer_url", "score", "tests", "utm_campaign", "utm_medium", "utm_source",
  ]);
  t.same(item.tests, [{ type: "quiz", started_at: at(withTags.started!), finished_at: at(withTags.started! + 20), points: withTags.points, score: withTags.score }]);
  const res = await sys.api("GET", `/api/v2/candidates/${withTags.id}`, { auth: ws.auth });
  t.equal(res.status, 200);
  t.same(res.body.tag_ids, [...withTags.tags!].sort());
  t.match(res.body, {
    id: withTags.id,
    email: `${withTags.id}@example.com`,
    rating: withTags.rating,
    hire_state: withTags.hireState,
    category_id: withTags.category,
    job_opening_id: withTags.opening,
    contact_info: { full_name: `Full ${withTags.id}`, city: "Oslo", country: "Norway" },
  });
  t.same(res.body.tests[0], { ...(item.tests as object[])[0], questions: [], answers: [], skills: [] });
  const noCategory = listed.find((s) => s.category === null)!;
  t.equal((await sys.api("GET", `/api/v2/candidates/${noCategory.id}`, { auth: ws.auth })).body.category_id, null);
});

t.test("demo candidates, candidates without a submitted test and unknown ids answer 404 NotFoundError", async (t) => {
  for (const id of [demo.id, unsubmitted.id, noTests.id, "nope", "x001"]) {
    const res = await sys.api("GET", `/api/v2/candidates/${id}`, { auth: ws.auth });
    t.equal(res.status, 404, id);
    t.same(res.body, { error: { type: "NotFoundError" } });
  }
  const opening = await sys.api("GET", "/api/v2/openings/x1", { auth: ws.auth });
  t.equal(opening.status, 404, "another workspace's opening");
  t.same(opening.body, { error: { type: "NotFoundError" } });
});

t.test("bad query values answer 400 ValidationError", async (t) => {
  const tooManyTags = Array.from({ length: 51 }, (_, i) => `t${i}`).join(",");
  const bad = [
    "hire_state=hired",
    "hire_state=Rejected",
    "order=sideways",
    "order=ascending",
    "limit=0",
    "limit=1001",
    "limit=-5",
    "limit=2.5",
    "limit=ten",
    "limit=",
    "min_score=high",
    "max_score=",
    "max_score=1e999",
    "min_rating=two",
    "max_rating=NaN",
    "after_id=no-such-candidate",
    `after_id=${demo.id}`,
    `after_id=${unsubmitted.id}`,
    "after_id=x001",
    `tag_ids=${tooManyTags}`,
  ];
  for (const query of bad) {
    const res = await sys.api("GET", `/api/v2/candidates?${query}`, { auth: ws.auth });
    t.equal(res.status, 400, query);
    t.same(res.body, { error: { type: "ValidationError" } }, query);
  }
  const empty = await list({ hire_state: "", email: "", order: "" });
  t.equal(empty.total, listed.length, "an empty value is the same as leaving the parameter out");
});

t.test("categories, optionally by opening, and tags", async (t) => {
  const all = await sys.api("GET", "/api/v2/categories", { auth: ws.auth });
  t.equal(all.status, 200);
  t.same(all.body, {
    data: [
      { id: "k2", name: "Maybe", job_opening_id: "o1" },
      { id: "k1", name: "Shortlist", job_opening_id: "o1" },
      { id: "k3", name: "Shortlist", job_opening_id: "o2" },
    ],
  });
  const o2 = await sys.api("GET", "/api/v2/categories?job_opening_id=o2", { auth: ws.auth });
  t.same(o2.body, { data: [{ id: "k3", name: "Shortlist", job_opening_id: "o2" }] });
  const none = await sys.api("GET", "/api/v2/categories?job_opening_id=x1", { auth: ws.auth });
  t.same(none.body, { data: [] });
  const tags = await sys.api("GET", "/api/v2.2/tags", { auth: ws.auth });
  t.same(tags.body, { data: TAGS.map((id) => ({ id, name: `tag ${id}` })) });
  t.same((await sys.api("GET", "/api/v2/tags", { auth: other.auth })).body, { data: [{ id: "xg", name: "x" }] });
});

t.test("openings, listed and by id, with every field", async (t) => {
  const res = await sys.api("GET", "/api/v2/openings", { auth: ws.auth });
  t.equal(res.status, 200);
  t.same(
    res.body.data.map((o: { id: string }) => o.id),
    OPENINGS,
  );
  const one = await sys.api("GET", "/api/v2.2/openings/o2", { auth: ws.auth });
  t.same(one.body, { id: "o2", name: "Opening o2", slug: "opening-o2", created_at: at(0), published_at: at(0), closed_at: null, tests: [{ id: "o2-t", name: "Quiz", slug: "o2-quiz" }] });
});

t.test("an older, closed opening: published later than created, closed, fractions of seconds kept", async (t) => {
  const w = await createWorkspace(sys, "Closed");
  await importData(sys, w, {
    openings: [opening("old", { created_at: "2019-05-01T08:00:00", published_at: "2019-05-03T09:30:00.250", closed_at: "2020-01-31T17:00:00.5", tests: [] })],
  });
  const res = await sys.api("GET", "/api/v2/openings/old", { auth: w.auth });
  t.same(res.body, { id: "old", name: "Opening old", slug: "opening-old", created_at: "2019-05-01T08:00:00", published_at: "2019-05-03T09:30:00.250", closed_at: "2020-01-31T17:00:00.500", tests: [] });
});

t.test("/api/v2.2 answers as /api/v2; /api/v2.0 and /api/v2.1 answer 410", async (t) => {
  const v2 = await sys.api("GET", "/api/v2/candidates?limit=5&order=desc", { auth: ws.auth });
  const v22 = await sys.api("GET", "/api/v2.2/candidates?limit=5&order=desc", { auth: ws.auth });
  t.same(v22.body.data, v2.body.data);
  t.equal(v22.body.total, v2.body.total);
  for (const path of ["/api/v2.0/candidates", "/api/v2.1/candidates?limit=5", "/api/v2.1/openings/o1", "/api/v2.0/tags", "/api/v2.1"]) {
    for (const auth of [ws.auth, undefined]) {
      const res = await sys.api("GET", path, { auth });
      t.equal(res.status, 410, path);
      t.same(res.body, { error: { type: "VersionNoLongerAvailableError" } });
    }
  }
});

t.test("a walk visits each candidate once while new candidates arrive", async (t) => {
  for (const order of ["asc", "desc"] as const) {
    const w = await createWorkspace(sys, `Arrivals ${order}`);
    const initial = Array.from({ length: 30 }, (_, i) => candidate({ id: `a${String(i).padStart(3, "0")}`, opening: "p", started: (i % 10) * 10, tags: i % 2 ? ["odd"] : [] }));
    await importData(sys, w, { openings: [opening("p")], tags: [{ id: "odd", name: "odd" }], candidates: initial });
    let arrivals = 0;
    const ahead: string[] = [];
    const behind: string[] = [];
    const { ids } = await walk({ order, limit: "4" }, w, async (page) => {
      const last = page.data[page.data.length - 1];
      // Arrivals after the last page are for a later walk.
      if (!last || !page.links.next) return;
      // One candidate lands in the part still to be walked, one in the part already walked.
      const lastStart = (await sys.api("GET", `/api/v2/candidates/${last.id}`, { auth: w.auth })).body.tests[0].started_at as string;
      const lastMinutes = (Date.parse(`${lastStart}Z`) - Date.parse(`${at(0)}Z`)) / 60_000;
      const forward = order === "asc" ? 1000 + arrivals : -1000 - arrivals;
      const backward = order === "asc" ? lastMinutes - 1 : lastMinutes + 1;
      const a = `n${String(arrivals).padStart(3, "0")}-ahead`;
      const b = `n${String(arrivals).padStart(3, "0")}-behind`;
      arrivals++;
      await importData(sys, w, { candidates: [candidate({ id: a, opening: "p", started: forward }), candidate({ id: b, opening: "p", started: backward })] });
      ahead.push(a);
      behind.push(b);
    });
    t.equal(new Set(ids).size, ids.length, `${order}: nobody twice`);
    for (const c of initial) t.ok(ids.includes(c.id as string), `${order}: ${c.id} visited`);
    for (const id of ahead) t.ok(ids.includes(id), `${order}: ${id}, arriving ahead of the walk, is visited`);
    for (const id of behind) t.notOk(ids.includes(id), `${order}: ${id}, arriving behind the walk, is not`);
    const now = await list({ order, limit: "1000" }, w);
    t.same(
      ids,
      now.data.map((c) => c.id).filter((id) => !behind.includes(id)),
      `${order}: the walk is in list order`,
    );
    t.equal(now.total, initial.length + ahead.length + behind.length);
    t.equal((await list({ min_score: "-1" }, w)).total, now.total, "kept and counted totals agree");
  }
});

t.test("a filtered total follows every change of the candidates (it is remembered between changes)", async (t) => {
  const w = await createWorkspace(sys, "Totals");
  const initial = Array.from({ length: 12 }, (_, i) =>
    candidate({ id: `m${String(i).padStart(2, "0")}`, opening: "p", started: i * 10, hireState: i % 2 ? "rejected" : "possible-hire", score: i * 10, tags: i % 3 ? [] : ["t"] }),
  );
  await importData(sys, w, { openings: [opening("p")], tags: [{ id: "t", name: "t" }, { id: "u", name: "u" }], candidates: initial });
  const totals = async () => ({
    hire: (await list({ hire_state: "possible-hire", limit: "2" }, w)).total,
    tags: (await list({ tag_ids: "t", limit: "2" }, w)).total,
    score: (await list({ min_score: "50", max_score: "80" }, w)).total,
  });
  t.same(await totals(), { hire: 6, tags: 4, score: 4 });
  t.same(await totals(), { hire: 6, tags: 4, score: 4 }, "asked again, unchanged");

  await hiringAdmin(sys).updateCandidate({ workspaceId: w.id, candidateId: "m01", hireState: "possible-hire", tagIds: { ids: ["t", "u"] } });
  t.same(await totals(), { hire: 7, tags: 5, score: 4 }, "after UpdateCandidate");

  await importData(sys, w, { candidates: [candidate({ id: "m50", opening: "p", started: 500, hireState: "possible-hire", score: 60, tags: ["t"] })] });
  t.same(await totals(), { hire: 8, tags: 6, score: 5 }, "after an import that brings a candidate");

  await importData(sys, w, { candidates: [candidate({ id: "m50", opening: "p", started: 500, hireState: "rejected", score: 90, tags: [] })] });
  t.same(await totals(), { hire: 7, tags: 5, score: 4 }, "after an import that changes one");

  await importData(sys, w, { candidates: [candidate({ id: "m51", opening: "p", started: 510, hireState: "possible-hire", score: 60, tags: ["t"], demo: true })] });
  t.same(await totals(), { hire: 7, tags: 5, score: 4 }, "a demo candidate counts nowhere");
  t.same((await list({ hire_state: "possible-hire", tag_ids: "t,u" }, w)).total, 1);
  t.same((await list({ hire_state: "possible-hire" }, other)).total, 0, "another workspace's total is its own");
});
