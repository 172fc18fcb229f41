import t from "tap";
import { rmSync } from "node:fs";
import { Writable } from "node:stream";
import { pino } from "pino";
import { create, createFileRegistry, setExtension, type DescService, type MessageInitShape } from "@bufbuild/protobuf";
import { FieldDescriptorProto_Label, FieldDescriptorProto_Type, FileDescriptorProtoSchema, MethodOptionsSchema, ServiceOptionsSchema } from "@bufbuild/protobuf/wkt";
import { Family, RouteSchema, family as familyOption, route as routeOption, access as accessOption, AccessSchema, Scope } from "../../gen/gateway/v1/annotations_pb.js";
import { PROTO_FILES } from "../../lib/contracts.js";
import { loadConfig } from "../../lib/config.js";
import { Directory } from "../../lib/directory.js";
import { createLogger } from "../../lib/logger.js";
import { testEnv } from "../../test/support/harness.js";
import { collectRoutes } from "../routes.js";
import { openApiDocument } from "../openapi.js";
import { buildGateway } from "../server.js";

/**
 * The route option `response_headers`: response fields the gateway answers as HTTP headers and
 * leaves out of the body (the real API's pagination headers), declared per route, checked when
 * the routes are read, listed in the OpenAPI document.
 */

type RouteInit = MessageInitShape<typeof RouteSchema>;

const { OPTIONAL, REPEATED } = FieldDescriptorProto_Label;
const { STRING, INT64, BOOL } = FieldDescriptorProto_Type;

/** A contract of the tracking family built in memory: one GET per route given, answering `PageResponse`. */
function contract(routes: Record<string, RouteInit>): DescService {
  const serviceOptions = create(ServiceOptionsSchema);
  setExtension(serviceOptions, familyOption, Family.TRACKING);
  const file = create(FileDescriptorProtoSchema, {
    name: "tracking/test/pages.proto",
    package: "tracking.test",
    syntax: "proto3",
    messageType: [
      { name: "PageRequest" },
      {
        name: "PageResponse",
        field: [
          { name: "items", number: 1, type: STRING, label: REPEATED, jsonName: "items" },
          { name: "page", number: 2, type: INT64, label: OPTIONAL, jsonName: "page" },
          { name: "order", number: 3, type: STRING, label: OPTIONAL, jsonName: "order" },
          { name: "more", number: 4, type: BOOL, label: OPTIONAL, jsonName: "more" },
        ],
      },
    ],
    service: [
      {
        name: "PagesService",
        options: serviceOptions,
        method: Object.entries(routes).map(([name, route]) => {
          const options = create(MethodOptionsSchema);
          setExtension(options, routeOption, create(RouteSchema, { method: "GET", ...route }));
          setExtension(options, accessOption, create(AccessSchema, { scope: Scope.PUBLIC }));
          return { name, inputType: ".tracking.test.PageRequest", outputType: ".tracking.test.PageResponse", options };
        }),
      },
    ],
  });
  return createFileRegistry(file, () => undefined).getService("tracking.test.PagesService")!;
}

const PAGINATION = { page: "X-Page", order: "X-Sort-Order", more: "X-More" };

t.test("the organization users list declares its pagination headers by the real API's names", async (t) => {
  const route = collectRoutes(PROTO_FILES.flatMap((f) => f.services)).find((r) => r.method.name === "ListOrganizationUsers")!;
  t.same(
    route.headerFields.map((h) => [h.field.name, h.header]),
    [
      ["page", "X-Page"],
      ["page_size", "X-Page-Size"],
      ["pages", "X-Pages"],
      ["records", "X-Records"],
      ["sort_order", "X-Sort-Order"],
    ],
  );
  const doc = openApiDocument([route]) as { paths: Record<string, Record<string, any>> };
  const ok = doc.paths["/api/v9/organizations/{organization_id}/users"].get.responses["200"];
  t.same(Object.keys(ok.headers), ["X-Page", "X-Page-Size", "X-Pages", "X-Records", "X-Sort-Order"]);
  t.same(ok.headers["X-Sort-Order"], { schema: { type: "string" } });
  t.same(ok.headers["X-Records"], { schema: { type: "integer" } });
});

