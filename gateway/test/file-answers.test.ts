import t from "tap";
import { rmSync } from "node:fs";
import * as http from "node:http";
import { Writable } from "node:stream";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { pino } from "pino";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { Scope } from "../../gen/gateway/v1/annotations_pb.js";
import type { FileChunk } from "../../gen/gateway/v1/files_pb.js";
import { IdentityService } from "../../gen/accounts/v1/accounts_pb.js";
import { accessInterceptor, scopeOf } from "../../lib/access.js";
import { loadConfig } from "../../lib/config.js";
import { Directory, serverInterceptors } from "../../lib/directory.js";
import { forbidden, notFound } from "../../lib/errors.js";
import { createLogger } from "../../lib/logger.js";
import { serveConnect } from "../../lib/serve.js";
import { testEnv, type TestContext } from "../../test/support/harness.js";
import { fileContract, type FileRequest } from "../../test/support/file-contract.js";
import { collectRoutes } from "../routes.js";
import { openApiDocument } from "../openapi.js";
import { buildGateway, TIMEOUTS } from "../server.js";

/**
 * File answers (the route option `file`): a server-streaming RPC of FileChunk messages that the
 * gateway writes into the HTTP answer as they come, with the declared type and file name. What
 * fails before the first bytes is the family's JSON error; after them, the answer is cut short.
 * Each behaviour is shown with the service in memory and over the network (Connect over HTTP/2),
 * with the services' own interceptors (field limits, declared access) on the streaming call.
 */

const CSV = { contentType: "text/csv; charset=utf-8", fileName: "report_{workspace_id}.csv" };
const service = fileContract({
  Download: { route: { path: "/x/workspaces/{workspace_id}/report.csv", file: CSV } },
  ScopedDownload: { route: { method: "POST", path: "/x/workspaces/{workspace_id}/scoped.pdf", body: "*", file: { contentType: "application/pdf", fileName: "scoped.pdf" } }, scope: Scope.WORKSPACE },
});

const encoder = new TextEncoder();
/** The width of a row of the `rows` mode. */
const ROW_BYTES = 1536;
const chunk = (text: string, fileName = ""): Partial<FileChunk> => ({ data: encoder.encode(text), fileName });

/** What the test's handlers let a test see and steer. */
class Steering {
  /** Resolves the wait of the `gated` mode. */
  open: () => void = () => undefined;
  gate = new Promise<void>((resolve) => (this.open = resolve));
  end: (how: string) => void = () => undefined;
  /** How the handler's last stream ended: "finished", or "left" (its finally ran without its end). */
  ended = new Promise<string>((resolve) => (this.end = resolve));

  reset() {
    this.gate = new Promise<void>((resolve) => (this.open = resolve));
    this.ended = new Promise<string>((resolve) => (this.end = resolve));
  }
}

function implementation(steering: Steering) {
  async function* download(req: FileRequest, ctx: HandlerContext): AsyncGenerator<Partial<FileChunk>> {
    let finished = false;
    try {
      switch (req.mode) {
        case "refused":
          throw notFound("No such report");
        case "broken":
          throw new Error("db password is hunter2");
        case "empty":
          break;
        case "named":
          yield { fileName: "Bericht_Mai_ä \"1\"_€.csv" };
          yield chunk("a,b\n");
          break;
        case "gated":
          yield chunk("first,");
          await steering.gate;
          yield chunk("second\n");
          break;
        case "fails later":
          yield chunk("a,b\n");
          await steering.gate;
          throw new Error("the disk is on fire");
        case "stalls":
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
          break;
        case "stalls later":
          yield chunk("a,b\n");
          await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve));
          break;
        case "endless":
          for (let i = 0; ; i++) yield chunk(`${i},${"x".repeat(1000)}\n`);
        case "rows": {
          // Rows batched into chunks of about 60 KiB, as a writer makes them.
          const row = `${"y".repeat(ROW_BYTES - 1)}\n`;
          const perChunk = 40;
          for (let i = 0; i < req.rows; i += perChunk) yield { data: encoder.encode(row.repeat(Math.min(perChunk, req.rows - i))) };
          break;
        }
        default:
          yield chunk("id,name\n");
          yield chunk(`1,${req.name}\n`);
      }
      finished = true;
    } finally {
      steering.end(finished ? "finished" : "left");
    }
  }
  return {
    download,
    async *scopedDownload(req: FileRequest, ctx: HandlerContext) {
      const scope = scopeOf<{ userId: bigint; workspaceId: bigint }>(ctx);
      yield chunk(`user ${scope.userId} in workspace ${scope.workspaceId}\n`);
    },
  };
}

