import t from "tap";
import { startTestSystem } from "./support/harness.js";
import { Family } from "../gen/gateway/v1/annotations_pb.js";
import { PROTO_FILES } from "../lib/contracts.js";
import { collectRoutes, type RestRoute } from "../gateway/routes.js";
import { candidate, createWorkspace, importData, opening } from "../services/hiring/test/support.js";

/**
 * Bad input never hurts: odd values for every query parameter of the hiring list, and odd
 * bodies (wrong types, huge, deeply nested, malformed, prototype keys) for every route of the
 * route table that takes a body, answer with a status below 500 and leave the system serving.
 * The specific answers are checked in each service's own tests.
 */

const sys = await startTestSystem(t);

t.test("the hiring list: odd values of every parameter, alone and repeated", async (t) => {
  const ws = await createWorkspace(sys, "Odd");
  await importData(sys, ws, { openings: [opening("o1")], tags: [{ id: "g", name: "g" }], candidates: [candidate({ id: "c1", opening: "o1", started: 1, tags: ["g"] })] });
  const values = ["", " ", "0", "-1", "1e3", "1e400", "NaN", "Infinity", "0x10", "1.5", "%00", "%E2%80%AE", "a".repeat(5000), "c1", ",,,", "%2C", "[]", "null", "9223372036854775808", "-0", "DESC", "%20asc"];
  const params = ["limit", "min_score", "max_score", "min_rating", "max_rating", "after_id", "order", "hire_state", "tag_ids", "email", "job_opening_id", "category_id", "unknown"];
  const seen = new Set<number>();
  for (const p of params) {
    for (const v of values) {
      for (const query of [`${p}=${v}`, `${p}=${v}&${p}=${v}`]) {
        const res = await sys.api("GET", `/api/v2/candidates?${query}`, { auth: ws.auth });
        seen.add(res.status);
        if (res.status >= 500) t.fail(`?${query.slice(0, 80)}: ${res.status} ${res.text.slice(0, 200)}`);
        else if (res.status !== 200) t.equal(typeof res.body?.error?.type, "string", `?${query.slice(0, 80)}: the hiring error format`);
      }
    }
  }
  t.same([...seen].sort(), [200, 400], "answered or refused as a ValidationError");
  t.equal((await sys.api("GET", "/api/v2/candidates", { auth: ws.auth })).body.total, 1, "still serving, nothing changed");
});

t.test("odd bodies on every route that takes one, from the route table", async (t) => {
  const user = await sys.signup("odd");
  const bodies = [
    ...[null, true, 1, "x", [], {}, { name: null }, { name: 5 }, { name: { a: 1 } }, { name: ["a"] }, { name: "a".repeat(100_000) }, { name: "\u0000" }, { name: "ok", wid: "abc" }, { name: "ok", wid: 1e30 }].map((b) => JSON.stringify(b)),
    ...[{ url_callback: 5, event_filters: "x", description: [] }, { event_filters: [{}] }, { enabled: "yes" }, { projects: "all" }, { password: 1, email: [] }].map((b) => JSON.stringify(b)),
    "{",
    `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
    `{"a":${"1".repeat(400)}}`,
    '{"name":"\\ud800"}',
    '{"__proto__":{"polluted":1},"name":"p"}',
    '{"constructor":{"prototype":{"polluted":1}},"name":"q"}',
  ];
  const withBody = collectRoutes(PROTO_FILES.flatMap((f) => f.services)).filter((r) => r.option.body);
  t.ok(withBody.length >= 5, "routes with a body");
  const fill = (route: RestRoute, workspaceId: string) => route.paths[0].replace(/:([a-z_]+)/g, (_m, name: string) => (name === "workspace_id" ? workspaceId : "1"));
  for (const route of withBody) {
    // The caller's own workspace, and one beyond any storable id.
    for (const path of [fill(route, String(user.workspaceId)), fill(route, "9999999999999999999999")]) {
      for (const body of bodies) {
        const res = await sys.api(route.httpMethod, path, { auth: user.auth, rawBody: body, headers: { "content-type": "application/json" } });
        if (res.status >= 500) t.fail(`${route.httpMethod} ${path} ${body.slice(0, 60)}: ${res.status} ${res.text.slice(0, 200)}`);
        else if (route.family === Family.TRACKING && res.status >= 400) t.equal(typeof res.body, "string", `${route.httpMethod} ${path}: a JSON string`);
      }
    }
  }
  t.equal(({} as Record<string, unknown>).polluted, undefined, "no prototype was polluted");
  const me = await sys.api("GET", "/api/v9/me", { auth: user.auth });
  t.equal(me.status, 200, "still serving");
});