t.test("a route without response headers has none; a declaration that cannot work is refused when routes are read", async (t) => {
  const plain = collectRoutes(contract({ List: { path: "/x" } }).file.services);
  t.same(plain[0].headerFields, []);
  for (const [route, problem] of [
    [{ path: "/x", responseHeaders: { nope: "X-Nope" } }, /response header field nope does not exist/],
    [{ path: "/x", responseHeaders: { items: "X-Items" } }, /response header field items is not a scalar/],
    [{ path: "/x", responseBody: "order", responseHeaders: { order: "X-Order" } }, /response header field order is the response body/],
    [{ path: "/x", responseHeaders: { page: "X Page" } }, /"X Page" is no header name/],
    [{ path: "/x", responseHeaders: { page: "" } }, /"" is no header name/],
  ] as const) {
    t.throws(() => collectRoutes(contract({ List: route }).file.services), problem, JSON.stringify(route));
  }
});

t.test("the gateway answers the declared fields as headers and leaves them out of the body, whatever the body", async (t) => {
  const service = contract({
    Whole: { path: "/x/whole", responseHeaders: PAGINATION },
    Items: { path: "/x/items", responseBody: "items", responseHeaders: PAGINATION },
    Touch: { path: "/x/touch", emptyBody: true, responseHeaders: { page: "X-Page" } },
    Plain: { path: "/x/plain" },
  });
  const config = loadConfig(testEnv());
  t.teardown(() => rmSync(config.dataDir, { recursive: true, force: true }));
  const directory = new Directory(config);
  const answer = { items: ["a", "b"], page: 3n, order: "desc", more: true };
  const impl = { whole: () => answer, items: () => answer, touch: () => answer, plain: () => answer };
  directory.registerLocal("tracking", (router) => router.service(service, impl as never));
  const app = await buildGateway({ directory, log: createLogger("silent"), ready: async () => true, services: [service], trustProxy: false });
  t.teardown(() => app.close());

  const headersOf = (res: { headers: Record<string, unknown> }) => [res.headers["x-page"], res.headers["x-sort-order"], res.headers["x-more"]];
  const whole = await app.inject({ method: "GET", url: "/x/whole" });
  t.equal(whole.statusCode, 200, whole.body);
  t.same(headersOf(whole), ["3", "desc", "true"]);
  t.same(JSON.parse(whole.body), { items: ["a", "b"] }, "the header fields stay out of a whole-message body");
  const items = await app.inject({ method: "GET", url: "/x/items" });
  t.same(headersOf(items), ["3", "desc", "true"]);
  t.same(JSON.parse(items.body), ["a", "b"]);
  const touch = await app.inject({ method: "GET", url: "/x/touch" });
  t.same([touch.statusCode, touch.body, touch.headers["x-page"]], [200, "", "3"], "an empty body still carries its headers");
  const plain = await app.inject({ method: "GET", url: "/x/plain" });
  t.same(JSON.parse(plain.body), { items: ["a", "b"], page: 3, order: "desc", more: true }, "without the option every field is in the body");
  t.equal(plain.headers["x-page"], undefined);

  const doc = openApiDocument(collectRoutes([service])) as { paths: Record<string, Record<string, any>> };
  const ok = doc.paths["/x/whole"].get.responses["200"];
  t.same(Object.keys(ok.headers), ["X-Page", "X-Sort-Order", "X-More"]);
  t.same(Object.keys(ok.content["application/json"].schema.properties), ["items"], "the body's schema leaves the header fields out");
  t.same(Object.keys(doc.paths["/x/touch"].get.responses["200"]), ["description", "headers"], "an empty body: headers, no content");
  t.equal(doc.paths["/x/plain"].get.responses["200"].headers, undefined);
});

t.test("an unexpected service error answers 500 and is logged with the request's id; answers that go well log nothing", async (t) => {
  const service = contract({ Fails: { path: "/x/fails" }, Works: { path: "/x/works" } });
  const config = loadConfig(testEnv());
  t.teardown(() => rmSync(config.dataDir, { recursive: true, force: true }));
  const directory = new Directory(config);
  directory.registerLocal("tracking", (router) =>
    router.service(service, { fails: () => Promise.reject(new Error("db password is hunter2")), works: () => ({ page: 1n }) } as never),
  );
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "info" }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  const app = await buildGateway({ directory, log, ready: async () => true, services: [service], trustProxy: false });
  t.teardown(() => app.close());
  const works = await app.inject({ method: "GET", url: "/x/works" });
  t.equal(works.statusCode, 200);
  t.same(lines, [], "a request that goes well logs nothing");
  const fails = await app.inject({ method: "GET", url: "/x/fails" });
  t.same([fails.statusCode, JSON.parse(fails.body)], [500, "Internal Server Error"], "the details stay inside");
  t.equal(lines.length, 1);
  t.match(lines[0], { level: 50, msg: "service error", rpc: "Fails", reqId: String, err: { message: "internal error" } });
});
