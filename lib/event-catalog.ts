import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { ServiceName } from "./config.js";

/**
 * Every event the services emit: entity and actions, per emitting service. The outbox refuses
 * an event that is not here, and the notifier's `GET /webhooks/api/v1/event_filters` and its
 * filter rules read the same table, so what a subscription may ask for is what is emitted.
 * A resource that starts emitting adds its entity here.
 */
export const EVENT_CATALOG: Readonly<Record<ServiceName, Readonly<Record<string, readonly string[]>>>> = {
  hiring: { candidate: ["test.finished", "updated"] },
  // Workspaces made (with their organization or alone), changed (settings, constraints), deleted with their organization; memberships of workspaces: made with an
  // organization, changed with its organization user (admin, active, role, paid fields), removed
  // when the user leaves or is removed.
  accounts: { workspace: ["created", "updated", "deleted"], workspace_user: ["created", "updated", "deleted"] },
  // The tracking resources; a project group is a link, made and removed, never changed; a time
  // entry's stop is an update (the real webhooks API has no "stopped" action).
  tracking: {
    client: ["created", "updated", "deleted"],
    project: ["created", "updated", "deleted"],
    task: ["created", "updated", "deleted"],
    tag: ["created", "updated", "deleted"],
    project_user: ["created", "updated", "deleted"],
    project_group: ["created", "deleted"],
    time_entry: ["created", "updated", "deleted"],
    // One event per finished import (services/tracking/imports/), not one per object it made.
    import: ["finished"],
  },
  notifier: {},
};

/** Emitting services whose events the time-tracking webhooks carry. */
export const TRACKING_EVENT_SERVICES = ["accounts", "tracking"] as const satisfies readonly ServiceName[];

/** The time-tracking webhooks' entities and their actions (what `event_filters` lists). */
export const TRACKING_EVENTS: Readonly<Record<string, readonly string[]>> = Object.assign({}, ...TRACKING_EVENT_SERVICES.map((s) => EVENT_CATALOG[s]));

export class UncatalogedEventError extends Error {
  override name = "UncatalogedEventError";
}

/** Throws unless `service` emits `entity` `action` according to the catalog. */
export function checkCataloged(service: string, entity: string, action: string): void {
  const actions = EVENT_CATALOG[service as ServiceName]?.[entity];
  if (!actions?.includes(action)) throw new UncatalogedEventError(`${service} does not emit ${entity}.${action}: add it to lib/event-catalog.ts`);
}

/** The standard actions of an entity that is created, changed and removed. */
export type EntityAction = "created" | "updated" | "deleted";

/** What an entity event says: who did it where, and the entity as it stands. */
export interface EntityEventInit<Desc extends DescMessage> {
  entity: string;
  action: EntityAction;
  schema: Desc;
  /** The entity's message; its `id` is the event's object id. */
  message: MessageShape<Desc> & { id: bigint };
  workspaceId: bigint;
  userId: bigint;
}
