import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ClientSchema, type Client } from "../../../gen/tracking/v1/clients_pb.js";
import { entityEvent } from "../../../lib/events.js";
import type { EntityAction } from "../../../lib/event-catalog.js";
import type { WorkspaceScope } from "../../../lib/workspace-scope.js";
import type { ClientRow } from "./store.js";

/** A client as the API answers it and its events carry it. */
export function clientMessage(row: ClientRow): Client {
  return create(ClientSchema, {
    id: row.id,
    wid: row.workspace_id,
    name: row.name,
    notes: row.notes ?? undefined,
    archived: row.archived,
    creatorId: row.creator_id,
    at: timestampFromDate(row.at),
  });
}

export const clientEvent = (action: EntityAction, row: ClientRow, scope: Pick<WorkspaceScope, "workspaceId" | "userId">) =>
  entityEvent({ entity: "client", action, schema: ClientSchema, message: clientMessage(row), ...scope });
