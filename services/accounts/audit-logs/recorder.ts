import { idBinding, readId, rowId } from "../../../lib/ids.js";
import { createRegistry, type JsonValue } from "@bufbuild/protobuf";
import { anyUnpack, timestampDate } from "@bufbuild/protobuf/wkt";
import { WorkspaceSchema } from "../../../gen/accounts/v1/workspaces_pb.js";
import type { Event } from "../../../gen/events/v1/event_pb.js";
import type { BusMessage, Consumer, EventBus } from "../../../lib/bus.js";
import { PROTO_FILES } from "../../../lib/contracts.js";
import type { Knex } from "../../../lib/db.js";
import { eventSubject, readEvent } from "../../../lib/events.js";
import type { Logger } from "../../../lib/logger.js";
import { encodeMessage, trackingTimestamp } from "../../../lib/rest-json.js";
import { recordAudit, type NewAuditRow } from "./store.js";

/** The durable consumer of the EVENTS stream that records the audit log (all accounts replicas share it). */
export const AUDIT_CONSUMER = "accounts-audit";

/** The services whose events are an organization's changes. */
const AUDITED = new Set(["accounts", "tracking"]);

const registry = createRegistry(...PROTO_FILES);

/** The entity as the time-tracking API shows it, or null. */
function entityJson(event: Event): JsonValue {
  if (!event.object) return null;
  const desc = registry.getMessage(event.object.typeUrl.slice(event.object.typeUrl.lastIndexOf("/") + 1));
  const object = anyUnpack(event.object, registry);
  return object && desc ? encodeMessage(desc, object as unknown as Record<string, unknown>, trackingTimestamp) : null;
}

/** How many workspaces' organizations a recorder keeps (then it starts over). */
const KNOWN_WORKSPACES = 10_000;

/** The workspace an event names (its id is text in events: hiring's are not numbers), as rows hold it. */
const eventWorkspace = (event: Event): bigint | undefined => (/^\d{1,19}$/.test(event.workspaceId) ? rowId(BigInt(event.workspaceId)) : undefined);

/**
 * AuditRecorder turns the accounts and tracking events of the stream into audit rows. It consumes
 * the stream with a durable consumer (acknowledged once the rows are stored; a redelivered event is
 * one row, by its id), so every accounts replica shares the work and none is lost while all are
 * down. On the in-process bus, the publisher waits for it like for the notifier.
 */
export class AuditRecorder {
  private consumer?: Consumer;
  /** The organization of each workspace seen: a workspace never moves to another organization. */
  private readonly organizations = new Map<bigint, bigint>();

  constructor(
    private readonly db: Knex,
    private readonly bus: EventBus,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    this.consumer = await this.bus.consume(AUDIT_CONSUMER, (batch) => this.record(batch));
  }

  /** Stores the audit rows of a batch of messages in one insert. */
  async record(batch: BusMessage[]): Promise<void> {
    const rows: NewAuditRow[] = [];
    for (const msg of batch) {
      const row = await this.auditRow(msg);
      if (row) rows.push(row);
    }
    await recordAudit(this.db, rows);
  }

  /** The audit row of a message, or undefined when it is none of an organization's changes. */
  private async auditRow(msg: BusMessage): Promise<NewAuditRow | undefined> {
    // Another service's event (its subject says so; the audited names are their own tokens) is not read.
    const subject = eventSubject(msg.subject);
    if (subject && !AUDITED.has(subject.service)) return undefined;
    const event = readEvent(msg, this.log, "audit");
    if (!event || !AUDITED.has(event.service)) return undefined;
    const workspace = eventWorkspace(event);
    const organization = workspace === undefined ? undefined : await this.organizationOf(event, workspace);
    if (workspace === undefined || organization === undefined) return undefined;
    return {
      event_id: event.id,
      organization_id: organization,
      workspace_id: workspace,
      source: event.service,
      entity_type: event.entity.slice(0, 50),
      entity_id: event.objectId.slice(0, 64),
      action: event.action.slice(0, 20),
      user_id: event.userId > 0n ? event.userId : null,
      occurred_at: event.occurredAt ? timestampDate(event.occurredAt) : new Date(),
      details: JSON.stringify(entityJson(event)),
    };
  }

  /** The organization of the event's workspace; a deleted workspace's own event names it. */
  private async organizationOf(event: Event, id: bigint): Promise<bigint | undefined> {
    const known = this.organizations.get(id);
    if (known !== undefined) return known;
    const row = await this.db("workspaces").where("id", idBinding(id)).first("organization_id");
    if (row) {
      const organization = readId(row.organization_id);
      if (this.organizations.size >= KNOWN_WORKSPACES) this.organizations.clear();
      this.organizations.set(id, organization);
      return organization;
    }
    if (event.entity === "workspace" && event.object) {
      const workspace = anyUnpack(event.object, WorkspaceSchema);
      if (workspace?.organizationId) return workspace.organizationId;
    }
    return undefined;
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = undefined;
  }
}
