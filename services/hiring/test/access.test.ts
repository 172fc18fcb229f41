import t from "tap";
import { Code } from "@connectrpc/connect";
import { startTestSystem, type TestSystem } from "../../../test/support/harness.js";
import { candidate, createWorkspace, hiringAdmin, importData, opening, type HiringWorkspace } from "./support.js";

/** Who may read what: API keys, their revocation, and the wall between hiring workspaces. */

const sys: TestSystem = await startTestSystem(t);
const acme: HiringWorkspace = await createWorkspace(sys, "Acme");
const globex: HiringWorkspace = await createWorkspace(sys, "Globex");

await importData(sys, acme, {
  openings: [opening("a-open")],
  categories: [{ id: "a-cat", name: "Shortlist", job_opening_id: "a-open" }],
  tags: [{ id: "a-tag", name: "senior" }],
  candidates: [candidate({ id: "a-1", opening: "a-open", started: 10, category: "a-cat", tags: ["a-tag"] }), candidate({ id: "a-2", opening: "a-open", started: 20 })],
});
await importData(sys, globex, {
  openings: [opening("g-open")],
  categories: [{ id: "g-cat", name: "Shortlist", job_opening_id: "g-open" }],
  tags: [{ id: "g-tag", name: "senior" }],
  candidates: [candidate({ id: "g-1", opening: "g-open", started: 10, category: "g-cat", tags: ["g-tag"] })],
});

const ENDPOINTS = ["/api/v2/openings", "/api/v2/openings/a-open", "/api/v2/candidates", "/api/v2/candidates/a-1", "/api/v2/categories", "/api/v2.2/tags"];

t.test("every endpoint answers 401 UnauthorizedError without a valid key", async (t) => {
  const [keyId, secret] = acme.key.split(".");
  const headers: [string, Record<string, string>][] = [
    ["missing", {}],
    ["empty bearer", { authorization: "Bearer " }],
    ["another scheme", { authorization: `Basic ${Buffer.from(`${acme.key}:x`).toString("base64")}` }],
    ["no key id", { authorization: `Bearer ${secret}` }],
    ["malformed", { authorization: "Bearer not-a-key" }],
    ["unknown key id", { authorization: `Bearer key_00000000000000000000000000.${secret}` }],
    ["wrong secret", { authorization: `Bearer ${keyId}.${"x".repeat(43)}` }],
    ["another workspace's key id with this secret", { authorization: `Bearer ${globex.keyId}.${secret}` }],
  ];
  // The gateway throttles a client after 30 failures a minute: every kind of bad key on one
  // endpoint, a missing key on every endpoint.
  const cases: [string, string, Record<string, string>][] = [
    ...headers.map(([label, h]): [string, string, Record<string, string>] => [label, "/api/v2/candidates", h]),
    ...ENDPOINTS.filter((p) => p !== "/api/v2/candidates").map((p): [string, string, Record<string, string>] => ["missing", p, {}]),
  ];
  for (const [label, path, h] of cases) {
    const res = await sys.api("GET", path, { headers: h });
    t.equal(res.status, 401, `${label}: ${path}`);
    t.same(res.body, { error: { type: "UnauthorizedError" } });
  }
});

t.test("a workspace may have several keys; a revoked key answers 401 at once, the others keep working", async (t) => {
  const second = await hiringAdmin(sys).createApiKey({ workspaceId: acme.id });
  const third = await hiringAdmin(sys).createApiKey({ workspaceId: acme.id });
  for (const key of [acme.key, second.apiKey, third.apiKey]) {
    t.equal((await sys.api("GET", "/api/v2/candidates", { auth: { bearer: key } })).status, 200);
  }
  await hiringAdmin(sys).revokeApiKey({ apiKeyId: second.apiKeyId });
  const revoked = await sys.api("GET", "/api/v2/candidates", { auth: { bearer: second.apiKey } });
  t.equal(revoked.status, 401);
  t.same(revoked.body, { error: { type: "UnauthorizedError" } });
  t.equal((await sys.api("GET", "/api/v2/candidates", { auth: { bearer: third.apiKey } })).status, 200);
  t.equal((await sys.api("GET", "/api/v2/candidates", { auth: acme.auth })).status, 200);
  await t.rejects(hiringAdmin(sys).revokeApiKey({ apiKeyId: second.apiKeyId }), { code: Code.NotFound }, "revoking twice is NotFound");
  await t.rejects(hiringAdmin(sys).createApiKey({ workspaceId: "ws_nope" }), { code: Code.NotFound }, "no key for an unknown workspace");
});

