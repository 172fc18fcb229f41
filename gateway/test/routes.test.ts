import t from "tap";
import { PROTO_FILES } from "../../lib/contracts.js";
import { collectRoutes } from "../routes.js";
import { openApiDocument } from "../openapi.js";
import { Family } from "../../gen/gateway/v1/annotations_pb.js";
import { familyOfPath, isRetiredHiringVersion, replyForConnectError } from "../errors.js";
import { Code, ConnectError } from "@connectrpc/connect";
import { hiringError, paymentRequired, tooManyRequests } from "../../lib/errors.js";
import { UNAVAILABLE } from "../unavailable.js";

const routes = collectRoutes(PROTO_FILES.flatMap((f) => f.services));
const byRpc = new Map(routes.map((r) => [`${r.service.typeName}/${r.method.name}`, r]));

t.test("every routed RPC becomes a route; internal services have none", async (t) => {
  t.ok(byRpc.has("tracking.v1.ClientService/ListClients"));
  t.ok(byRpc.has("hiring.v1.ExportService/ListOpenings"));
  t.ok(byRpc.has("accounts.v1.AccountService/Signup"));
  for (const internal of ["hiring.v1.HiringAdminService", "accounts.v1.IdentityService", "notifier.v1.WebhookAdminService"]) {
    t.notOk(routes.some((r) => r.service.typeName === internal), `${internal} is not reachable through the gateway`);
  }
});

t.test("routes carry their owner, family, Fastify paths and variables", async (t) => {
  const get = byRpc.get("tracking.v1.ClientService/GetClient")!;
  t.equal(get.owner, "tracking");
  t.equal(get.family, Family.TRACKING);
  t.same(get.paths, ["/api/v9/workspaces/:workspace_id/clients/:client_id"]);
  t.same(get.pathVariables, ["workspace_id", "client_id"]);
  const opening = byRpc.get("hiring.v1.ExportService/GetOpening")!;
  t.same(opening.paths, ["/api/v2/openings/:id", "/api/v2.2/openings/:id"]);
  t.equal(opening.family, Family.HIRING);
  t.equal(opening.responseField?.name, "opening");
});

t.test("no two routes claim the same method and path", async (t) => {
  const seen = new Set<string>();
  for (const r of routes) {
    for (const p of r.paths) {
      const key = `${r.httpMethod} ${p}`;
      t.notOk(seen.has(key), key);
      seen.add(key);
    }
  }
});

t.test("paths tell the API family; v2.0 and v2.1 are retired", async (t) => {
  t.equal(familyOfPath("/api/v2/candidates?limit=1"), Family.HIRING);
  t.equal(familyOfPath("/api/v2.2/openings"), Family.HIRING);
  t.equal(familyOfPath("/api/v9/me"), Family.TRACKING);
  t.equal(familyOfPath("/api/v20/x"), Family.TRACKING);
  t.ok(isRetiredHiringVersion("/api/v2.1/openings"));
  t.ok(isRetiredHiringVersion("/api/v2.0"));
  t.notOk(isRetiredHiringVersion("/api/v2.2/openings"));
});

t.test("service errors become each family's HTTP answer", async (t) => {
  t.same(replyForConnectError(Family.HIRING, new ConnectError("x", Code.NotFound)), { status: 404, body: { error: { type: "NotFoundError" } } });
  t.same(replyForConnectError(Family.HIRING, hiringError.validation("limit too big")), { status: 400, body: { error: { type: "ValidationError" } } });
  t.same(replyForConnectError(Family.TRACKING, new ConnectError("Client name cannot be empty", Code.InvalidArgument)), { status: 400, body: "Client name cannot be empty" });
  t.same(replyForConnectError(Family.TRACKING, new ConnectError("nope", Code.Unauthenticated)), { status: 403, body: "nope" }, "tracking authentication failures are 403");
  t.same(replyForConnectError(Family.TRACKING, paymentRequired("premium")), { status: 402, body: "premium" });
  t.same(replyForConnectError(Family.TRACKING, new ConnectError("db password is hunter2", Code.Internal)), { status: 500, body: "Internal Server Error" }, "internal details stay inside");
  t.same(replyForConnectError(Family.HIRING, new ConnectError("down", Code.Unavailable)), { status: 503, body: { error: { type: "ServiceUnavailableError" } }, retryAfter: 5 });
  t.same(replyForConnectError(Family.TRACKING, tooManyRequests("slow down", 12.2)), { status: 429, body: "slow down", retryAfter: 13 }, "429 carries the service's Retry-After");
  const reset = new ConnectError("read ECONNRESET", Code.Aborted, undefined, undefined, Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
  t.same(replyForConnectError(Family.TRACKING, reset), { status: 503, body: "Service Unavailable", retryAfter: 5 }, "a dropped connection is no 409 and its text stays inside");
  t.same(replyForConnectError(Family.HIRING, hiringError.concurrentChange()), { status: 409, body: { error: { type: "ConflictError" } } }, "a service's own Aborted stays 409");
});

t.test("the OpenAPI document lists every route with its parameters and body", async (t) => {
  const doc = openApiDocument(routes) as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
  const get = doc.paths["/api/v9/workspaces/{workspace_id}/clients/{client_id}"].get;
  t.same(get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`), ["path:workspace_id", "path:client_id"]);
  const list = doc.paths["/api/v9/workspaces/{workspace_id}/clients"].get;
  t.same(list.parameters.map((p: { name: string }) => p.name), ["workspace_id", "status", "name"]);
  t.same(list.responses["200"].content["application/json"].schema, { type: "array", items: { $ref: "#/components/schemas/tracking.v1.Client" } });
  const create = doc.paths["/api/v9/workspaces/{workspace_id}/clients"].post;
  t.same(Object.keys(create.requestBody.content["application/json"].schema.properties), ["name", "notes", "wid"]);
  t.ok(doc.paths["/api/v2.2/openings"].get, "aliases are listed");
  t.same(doc.paths["/api/signup"].post.security, [], "public routes need no credentials");
  t.match(doc.components.schemas["tracking.v1.Client"].properties.notes, { anyOf: [{ type: "string" }, { type: "null" }] });
  // Every route, and the operations answered 501 (gateway/unavailable.ts).
  const routeCount = routes.reduce((n, r) => n + r.paths.length, 0) + UNAVAILABLE.reduce((n, g) => n + g.operations.length, 0);
  t.equal(Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0), routeCount);
});
