import t from "tap";
import { createClient, createContextValues } from "@connectrpc/connect";
import { ClientService } from "../../gen/tracking/v1/clients_pb.js";
import { caller, internalAuthInterceptor } from "../identity.js";
import { createLocalTransport, inMemoryCall, MemoryHeaders } from "../local-transport.js";

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

