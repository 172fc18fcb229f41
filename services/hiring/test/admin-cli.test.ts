import t from "tap";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestSystem, type TestSystem } from "../../../test/support/harness.js";
import { runAdminCli } from "../../../test/support/admin-cli.js";
import { SyntheticHiring } from "../synthetic.js";
import { at, candidate, opening } from "./support.js";

/** The admin command line against a running system: JSON on stdout, errors on stderr. */

const sys: TestSystem = await startTestSystem(t);
const admin = (...args: string[]) => runAdminCli(sys, ...args);

function file(name: string, content: unknown): string {
  const path = join(sys.env.DATA_DIR!, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

const created = await admin("hire:workspace", "create", "--name", "CLI Co");
const workspaceId: string = created.json?.workspace_id;
const key: string = created.json?.api_key;

t.test("hire:workspace create answers the workspace and its first key", async (t) => {
  t.equal(created.code, 0, created.stderr);
  t.match(created.json, { workspace_id: /^ws_/, name: "CLI Co", api_key_id: /^key_/, api_key: /^key_[^.]+\..+/ });
  t.equal((await sys.api("GET", "/api/v2/candidates", { auth: { bearer: key } })).status, 200);
});

t.test("hire:import loads a file; a bad file is refused whole, naming the record", async (t) => {
  const good = {
    openings: [opening("o1")],
    tags: [{ id: "g1", name: "senior" }],
    categories: [{ id: "k1", name: "Shortlist", job_opening_id: "o1" }],
    candidates: [candidate({ id: "c1", opening: "o1", started: 10 }), candidate({ id: "c2", opening: "o1", started: 20, tags: ["g1"] })],
  };
  const bad = await admin("hire:import", "--workspace", workspaceId, file("bad.json", { ...good, candidates: [...good.candidates, { ...candidate({ id: "c3", opening: "o1", started: 5 }), rating: 9 }] }));
  t.equal(bad.code, 1);
  t.match(JSON.parse(bad.stderr).error, /candidates\[2\]\.rating/);
  t.equal((await sys.api("GET", "/api/v2/openings", { auth: { bearer: key } })).body.data.length, 0, "nothing imported");
  const ok = await admin("hire:import", "--workspace", workspaceId, file("good.json", good));
  t.equal(ok.code, 0, ok.stderr);
  t.same(ok.json, { openings: 1, categories: 1, tags: 1, candidates: 2, events: 2 });
  t.equal((await sys.api("GET", "/api/v2/candidates", { auth: { bearer: key } })).body.total, 2);
  const missing = await admin("hire:import", "--workspace", workspaceId);
  t.equal(missing.code, 2, "no file is a usage error");
});

t.test("hire:candidate update and hire:test record act for the hiring application", async (t) => {
  const updated = await admin("hire:candidate", "update", "--workspace", workspaceId, "--candidate", "c1", "--rating", "2", "--hire-state", "rejected", "--category", "k1", "--tags", "g1");
  t.equal(updated.code, 0, updated.stderr);
  t.match(updated.json.candidate, { id: "c1", rating: 2, hire_state: "rejected", category_id: "k1", tag_ids: ["g1"] });
  t.match((await sys.api("GET", "/api/v2/candidates/c1", { auth: { bearer: key } })).body, { rating: 2, hire_state: "rejected", category_id: "k1", tag_ids: ["g1"] });
  const cleared = await admin("hire:candidate", "update", "--workspace", workspaceId, "--candidate", "c1", "--hire-state", "none", "--category", "none", "--tags", "none");
  t.match(cleared.json.candidate, { hire_state: "", tag_ids: [] });
  const refused = await admin("hire:candidate", "update", "--workspace", workspaceId, "--candidate", "c1", "--rating", "5");
  t.equal(refused.code, 1);
  t.match(JSON.parse(refused.stderr).error, /rating/);

  const test = { type: "quiz", started_at: at(100), finished_at: at(130), questions: [{ id: "q1", question_type: "single-choice", content: "?", points: 4, options: [] }], answers: [{ question_id: "q1", points: 3 }] };
  const recorded = await admin("hire:test", "record", "--workspace", workspaceId, "--candidate", "c2", file("test.json", test));
  t.equal(recorded.code, 0, recorded.stderr);
  t.equal(recorded.json.candidate.tests.length, 2);
  t.match(recorded.json.candidate.tests[1], { type: "quiz", points: 3, score: 75 });
});

t.test("hire:key create and revoke", async (t) => {
  const second = await admin("hire:key", "create", "--workspace", workspaceId);
  t.equal(second.code, 0, second.stderr);
  t.match(second.json, { api_key_id: /^key_/, api_key: /\./ });
  t.equal((await sys.api("GET", "/api/v2/tags", { auth: { bearer: second.json.api_key } })).status, 200);
  const revoked = await admin("hire:key", "revoke", "--key", second.json.api_key_id);
  t.equal(revoked.code, 0, revoked.stderr);
  t.same(revoked.json, { revoked: second.json.api_key_id });
  t.equal((await sys.api("GET", "/api/v2/tags", { auth: { bearer: second.json.api_key } })).status, 401);
  t.equal((await sys.api("GET", "/api/v2/tags", { auth: { bearer: key } })).status, 200, "the first key still works");
});

t.test("hire:generate loads a synthetic dataset in chunks, with progress on stderr", async (t) => {
  const ws = await admin("hire:workspace", "create", "--name", "Generated");
  const run = await admin("hire:generate", "--workspace", ws.json.workspace_id, "--candidates", "450", "--chunk", "100", "--seed", "7");
  t.equal(run.code, 0, run.stderr);
  const data = new SyntheticHiring({ candidates: 450, seed: 7 });
  const all = data.candidates(0, 450);
  const listed = all.filter((c) => !c.demo && (c.tests as { finished_at: string | null }[]).some((x) => x.finished_at !== null));
  t.match(run.json, { workspace_id: ws.json.workspace_id, candidates: 450, demo: all.filter((c) => c.demo).length, events: listed.length });
  t.ok(run.json.demo > 0, "some demo candidates");
  t.match(run.stderr, /100% 450\/450 candidates/);
  const auth = { bearer: ws.json.api_key };
  const page = await sys.api("GET", "/api/v2/candidates?limit=1000", { auth });
  t.equal(page.body.total, listed.length, "every submitted, non-demo candidate is listed");
  t.equal((await sys.api("GET", "/api/v2/openings", { auth })).body.data.length, data.catalog().openings.length);
  t.ok(page.body.data.some((c: { category_id: string | null }) => c.category_id !== null));
  const again = await admin("hire:generate", "--workspace", ws.json.workspace_id, "--candidates", "450", "--chunk", "100", "--seed", "7");
  t.equal(again.json.events, 0, "the same seed again changes nothing");
  const usage = await admin("hire:generate", "--workspace", ws.json.workspace_id, "--candidates", "0");
  t.equal(usage.code, 2);
});