/** The services' access resolution, as tracking's: only workspace 1 has the caller as a member. */
const access = accessInterceptor({
  workspace: async (userId, workspaceId) => {
    if (workspaceId !== 1n) throw forbidden();
    return { userId, workspaceId };
  },
});

interface Setup {
  url: string;
  steering: Steering;
  lines: Record<string, unknown>[];
}

/** The gateway on a port, the test service behind it in memory or over the network, a stand-in accounts service that knows every caller as user 7. */
async function setUp(t: TestContext, where: "in memory" | "over the network", timeouts: Partial<typeof TIMEOUTS> = {}): Promise<Setup> {
  const config = loadConfig(testEnv());
  t.teardown(() => rmSync(config.dataDir, { recursive: true, force: true }));
  const steering = new Steering();
  const routes = (router: ConnectRouter) => router.service(service, implementation(steering) as never);
  let directory: Directory;
  if (where === "in memory") {
    directory = new Directory(config);
    directory.registerLocal("tracking", routes, [], [access]);
  } else {
    const served = await serveConnect({ routes, interceptors: [...serverInterceptors(config, createLogger("silent")), access], ready: async () => true, port: 0, host: "127.0.0.1" });
    t.teardown(() => served.close(100));
    directory = new Directory({ ...config, serviceUrls: { ...config.serviceUrls, tracking: `http://127.0.0.1:${served.port}` } });
  }
  directory.registerLocal("accounts", (router) => router.rpc(IdentityService.method.authenticate, () => ({ userId: 7n })));
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "info" }, new Writable({ write: (line, _enc, done) => (lines.push(JSON.parse(String(line))), done()) }));
  const app = await buildGateway({ directory, log, ready: async () => true, services: [service], trustProxy: false, timeouts });
  await app.listen({ port: 0, host: "127.0.0.1" });
  t.teardown(() => app.close());
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, steering, lines };
}

const AUTH = { authorization: `Basic ${Buffer.from("ann@example.com:secret").toString("base64")}` };
const readAll = async (res: Response) => Buffer.from(await res.arrayBuffer()).toString();

