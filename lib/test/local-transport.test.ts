import t from "tap";
import { Writable } from "node:stream";
import { pino } from "pino";
import { Code, ConnectError, createClient, createContextValues, type Interceptor } from "@connectrpc/connect";
import { ClientService } from "../../gen/tracking/v1/clients_pb.js";
import { caller, internalAuthInterceptor } from "../identity.js";
import { createLocalTransport, inMemoryCall, MemoryHeaders } from "../local-transport.js";
import { RpcMetrics } from "../metrics.js";
import { serverInterceptors } from "../directory.js";
import { loadConfig } from "../config.js";
import { testEnv } from "../../test/support/harness.js";
import { fileContract, type FileRequest } from "../../test/support/file-contract.js";

/** The same steps on undici's Headers and on MemoryHeaders, compared after each. */
t.test("MemoryHeaders answers as undici's Headers does for the same steps", async (t) => {
  const steps: [string, (h: Headers) => unknown][] = [
    ["set with mixed case", (h) => h.set("X-User-Id", " 42 ")],
    ["get in another case", (h) => h.get("x-USER-id")],
    ["append joins", (h) => h.append("Accept", "a/b")],
    ["append again", (h) => h.append("accept", "c/d")],
    ["has", (h) => h.has("ACCEPT")],
    ["two cookies", (h) => (h.append("Set-Cookie", "a=1"), h.append("set-cookie", "b=2"))],
    ["getSetCookie", (h) => h.getSetCookie()],
    ["delete", (h) => h.delete("X-User-Id")],
    ["missing is null", (h) => h.get("x-user-id")],
    ["entries in name order", (h) => [...h.entries()]],
    ["keys", (h) => [...h.keys()]],
    ["values", (h) => [...h.values()]],
    ["forEach", (h) => {
      const seen: string[] = [];
      h.forEach((value, name) => seen.push(`${name}=${value}`));
      return seen;
    }],
  ];
  const init = { "X-Request-Url": "http://example.com/a", b: "2" };
  const real = new Headers(init);
  const mine = new MemoryHeaders(init);
  for (const [name, step] of steps) t.same(step(mine), step(real), name);
  t.same([...new MemoryHeaders(real)], [...real], "made from a Headers");
  t.same([...new MemoryHeaders([["A", "1"], ["a", "2"]])], [...new Headers([["A", "1"], ["a", "2"]])], "made from pairs");
});

t.test("a call in memory needs no internal token; the identity headers still reach the handler", async (t) => {
  let seen: { userId?: bigint; inMemory: boolean } | undefined;
  const routes = (router: Parameters<Parameters<typeof createLocalTransport>[0]>[0]) =>
    router.service(ClientService, {
      async listClients(_req, ctx) {
        seen = { userId: caller(ctx).userId, inMemory: ctx.values.get(inMemoryCall) };
        return { clients: [] };
      },
    });
  const transport = createLocalTransport(routes, { clientInterceptors: [], serverInterceptors: [internalAuthInterceptor("the token")] });
  await createClient(ClientService, transport).listClients({ workspaceId: 1n }, { headers: { "x-user-id": "7" } });
  t.same(seen, { userId: 7n, inMemory: true });
});

t.test("the same interceptor refuses a call that did not come in memory and has no token", async (t) => {
  const interceptor = internalAuthInterceptor("the token");
  const next = async () => ({}) as never;
  const call = (header: Headers) => interceptor(next)({ header, contextValues: createContextValues() } as never);
  const refused = await call(new Headers()).catch((e) => e);
  t.equal(refused.code, 16, "Code.Unauthenticated");
  const wrong = await call(new Headers({ "x-internal-token": "not it" })).catch((e) => e);
  t.equal(wrong.code, 16, "a wrong token too");
  await t.resolves(call(new Headers({ "x-internal-token": "the token" })), "the right token passes");
});