t.test("another workspace's ids answer 404 and its records never show", async (t) => {
  for (const path of ["/api/v2/candidates/g-1", "/api/v2/openings/g-open", "/api/v2.2/candidates/g-1"]) {
    const res = await sys.api("GET", path, { auth: acme.auth });
    t.equal(res.status, 404, path);
    t.same(res.body, { error: { type: "NotFoundError" } });
  }
  const list = await sys.api("GET", "/api/v2/candidates", { auth: acme.auth });
  t.same(
    list.body.data.map((c: { id: string }) => c.id),
    ["a-1", "a-2"],
  );
  t.equal(list.body.total, 2);
  for (const query of ["job_opening_id=g-open", "category_id=g-cat", "tag_ids=g-tag", "email=g-1@example.com"]) {
    const res = await sys.api("GET", `/api/v2/candidates?${query}`, { auth: acme.auth });
    t.same(res.body, { data: [], links: { next: null }, total: 0 }, query);
  }
  const seek = await sys.api("GET", "/api/v2/candidates?after_id=g-1", { auth: acme.auth });
  t.equal(seek.status, 400, "another workspace's candidate is no seek position");
  t.same(
    (await sys.api("GET", "/api/v2/openings", { auth: acme.auth })).body.data.map((o: { id: string }) => o.id),
    ["a-open"],
  );
  t.same((await sys.api("GET", "/api/v2/categories", { auth: acme.auth })).body, { data: [{ id: "a-cat", name: "Shortlist", job_opening_id: "a-open" }] });
  t.same((await sys.api("GET", "/api/v2/categories?job_opening_id=g-open", { auth: acme.auth })).body, { data: [] });
  t.same((await sys.api("GET", "/api/v2/tags", { auth: acme.auth })).body, { data: [{ id: "a-tag", name: "senior" }] });
  t.same(
    (await sys.api("GET", "/api/v2/candidates", { auth: globex.auth })).body.data.map((c: { id: string }) => c.id),
    ["g-1"],
  );
});

t.test("the same ids in two workspaces are two records", async (t) => {
  const shared = { openings: [opening("same-open")], candidates: [candidate({ id: "same-1", opening: "same-open", started: 5, rating: 1 })] };
  await importData(sys, acme, shared);
  await importData(sys, globex, { ...shared, candidates: [candidate({ id: "same-1", opening: "same-open", started: 5, rating: 3 })] });
  t.equal((await sys.api("GET", "/api/v2/candidates/same-1", { auth: acme.auth })).body.rating, 1);
  t.equal((await sys.api("GET", "/api/v2/candidates/same-1", { auth: globex.auth })).body.rating, 3);
});

t.test("admin RPCs check the workspace", async (t) => {
  await t.rejects(importData(sys, { ...acme, id: "ws_nope" }, { openings: [] }), { code: Code.NotFound });
  await t.rejects(hiringAdmin(sys).updateCandidate({ workspaceId: globex.id, candidateId: "a-1", rating: 2 }), { code: Code.NotFound }, "a-1 is not Globex's");
  await t.rejects(hiringAdmin(sys).updateCandidate({ workspaceId: acme.id, candidateId: "a-1", categoryId: "g-cat" }), { code: Code.InvalidArgument }, "Globex's category is not Acme's");
  await t.rejects(hiringAdmin(sys).updateCandidate({ workspaceId: acme.id, candidateId: "a-1", tagIds: { ids: ["g-tag"] } }), { code: Code.InvalidArgument }, "Globex's tag is not Acme's");
  await t.rejects(importData(sys, acme, { candidates: [candidate({ id: "a-3", opening: "g-open", started: 1 })] }), { code: Code.InvalidArgument }, "Globex's opening is not Acme's");
});
