import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { ClientSchema, ClientService, type Client } from "../../gen/tracking/v1/clients_pb.js";
import type { Clock } from "../../lib/clock.js";
import type { ServiceStorage, Emit } from "../../lib/runtime.js";
import type { WorkspaceGate } from "../../lib/access.js";
import { requireUser } from "../../lib/identity.js";
import { httpError, invalid, notFound } from "../../lib/errors.js";
import { isUniqueViolation, type Knex } from "../../lib/db.js";
import { Code } from "@connectrpc/connect";
import { ClientsStore, type ClientRow } from "./store.js";
import { checkBodyWorkspace, clientName, clientStatus } from "./clients.js";

function clientMessage(row: ClientRow): Client {
  return create(ClientSchema, {
    id: BigInt(row.id),
    wid: BigInt(row.workspace_id),
    name: row.name,
    notes: row.notes ?? undefined,
    archived: row.archived,
    creatorId: BigInt(row.creator_id),
    at: timestampFromDate(row.at),
  });
}

const noClient = (id: bigint) => notFound(`No client with ID ${id} was found`);
const nameTaken = () => invalid("Name has already been taken");

function clientEvent(row: ClientRow, action: string, userId: bigint): Parameters<Emit>[0] {
  return {
    workspaceId: String(row.workspace_id),
    entity: "client",
    action,
    userId,
    objectId: String(row.id),
    object: { schema: ClientSchema, message: clientMessage(row) },
  };
}

export function clientRoutes(storage: ServiceStorage, gate: WorkspaceGate, clock: Clock) {
  const store = new ClientsStore(storage.db);

  /** The caller, after checking it may act in the workspace. */
  async function member(ctx: HandlerContext, workspaceId: bigint) {
    const userId = requireUser(ctx);
    const access = await gate.require(userId, workspaceId);
    return { userId, access };
  }

  /** Runs a change, turning a duplicate name into the API's message. */
  async function change<T>(work: (trx: Knex.Transaction, emit: Emit) => Promise<T>): Promise<T> {
    try {
      return await storage.transaction(work);
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken();
      throw err;
    }
  }

  return (router: ConnectRouter) =>
    router.service(ClientService, {
      async listClients(req, ctx) {
        await member(ctx, req.workspaceId);
        const rows = await store.list(Number(req.workspaceId), clientStatus(req.status), req.name.trim());
        return { clients: rows.map(clientMessage) };
      },

      async createClient(req, ctx) {
        const { userId } = await member(ctx, req.workspaceId);
        checkBodyWorkspace(req.wid, req.workspaceId);
        const name = clientName(req.name);
        const now = clock.now();
        const row = await change(async (trx, emit) => {
          const created = await store.insert(trx, {
            workspace_id: Number(req.workspaceId),
            name,
            notes: req.notes ?? null,
            archived: false,
            creator_id: Number(userId),
            created_at: now,
            at: now,
          });
          await emit(clientEvent(created, "created", userId));
          return created;
        });
        return { client: clientMessage(row) };
      },

      async getClient(req, ctx) {
        await member(ctx, req.workspaceId);
        const row = await store.get(Number(req.workspaceId), Number(req.clientId));
        if (!row) throw noClient(req.clientId);
        return { client: clientMessage(row) };
      },

      async updateClient(req, ctx) {
        const { userId } = await member(ctx, req.workspaceId);
        checkBodyWorkspace(req.wid, req.workspaceId);
        const changes: Partial<ClientRow> = { at: clock.now() };
        if (req.name !== undefined) changes.name = clientName(req.name);
        if (req.notes !== undefined) changes.notes = req.notes;
        const row = await change(async (trx, emit) => {
          const existing = await store.getForChange(trx, Number(req.workspaceId), Number(req.clientId));
          if (!existing) throw notFound("Client doesn't exist in the workspace");
          const updated = await store.update(trx, existing, changes);
          await emit(clientEvent(updated, "updated", userId));
          return updated;
        });
        return { client: clientMessage(row) };
      },

      async deleteClient(req, ctx) {
        const { userId } = await member(ctx, req.workspaceId);
        await storage.transaction(async (trx, emit) => {
          const existing = await store.getForChange(trx, Number(req.workspaceId), Number(req.clientId));
          if (!existing) throw noClient(req.clientId);
          await store.delete(trx, Number(req.workspaceId), Number(req.clientId));
          await emit(clientEvent(existing, "deleted", userId));
        });
        return {};
      },

      async archiveClient(req, ctx) {
        const { userId, access } = await member(ctx, req.workspaceId);
        if (!access.premium) throw httpError(402, Code.FailedPrecondition, "Archiving clients requires a premium workspace");
        await storage.transaction(async (trx, emit) => {
          const existing = await store.getForChange(trx, Number(req.workspaceId), Number(req.clientId));
          if (!existing) throw noClient(req.clientId);
          if (existing.archived) return;
          const updated = await store.update(trx, existing, { archived: true, at: clock.now() });
          await emit(clientEvent(updated, "updated", userId));
        });
        // Projects are not stored yet, so no project is archived with the client.
        return { projectIds: [] };
      },

      async restoreClient(req, ctx) {
        const { userId } = await member(ctx, req.workspaceId);
        if (req.projects.length > 0 && req.restoreAllProjects) throw invalid("Bad Request");
        const row = await storage.transaction(async (trx, emit) => {
          const existing = await store.getForChange(trx, Number(req.workspaceId), Number(req.clientId));
          if (!existing) throw noClient(req.clientId);
          // Named projects must belong to the client; there are none yet.
          if (req.projects.length > 0) throw invalid("Bad Request");
          if (!existing.archived) return existing;
          const updated = await store.update(trx, existing, { archived: false, at: clock.now() });
          await emit(clientEvent(updated, "updated", userId));
          return updated;
        });
        return { client: clientMessage(row) };
      },
    });
}
