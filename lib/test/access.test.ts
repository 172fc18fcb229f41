import t from "tap";
import { Code, ConnectError, createClient, type ConnectRouter } from "@connectrpc/connect";
import { ClientService } from "../../gen/tracking/v1/clients_pb.js";
import { TrackingMeService } from "../../gen/tracking/v1/me_pb.js";
import { ExportService } from "../../gen/hiring/v1/export_pb.js";
import { IdentityService } from "../../gen/accounts/v1/accounts_pb.js";
import type { Access } from "../../gen/gateway/v1/annotations_pb.js";
import { accessInterceptor, hiringWorkspace, refusal, scopeOf } from "../access.js";
import { ERROR_HEADER } from "../errors.js";
import { HEADER, internalAuthInterceptor } from "../identity.js";
import { createLocalTransport } from "../local-transport.js";

/**
 * The access interceptor resolves each RPC's declaration before its handler runs: the handler is
 * handed what the service's resolver answered, or never runs when the resolver refuses.
 */

const resolved: { userId: bigint; id: bigint; access: Access }[] = [];
const resolvers = {
  user: (userId: bigint) => ({ userId, me: true }),
  async workspace(userId: bigint, id: bigint, access: Access) {
    resolved.push({ userId, id, access });
    if (id === 13n) throw refusal(access.denied, () => new ConnectError("Forbidden", Code.PermissionDenied));
    if (access.premium) throw new ConnectError(access.notPremium, Code.FailedPrecondition);
    return { workspace: Number(id), user: Number(userId) };
  },
};

let handled = 0;
const routes = (router: ConnectRouter) => {
  router.service(ClientService, {
    listClients: (_req, ctx) => (handled++, { clients: [{ name: JSON.stringify(scopeOf<{ workspace: number }>(ctx)) }] }),
    archiveClient: () => (handled++, { projectIds: [] }),
  });
  router.service(TrackingMeService, { listMyClients: (_req, ctx) => ({ clients: [{ name: String(scopeOf<{ me: boolean }>(ctx).me) }] }) });
  router.service(ExportService, { listTags: (_req, ctx) => ({ data: [{ name: hiringWorkspace(ctx) }] }) });
  router.service(IdentityService, { getUserProfile: () => ({}) });
};

const transport = (headers: Record<string, string>) =>
  createLocalTransport(routes, {
    clientInterceptors: [(next) => (req) => (Object.entries(headers).forEach(([k, v]) => req.header.set(k, v)), next(req))],
    serverInterceptors: [internalAuthInterceptor("token"), accessInterceptor(resolvers)],
  });
const codeOf = (p: Promise<unknown>) => p.then(() => "ok", (err) => ConnectError.from(err).code);

t.test("a workspace RPC's handler is handed the resolved scope; the resolver gets the caller, the id and the declaration", async (t) => {
  const clients = createClient(ClientService, transport({ [HEADER.userId]: "7" }));
  const res = await clients.listClients({ workspaceId: 42n });
  t.same(JSON.parse(res.clients[0].name), { workspace: 42, user: 7 }, "the scope the resolver answered");
  const last = resolved.at(-1)!;
  t.same([last.userId, last.id, last.access.premium], [7n, 42n, false]);
});

t.test("a refusal of the resolver answers instead of the handler", async (t) => {
  const clients = createClient(ClientService, transport({ [HEADER.userId]: "7" }));
  const before = handled;
  t.equal(await codeOf(clients.listClients({ workspaceId: 13n })), Code.PermissionDenied);
  const premium = await clients.archiveClient({ workspaceId: 1n, clientId: 1n }).catch((err) => ConnectError.from(err));
  t.same([(premium as ConnectError).code, (premium as ConnectError).rawMessage], [Code.FailedPrecondition, "Archiving clients requires a premium workspace"], "the declared premium message");
  t.equal(handled, before, "no handler ran");
});

t.test("scoped RPCs need a user; public and internal ones do not", async (t) => {
  const anonymous = transport({});
  t.equal(await codeOf(createClient(ClientService, anonymous).listClients({ workspaceId: 1n })), Code.Unauthenticated);
  t.equal(await codeOf(createClient(TrackingMeService, anonymous).listMyClients({})), Code.Unauthenticated);
  t.equal(await codeOf(createClient(IdentityService, anonymous).getUserProfile({ userId: 1n })), "ok", "an internal RPC");
  const me = await createClient(TrackingMeService, transport({ [HEADER.userId]: "3" })).listMyClients({});
  t.equal(me.clients[0].name, "true", "a user RPC is handed the service's user scope");
});

t.test("a hiring key RPC is handed the key's workspace, and refuses without one as the hiring family does", async (t) => {
  const tags = await createClient(ExportService, transport({ [HEADER.hiringWorkspaceId]: "hw1" })).listTags({});
  t.equal(tags.data[0].name, "hw1");
  const err = await createClient(ExportService, transport({})).listTags({}).catch((e) => ConnectError.from(e));
  t.same([(err as ConnectError).code, (err as ConnectError).metadata.get(ERROR_HEADER.errorType)], [Code.Unauthenticated, "UnauthorizedError"]);
});

t.test("a declared refusal becomes the error of its status", async (t) => {
  const of = (status: number, message: string) => refusal({ status, message } as never, () => new ConnectError("fallback"));
  t.same([of(400, "a").code, of(402, "b").metadata.get(ERROR_HEADER.httpStatus), of(403, "c").code, of(404, "d").code], [Code.InvalidArgument, "402", Code.PermissionDenied, Code.NotFound]);
  t.equal(of(403, "c").rawMessage, "c");
  t.equal(refusal(undefined, () => new ConnectError("fallback", Code.PermissionDenied)).rawMessage, "fallback");
});
