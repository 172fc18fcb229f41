import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { anyPack, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { EventSchema, type Event } from "../gen/events/v1/event_pb.js";
import type { Knex } from "./db.js";
import type { EventBus } from "./bus.js";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";
import { sortableId } from "./ids.js";
import { LeasedWork } from "./background.js";
import { checkCataloged, type EntityEventInit } from "./event-catalog.js";

/** What a service says happened; the outbox turns it into an events.v1.Event. */
export interface DomainEvent<Desc extends DescMessage = DescMessage> {
  workspaceId: string;
  entity: string;
  action: string;
  userId?: bigint;
  objectId: string;
  object?: { schema: Desc; message: MessageShape<Desc> };
}

/** An event that carries its entity. */
export type EntityEvent<Desc extends DescMessage = DescMessage> = DomainEvent<Desc> & Required<Pick<DomainEvent<Desc>, "object">>;

/** The event of an entity's change, carrying the entity as it stands (one line per handler). */
export function entityEvent<Desc extends DescMessage>(init: EntityEventInit<Desc>): EntityEvent<Desc> {
  return {
    workspaceId: String(init.workspaceId),
    entity: init.entity,
    action: init.action,
    userId: init.userId,
    objectId: String(init.message.id),
    object: { schema: init.schema, message: init.message },
  };
}

export const outboxMigration = {
  name: "0000_outbox",
  async up(knex: Knex) {
    await knex.schema.createTable("outbox", (t) => {
      t.bigIncrements("seq");
      t.string("id", 40).notNullable().unique();
      t.string("subject", 300).notNullable();
      t.binary("data").notNullable();
      t.dateTime("created_at", { precision: 3 }).notNullable();
      t.dateTime("sent_at", { precision: 3 }).nullable();
      t.index(["sent_at", "seq"]);
    });
    await knex.schema.createTable("outbox_lease", (t) => {
      t.string("name", 40).primary();
      t.string("holder", 64).notNullable();
      t.bigInteger("expires_at_ms").notNullable();
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable("outbox_lease");
    await knex.schema.dropTable("outbox");
  },
};

/** A subject token may not hold dots, spaces or wildcards. */
function token(s: string): string {
  return s.replace(/[.\s*>]/g, "_") || "_";
}

/** An event's subject: `service.workspace.entity.action`, each part a token (recordEvent). */
export interface EventSubject {
  service: string;
  workspace: string;
  entity: string;
  action: string;
}

/**
 * The parts of an event's subject, or undefined when it has not four. A consumer reads them to pass
 * over an event without decoding it (a fromBinary each, for every event of the stream): a part that
 * differs from the token of x (x itself, when x holds no dot, space or wildcard) proves the event's
 * field is not x. A token holding no `_` is the field itself (tokens replace characters by `_` and
 * nothing else), which `exactToken` tells.
 */
export function eventSubject(subject: string): EventSubject | undefined {
  const parts = subject.split(".");
  if (parts.length !== 4) return undefined;
  const [service, workspace, entity, action] = parts;
  return { service, workspace, entity, action };
}

/** The field a subject's token was made from, when the token tells it for certain (no `_` in it). */
export const exactToken = (part: string): string | undefined => (part.includes("_") ? undefined : part);

/**
 * A message of the stream as an events.v1.Event, or undefined (logged as `reader`'s skip) when it is
 * none: a message that is no event can never become one, and it must not hold up the stream.
 */
export function readEvent(message: { subject: string; data: Uint8Array }, log: Logger, reader: string): Event | undefined {
  try {
    return fromBinary(EventSchema, message.data);
  } catch (err) {
    log.error({ err, subject: message.subject }, `${reader}: skipping a message that is not an events.v1.Event`);
    return undefined;
  }
}

let lastMs = 0;
let lastSeq = 0;
/** Event ids sort by creation inside one process, also within one millisecond. */
function nextEventId(nowMs: number): string {
  if (nowMs <= lastMs) {
    lastSeq += 1;
  } else {
    lastMs = nowMs;
    lastSeq = 0;
  }
  // Time, then a counter within the millisecond, then randomness: sorts by creation.
  const id = sortableId(lastMs);
  return `${id.slice(0, 10)}${lastSeq.toString(36).toUpperCase().padStart(6, "0")}${id.slice(10, 20)}`;
}

/** Writes the event into the outbox inside the caller's transaction; only events of the catalog. */
export async function recordEvent(trx: Knex.Transaction, service: string, clock: Clock, ev: DomainEvent): Promise<string> {
  checkCataloged(service, ev.entity, ev.action);
  const now = clock.now();
  const id = nextEventId(now.getTime());
  const event = create(EventSchema, {
    id,
    service,
    workspaceId: ev.workspaceId,
    entity: ev.entity,
    action: ev.action,
    userId: ev.userId ?? 0n,
    occurredAt: timestampFromDate(now),
    objectId: ev.objectId,
    object: ev.object ? anyPack(ev.object.schema, ev.object.message) : undefined,
  });
  await trx("outbox").insert({
    id,
    subject: [service, token(ev.workspaceId), token(ev.entity), token(ev.action)].join("."),
    data: Buffer.from(toBinary(EventSchema, event)),
    created_at: now,
  });
  return id;
}

/**
 * Milliseconds between a committed event and the relay's pass that publishes it: a start-then-stop
 * pair at a time through the embedded system made 1.3 passes a pair with none (1.5 events a pass),
 * 0.66 with 5 ms (3 events a pass).
 */
export const RELAY_KICK_DELAY_MS = 5;

/**
 * OutboxRelay publishes outbox rows to the bus in order and marks them sent after the
 * stream's ack. One relay per schema is active at a time (a lease row); the others wait.
 */
export class OutboxRelay extends LeasedWork {
  constructor(
    private readonly db: Knex,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    log: Logger,
    private readonly options: { intervalMs?: number; batch?: number; leaseMs?: number; kickDelayMs?: number } = {},
  ) {
    // kick() publishes soon after a transaction with events commits; tick() publishes everything
    // pending and resolves when the outbox is empty or the bus fails. The lease is renewed every
    // quarter of its time, not before every pass: a pass per commit wrote the lease row each time
    // (a third of a pass's statement time under writes, and 5 writes a second when idle). A pass
    // waits RELAY_KICK_DELAY_MS after a kick, so that the commits of those milliseconds go out as
    // one batch (one read, one publish, one mark, one audit insert) instead of a pass each.
    const leaseMs = options.leaseMs ?? 10_000;
    super(db, "relay", clock, log, { pollMs: options.intervalMs ?? 200, leaseMs, renewEveryMs: leaseMs / 4, kickDelayMs: options.kickDelayMs ?? RELAY_KICK_DELAY_MS });
  }

  protected async pass(): Promise<void> {
    for (;;) {
      const rows: { seq: number; id: string; subject: string; data: Buffer }[] = await this.db("outbox")
        .whereNull("sent_at")
        .orderBy("seq")
        .limit(this.options.batch ?? 200)
        .select("seq", "id", "subject", "data");
      if (rows.length === 0) return;
      // The whole batch or nothing is marked sent: a batch the bus failed is published again.
      // What it had stored of it JetStream drops by id within its two-minute window; past that,
      // and on the in-process bus, every consumer keeps an event once by its id.
      await this.bus.publish(rows.map((row) => ({ subject: row.subject, id: row.id, data: new Uint8Array(row.data) })));
      await this.db("outbox").whereIn("seq", rows.map((row) => row.seq)).update({ sent_at: this.clock.now() });
      if (rows.length < (this.options.batch ?? 200)) break;
    }
    await this.purgeSent();
  }

  private lastPurge = 0;

  /** Sent rows are kept a day (for inspection), then removed, a bounded batch at a time. */
  private async purgeSent(): Promise<void> {
    const now = this.clock.now().getTime();
    if (now - this.lastPurge < 10 * 60_000) return;
    this.lastPurge = now;
    const ids = await this.db("outbox").where("sent_at", "<", new Date(now - 24 * 3600_000)).orderBy("seq").limit(10_000).pluck("seq");
    if (ids.length) await this.db("outbox").whereIn("seq", ids).delete();
  }
}