for (const where of ["in memory", "over the network"] as const) {
  t.test(`${where}: the chunks are the answer, with the declared type and file name, written as they come`, async (t) => {
    const { url, steering } = await setUp(t, where);
    const res = await fetch(`${url}/x/workspaces/42/report.csv?mode=gated`);
    t.equal(res.status, 200);
    t.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
    t.equal(res.headers.get("content-disposition"), 'attachment; filename="report_42.csv"', "{workspace_id} of the declared name filled in");
    t.equal(res.headers.get("x-content-type-options"), "nosniff");
    t.equal(res.headers.get("content-length"), null, "the length is not known in advance: chunked");
    const reader = res.body!.getReader();
    const first = await reader.read();
    t.equal(Buffer.from(first.value!).toString(), "first,", "the first chunk arrives while the service has not made the second");
    steering.open();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += Buffer.from(r.value).toString();
    t.equal(rest, "second\n");
    t.equal(await steering.ended, "finished");

    const plain = await fetch(`${url}/x/workspaces/42/report.csv?name=Ann`);
    t.equal(await readAll(plain), "id,name\n1,Ann\n");
  });

  t.test(`${where}: a name the stream gives before its first bytes replaces the declared one; an empty file is an empty answer`, async (t) => {
    const { url } = await setUp(t, where);
    const named = await fetch(`${url}/x/workspaces/42/report.csv?mode=named`);
    t.equal(named.headers.get("content-disposition"), `attachment; filename="Bericht_Mai_a \\"1\\"_?.csv"; filename*=UTF-8''Bericht_Mai_%C3%A4%20%221%22_%E2%82%AC.csv`);
    t.equal(await readAll(named), "a,b\n");
    const empty = await fetch(`${url}/x/workspaces/42/report.csv?mode=empty`);
    t.same([empty.status, empty.headers.get("content-type"), empty.headers.get("content-disposition"), await readAll(empty)], [200, "text/csv; charset=utf-8", 'attachment; filename="report_42.csv"', ""]);
  });

  t.test(`${where}: what fails before the first bytes is the family's JSON error, as for a unary call`, async (t) => {
    const { url, lines } = await setUp(t, where);
    const refused = await fetch(`${url}/x/workspaces/42/report.csv?mode=refused`);
    t.same([refused.status, refused.headers.get("content-type"), refused.headers.get("content-disposition"), await refused.json()], [404, "application/json; charset=utf-8", null, "No such report"]);
    t.same(lines, [], "a refusal is no error of the system");
    const broken = await fetch(`${url}/x/workspaces/42/report.csv?mode=broken`);
    t.same([broken.status, await broken.json()], [500, "Internal Server Error"], "the details stay inside");
    t.match(lines, [{ level: 50, msg: "service error", rpc: "Download" }]);
    const bad = await fetch(`${url}/x/workspaces/abc/report.csv`);
    t.same([bad.status, await bad.json()], [400, "Invalid workspace_id"], "the request is decoded before any call");
  });

  t.test(`${where}: the service's field limits check a streaming call's request before its handler runs`, async (t) => {
    const { url, steering } = await setUp(t, where);
    const res = await fetch(`${url}/x/workspaces/42/report.csv?name=${"n".repeat(11)}`);
    t.same([res.status, await res.json()], [400, "name must be at most 10 characters"]);
    const ran = await Promise.race([steering.ended, new Promise((resolve) => setTimeout(() => resolve("never ran"), 200))]);
    t.equal(ran, "never ran");
  });

  t.test(`${where}: the declared access is resolved for a streaming call, its refusals answered before any bytes`, async (t) => {
    const { url } = await setUp(t, where);
    const member = await fetch(`${url}/x/workspaces/1/scoped.pdf`, { method: "POST", headers: AUTH });
    t.same([member.status, member.headers.get("content-type"), member.headers.get("content-disposition")], [200, "application/pdf", 'attachment; filename="scoped.pdf"']);
    t.equal(await readAll(member), "user 7 in workspace 1\n", "the handler is handed the resolved scope");
    const stranger = await fetch(`${url}/x/workspaces/2/scoped.pdf`, { method: "POST", headers: AUTH });
    t.same([stranger.status, stranger.headers.get("content-type"), await stranger.json()], [403, "application/json; charset=utf-8", "Forbidden"]);
    const nobody = await fetch(`${url}/x/workspaces/1/scoped.pdf`, { method: "POST" });
    t.same([nobody.status, await nobody.json()], [403, "Incorrect username and/or password"]);
  });

  t.test(`${where}: a failure after the first bytes cuts the answer short and is logged`, async (t) => {
    const { url, steering, lines } = await setUp(t, where);
    const res = await fetch(`${url}/x/workspaces/42/report.csv?mode=fails later`);
    t.equal(res.status, 200, "the status went out with the first bytes");
    const reader = res.body!.getReader();
    t.equal(Buffer.from((await reader.read()).value!).toString(), "a,b\n");
    steering.open();
    await t.rejects(
      (async () => {
        for (let r = await reader.read(); !r.done; r = await reader.read());
      })(),
      "the client sees an incomplete transfer, never a complete file",
    );
    t.match(lines, [{ level: 50, msg: "file answer cut short", rpc: "Download", reqId: String }]);
  });

  t.test(`${where}: a client that goes away ends the service's handler`, async (t) => {
    const { url, steering, lines } = await setUp(t, where);
    // A connection of its own, closed after the first bytes (fetch's abort leaves its socket open a while).
    const client = http.get(`${url}/x/workspaces/42/report.csv?mode=endless`);
    const res = await new Promise<http.IncomingMessage>((resolve) => client.once("response", resolve));
    await new Promise((resolve) => res.once("data", resolve));
    client.destroy();
    t.equal(await steering.ended, "left", "the endless handler was left (its finally ran)");
    t.same(lines, [], "a client going away is nothing to log");
  });

  t.test(`${where}: a service that keeps the gateway waiting is cut: 504 before the first bytes, a short answer after`, async (t) => {
    const { url, steering } = await setUp(t, where, { serviceCallMs: 300 });
    const res = await fetch(`${url}/x/workspaces/42/report.csv?mode=stalls`);
    t.same([res.status, await res.json()], [504, "Gateway Timeout"]);
    t.equal(await steering.ended, "finished", "the handler heard the cancel through its signal");
    steering.reset();
    const later = await fetch(`${url}/x/workspaces/42/report.csv?mode=stalls later`);
    t.equal(later.status, 200);
    await t.rejects(readAll(later), "cut short");
    await steering.ended;
    steering.reset();
    // 6 MiB: more than the sockets and streams between the service and the client hold.
    const slowClient = await fetch(`${url}/x/workspaces/42/report.csv?mode=rows&rows=4096`);
    const reader = slowClient.body!.getReader();
    let bytes = (await reader.read()).value!.byteLength;
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.byteLength;
    t.equal(bytes, 4096 * ROW_BYTES, "only the waits for the service count: a client that reads slowly is no stall");
  });
}