t.test("errors in memory: a handler's or interceptor's throw, sync or async, rejects the call; what is not a ConnectError is internal; metrics count each", async (t) => {
  const metrics = new RpcMetrics("tracking");
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "warn" }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  let throwIn: "none" | "sync" | "async" | "refusal" | "interceptor" = "none";
  const routes = (router: Parameters<Parameters<typeof createLocalTransport>[0]>[0]) =>
    router.service(ClientService, {
      listClients() {
        if (throwIn === "sync") throw new Error("sync secret");
        if (throwIn === "async") return Promise.reject(new Error("async secret"));
        if (throwIn === "refusal") throw new ConnectError("Client name cannot be empty", Code.InvalidArgument);
        return { clients: [] };
      },
    } as never);
  const throwing: Interceptor = (next) => (req) => {
    if (throwIn === "interceptor") throw new Error("interceptor secret");
    return next(req);
  };
  const transport = createLocalTransport(routes, { clientInterceptors: [], serverInterceptors: [metrics.interceptor, ...serverInterceptors(loadConfig(testEnv()), log), throwing] });
  const client = createClient(ClientService, transport);
  const outcome = (p: Promise<unknown>) => p.then(() => "ok", (e: unknown) => (e instanceof ConnectError ? `${Code[e.code]}: ${e.rawMessage}` : `not a ConnectError: ${e}`));
  const answers: string[] = [];
  for (const mode of ["none", "sync", "async", "refusal", "interceptor"] as const) {
    throwIn = mode;
    answers.push(await outcome(client.listClients({ workspaceId: 1n })));
  }
  t.same(answers, ["ok", "Internal: internal error", "Internal: internal error", "InvalidArgument: Client name cannot be empty", "Internal: internal error"]);
  t.same(lines.map((l) => [l.msg, (l.err as { message: string }).message]), [
    ["unexpected error in handler", "sync secret"],
    ["unexpected error in handler", "async secret"],
    ["unexpected error in handler", "interceptor secret"],
  ], "each unexpected error is logged inside, never answered");
  const exposition = await metrics.exposition();
  t.match(exposition, /rpc_requests_total\{rpc="tracking.v1.ClientService\/ListClients",code="ok",service="tracking"\} 1/);
  // The metrics see the handler's own failure (not a ConnectError: `unknown`) before it is answered as `internal`.
  t.match(exposition, /rpc_requests_total\{rpc="tracking.v1.ClientService\/ListClients",code="unknown",service="tracking"\} 3/);
  t.match(exposition, /rpc_requests_total\{rpc="tracking.v1.ClientService\/ListClients",code="invalid_argument",service="tracking"\} 1/);
});

t.test("a server-streaming call in memory: messages as they are read, a failure mid-stream internal and logged, counted when the stream ends, left when the caller aborts", async (t) => {
  const metrics = new RpcMetrics("tracking");
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "warn" }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));
  const service = fileContract({ Lines: {} });
  let left = false;
  const transport = createLocalTransport(
    (router) =>
      router.service(service, {
        async *lines(req: FileRequest) {
          try {
            for (let i = 0; i < req.rows; i++) yield { data: new TextEncoder().encode(`${i}\n`) };
            if (req.mode === "broken") throw new Error("disk secret");
            if (req.mode === "refused") throw new ConnectError("No such report", Code.NotFound);
          } finally {
            left = true;
          }
        },
      } as never),
    { clientInterceptors: [], serverInterceptors: [metrics.interceptor, ...serverInterceptors(loadConfig(testEnv()), log)] },
  );
  const client = createClient(service, transport) as unknown as Record<string, (req: object, options?: object) => AsyncIterable<{ data: Uint8Array }>>;
  const read = async (req: object, options?: object) => {
    let text = "";
    try {
      for await (const { data } of client.lines(req, options)) text += Buffer.from(data).toString();
      return text;
    } catch (err) {
      return `${text}${err instanceof ConnectError ? `${Code[err.code]}: ${err.rawMessage}` : `not a ConnectError: ${err}`}`;
    }
  };
  t.equal(await read({ rows: 3 }), "0\n1\n2\n");
  t.equal(await read({ rows: 2, mode: "broken" }), "0\n1\nInternal: internal error", "what is not a ConnectError is internal, as from a Connect server");
  t.equal(await read({ rows: 1, mode: "refused" }), "0\nNotFound: No such report");
  t.same(lines.map((l) => [l.msg, (l.err as { message: string }).message]), [["unexpected error in handler", "disk secret"]], "logged inside, never answered");

  const caller = new AbortController();
  left = false;
  const stream = client.lines({ rows: 1_000_000 }, { signal: caller.signal })[Symbol.asyncIterator]();
  await stream.next();
  caller.abort();
  await new Promise((resolve) => setImmediate(resolve));
  t.ok(left, "the aborted caller's stream is left at once: the handler's finally ran");

  const exposition = await metrics.exposition();
  for (const [code, count] of [["ok", 1], ["unknown", 1], ["not_found", 1], ["canceled", 1]] as const) {
    t.match(exposition, new RegExp(`rpc_requests_total\\{rpc="tracking.test.FilesService/Lines",code="${code}",service="tracking"\\} ${count}`), `${code} counted when the stream ended`);
  }
});
