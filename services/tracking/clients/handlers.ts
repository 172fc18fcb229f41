import type { ConnectRouter } from "@connectrpc/connect";
import { ClientService } from "../../../gen/tracking/v1/clients_pb.js";
import { changeRow, type ResourceKit } from "../../../lib/resource-kit.js";
import { trackingScope } from "../scope.js";
import { clientEvent, clientMessage } from "./view.js";
import { clients, type ClientRow } from "./store.js";
import { checkBodyWorkspace, clientIdsOf, clientName, statusFilter } from "./rules.js";
import { detachClientProjects, setClientProjectsActive } from "../projects/cascade.js";
import { idBinding, rowId } from "../../../lib/ids.js";
import { clientMissing, clientNotFound, nameTaken, restoreChoiceAmbiguous } from "../errors.js";
import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";

const noClient = (id: bigint) => () => clientNotFound(id);

export function clientHandlers({ storage, clock }: ResourceKit) {
  const { db } = storage;
  return (router: ConnectRouter) =>
    router.service(ClientService, {
      async listClients(req, ctx) {
        const scope = trackingScope(ctx);
        const rows = await clients.list(db, scope.workspaceId, { where: statusFilter(req.status), contains: { name: req.name.trim() } });
        return { clients: rows.map(clientMessage) };
      },

      async listClientsData(req, ctx) {
        const scope = trackingScope(ctx);
        const ids = clientIdsOf(req.clientIds ? toJson(ValueSchema, req.clientIds) : undefined);
        if (ids.length === 0) return { clients: [] };
        const rows = await clients.query(db, scope.workspaceId).whereIn("id", ids.map(idBinding)).orderByRaw("lower(name)").orderBy("id");
        return { clients: rows.map((raw: Record<string, unknown>) => clientMessage(clients.read(raw))) };
      },

      async createClient(req, ctx) {
        const scope = trackingScope(ctx);
        checkBodyWorkspace(req.wid, req.workspaceId);
        const name = clientName(req.name);
        const now = clock.now();
        const row = await storage.change(async (trx, emit) => {
          const created = await clients.insert(trx, {
            workspace_id: scope.workspaceId,
            name,
            notes: req.notes ?? null,
            archived: false,
            creator_id: scope.userId,
            created_at: now,
            at: now,
          });
          await emit(clientEvent("created", created, scope));
          return created;
        }, { onDuplicate: nameTaken });
        return { client: clientMessage(row) };
      },

      async getClient(req, ctx) {
        const scope = trackingScope(ctx);
        const row = await clients.get(db, scope.workspaceId, req.clientId);
        if (!row) throw noClient(req.clientId)();
        return { client: clientMessage(row) };
      },

      async updateClient(req, ctx) {
        const scope = trackingScope(ctx);
        checkBodyWorkspace(req.wid, req.workspaceId);
        const changes: Partial<ClientRow> = { at: clock.now() };
        if (req.name !== undefined) changes.name = clientName(req.name);
        if (req.notes !== undefined) changes.notes = req.notes;
        const row = await changeRow(storage, clients, { scope: scope.workspaceId, id: req.clientId, missing: clientMissing }, async (existing, trx, emit) => {
          const updated = await clients.update(trx, existing, changes);
          await emit(clientEvent("updated", updated, scope));
          return updated;
        }, { onDuplicate: nameTaken });
        return { client: clientMessage(row) };
      },

      async deleteClient(req, ctx) {
        const scope = trackingScope(ctx);
        await changeRow(storage, clients, { scope: scope.workspaceId, id: req.clientId, missing: noClient(req.clientId) }, async (existing, trx, emit) => {
          // Its projects stay, without client.
          await detachClientProjects(trx, emit, scope, existing.id, clock.now());
          await clients.delete(trx, existing);
          await emit(clientEvent("deleted", existing, scope));
        });
        return {};
      },

      async archiveClient(req, ctx) {
        const scope = trackingScope(ctx);
        const archived = await changeRow(storage, clients, { scope: scope.workspaceId, id: req.clientId, missing: noClient(req.clientId) }, async (existing, trx, emit) => {
          const now = clock.now();
          if (!existing.archived) await emit(clientEvent("updated", await clients.update(trx, existing, { archived: true, at: now }), scope));
          // The client's active projects are archived with it.
          return setClientProjectsActive(trx, emit, scope, existing.id, false, "all", now);
        });
        return { projectIds: archived };
      },

      async restoreClient(req, ctx) {
        const scope = trackingScope(ctx);
        if (req.projects.length > 0 && req.restoreAllProjects) throw restoreChoiceAmbiguous();
        const row = await changeRow(storage, clients, { scope: scope.workspaceId, id: req.clientId, missing: noClient(req.clientId) }, async (existing, trx, emit) => {
          const now = clock.now();
          // The named projects (which must be the client's) or, with restore_all_projects, all its archived projects.
          const which = req.restoreAllProjects ? "all" : req.projects.map((id) => rowId(id) ?? 0n);
          await setClientProjectsActive(trx, emit, scope, existing.id, true, which, now);
          if (!existing.archived) return existing;
          const updated = await clients.update(trx, existing, { archived: false, at: now });
          await emit(clientEvent("updated", updated, scope));
          return updated;
        });
        return { client: clientMessage(row) };
      },
    });
}