t.test("the route table reads a file declaration and refuses one that cannot work", async (t) => {
  const [route] = collectRoutes([service]);
  t.same([route.file?.contentType, route.file?.fileName, [...route.file!.nameFields.keys()]], ["text/csv; charset=utf-8", "report_{workspace_id}.csv", ["workspace_id"]]);
  t.equal(collectRoutes([fileContract({ Plain: { route: { path: "/x" }, unary: true, output: ".tracking.test.Plain" } })])[0].file, undefined);
  for (const [declared, problem] of [
    [{ route: { path: "/x", file: CSV }, unary: true }, /a file answer needs a server-streaming RPC/],
    [{ route: { path: "/x" } }, /a streaming RPC is routed only with a file answer/],
    [{ route: { path: "/x", file: CSV }, output: ".tracking.test.Plain" }, /a file answer streams gateway.v1.FileChunk, not tracking.test.Plain/],
    [{ route: { path: "/x", file: { ...CSV, contentType: "csv" } } }, /"csv" is no content type/],
    [{ route: { path: "/x", file: { ...CSV, contentType: "text/csv\r\nX-Evil: 1" } } }, /is no content type/],
    [{ route: { path: "/x", file: { contentType: "text/csv" } } }, /declares its file_name/],
    [{ route: { path: "/x", file: { ...CSV, fileName: "{nope}.csv" } } }, /file name field \{nope\} is no scalar request field/],
    [{ route: { path: "/x", file: CSV, emptyBody: true } }, /a file answer has no empty_body/],
    [{ route: { path: "/x", file: CSV, responseBody: "data" } }, /a file answer has no response_body/],
  ] as const) {
    t.throws(() => collectRoutes([fileContract({ Bad: declared as never })]), problem, JSON.stringify(declared));
  }
});

t.test("the OpenAPI document describes a file answer by its content type", async (t) => {
  const doc = openApiDocument(collectRoutes([service])) as { paths: Record<string, Record<string, any>> };
  const ok = doc.paths["/x/workspaces/{workspace_id}/report.csv"].get.responses["200"];
  t.same(ok.content, { "text/csv; charset=utf-8": { schema: { type: "string", format: "binary" } } });
  t.same(Object.keys(ok.headers), ["Content-Disposition"]);
  t.same(Object.keys(doc.paths["/x/workspaces/{workspace_id}/scoped.pdf"].post.responses["200"].content), ["application/pdf"]);
});

t.test("a large file streams through the gateway without the process holding it", async (t) => {
  // 100,000 rows of 1.5 KiB (about 146 MiB): held whole anywhere, the process would grow by more than the bound.
  const rows = 100_000;
  // Garbage is collected every few MiB read, so that what the figure shows is what is held, not
  // how lazily the collector works (without it, the figure varies from run to run by 60 MiB).
  setFlagsFromString("--expose-gc");
  const collect = runInNewContext("gc") as () => void;
  for (const where of ["in memory", "over the network"] as const) {
    const { url } = await setUp(t, where);
    collect();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const res = await fetch(`${url}/x/workspaces/42/report.csv?mode=rows&rows=${rows}`);
    let bytes = 0;
    let collected = 0;
    for await (const part of res.body!) {
      bytes += part.byteLength;
      if (bytes - collected > 16 * 2 ** 20) {
        collected = bytes;
        collect();
      }
    }
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    t.equal(bytes, rows * ROW_BYTES, `${where}: every byte arrived`);
    const grewMiB = (peak - before) / 2 ** 20;
    t.ok(grewMiB < 100, `${where}: the process grew by ${grewMiB.toFixed(1)} MiB while streaming ${(bytes / 2 ** 20).toFixed(0)} MiB`);
  }
});
