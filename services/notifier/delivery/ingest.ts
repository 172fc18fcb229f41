import type { Event } from "../../../gen/events/v1/event_pb.js";
import type { BusMessage, Consumer, EventBus } from "../../../lib/bus.js";
import type { Clock } from "../../../lib/clock.js";
import { eventSubject, exactToken, readEvent } from "../../../lib/events.js";
import type { Logger } from "../../../lib/logger.js";
import type { Lease } from "../../../lib/background.js";
import { sortableId } from "../../../lib/ids.js";
import type { NewNotification } from "../notifications/store.js";
import { familyOfService, matches, receivesEvents } from "../subscriptions/rules.js";
import type { Family, SubscriptionReceiver, SubscriptionStore } from "../subscriptions/store.js";
import { Turns } from "../../../lib/turns.js";
import { hiringTemplate, trackingTemplate } from "./payloads.js";
import type { EventPayload, IngestStore } from "./ingest-store.js";

/** Durable consumer name of the notifier on the in-process bus. */
export const NOTIFIER_CONSUMER = "notifier";

/** A message as ingest sees it: with its stream position when the bus keeps one. */
type Incoming = BusMessage & { seq?: number };

/** How long the ingest lease lasts unless renewed (renewed every third of it). */
const LEASE_MS = 10_000;

/**
 * The most stream positions ingest reads past the stored one without storing it, while what it
 * reads queues nothing (events of workspaces without subscriptions, the common case).
 */
export const UNSTORED_POSITIONS = 1_000;

/**
 * Ingester turns events from the bus into queued notifications, one per matching subscription,
 * in the order the stream holds the events.
 *
 * On JetStream one replica at a time ingests (a lease, lib/background.ts, on the position's row);
 * it reads the stream from the position stored in the notifier's database and stores the new
 * position in the same transaction as the notifications, compare-and-set, so every event is
 * queued exactly once and in stream order even when a lease changes hands mid-batch. Redelivery
 * of an unacknowledged message can therefore never put an older event behind a newer one. On the
 * in-process bus the publisher waits for the ingest, which is the acknowledgement.
 *
 * A batch that queues nothing does not store the position (a transaction per batch of events no
 * one subscribes to, most of them): it is stored with the next batch that queues, at each renewal
 * of the lease (a third of it), on stop, and once UNSTORED_POSITIONS are read past it. A replica
 * that starts from a stored position behind the stream reads those events again; they queue nothing
 * again, unless a subscription was made meanwhile: it may then get events up to that long older
 * than itself (as it may get the ones ingest had not yet read when it was made).
 */
export class Ingester {
  private readonly lease: Lease;
  private readonly leaseMs: number;
  private consumer?: Consumer;
  /** How far ingest has read the stream. */
  private position = 0;
  /** The position the notifier's database holds, as this replica last read or stored it. */
  private stored = 0;
  /** Batches and the position's storing, one at a time (they compare-and-set the same row). */
  private readonly turns = new Turns();
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private tending?: Promise<void>;

  constructor(
    private readonly store: IngestStore,
    private readonly subscriptions: Pick<SubscriptionStore, "ofWorkspaces">,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly onQueued: (subscriptionIds: Set<bigint>) => void,
    options: { leaseMs?: number } = {},
  ) {
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    this.lease = store.lease(() => clock.now().getTime(), this.leaseMs);
  }

  async start(): Promise<void> {
    this.stopped = false;
    if (!this.bus.follow) {
      this.consumer = await this.bus.consume(NOTIFIER_CONSUMER, (batch) => this.ingest(batch));
      return;
    }
    await this.tend();
  }

  /** Takes or keeps the ingest lease, and follows the stream exactly while it is held. */
  private async tend(): Promise<void> {
    const run = async () => {
      try {
        const held = await this.lease.hold();
        if (held && !this.consumer && !this.stopped) {
          this.consumer = await this.bus.follow!(
            async () => (this.position = this.stored = await this.store.position()),
            (batch) => this.ingest(batch),
          );
        } else if (held) {
          await this.storePosition();
        } else if (this.consumer) {
          await this.consumer.stop();
          this.consumer = undefined;
        }
      } catch (err) {
        this.log.warn({ err }, "notifier: ingest lease failed");
      }
    };
    this.tending = run();
    await this.tending;
    if (!this.stopped) this.timer = setTimeout(() => void this.tend(), this.leaseMs / 3);
  }

  /** Stores the position read past without storing it (see the class). */
  private storePosition(): Promise<void> {
    return this.turns.run(async () => {
      if (this.position === this.stored) return;
      if (!(await this.store.enqueue([], [], { expected: this.stored, next: this.position }))) {
        throw new Error("the ingest position moved: another replica ingests now");
      }
      this.stored = this.position;
    });
  }

  /** Queues the notifications of a batch of events; resolves once they are stored. */
  ingest(batch: Incoming[]): Promise<void> {
    return this.turns.run(() => this.queue(batch));
  }

  private async queue(batch: Incoming[]): Promise<void> {
    const fresh = batch.filter((m) => m.seq === undefined || m.seq > this.position);
    if (fresh.length === 0) return;
    // Each event's family and workspace, from its subject where the subject tells them for certain:
    // most events are of workspaces without subscriptions, and those are then never decoded.
    const events: { message: Incoming; family: Family; workspaceId: string; event?: Event }[] = [];
    for (const message of fresh) {
      const subject = eventSubject(message.subject);
      const service = subject && exactToken(subject.service);
      const workspaceId = subject && exactToken(subject.workspace);
      if (service !== undefined && workspaceId !== undefined) {
        const family = familyOfService(service);
        if (family) events.push({ message, family, workspaceId });
        continue;
      }
      const event = readEvent(message, this.log, "notifier");
      const family = event && familyOfService(event.service);
      if (family) events.push({ message, family, workspaceId: event.workspaceId, event });
    }
    const keys = new Map<string, { family: Family; workspaceId: string }>();
    for (const { family, workspaceId } of events) keys.set(`${family}\u0000${workspaceId}`, { family, workspaceId });
    const subs = (await this.subscriptions.ofWorkspaces([...keys.values()])).filter(receivesEvents);
    const byWorkspace = new Map<string, SubscriptionReceiver[]>();
    for (const s of subs) {
      const key = `${s.family}\u0000${s.workspace_id}`;
      const group = byWorkspace.get(key);
      if (group) group.push(s);
      else byWorkspace.set(key, [s]);
    }
    const now = this.clock.now();
    const rows: NewNotification[] = [];
    const payloads: EventPayload[] = [];
    for (const { message, family, workspaceId, event: decoded } of events) {
      const subscribed = byWorkspace.get(`${family}\u0000${workspaceId}`);
      const event = subscribed && (decoded ?? readEvent(message, this.log, "notifier"));
      if (!event) continue;
      const receivers = subscribed.filter((s) => matches(s.event_filters, event));
      if (receivers.length === 0) continue;
      payloads.push({ event_id: event.id, template: family === "hiring" ? hiringTemplate(event, now) : trackingTemplate(event, now), created_at: now });
      for (const s of receivers) {
        rows.push({ id: `ntf_${sortableId(now.getTime()).toLowerCase()}`, subscription_id: s.id, event_id: event.id, state: "pending", attempts: 0, next_attempt_at_ms: now.getTime(), created_at: now });
      }
    }
    const last = fresh[fresh.length - 1].seq;
    if (rows.length === 0 && (last === undefined || last - this.stored < UNSTORED_POSITIONS)) {
      if (last !== undefined) this.position = last;
      return;
    }
    const position = last === undefined ? undefined : { expected: this.stored, next: last };
    if (!(await this.store.enqueue(rows, payloads, position))) {
      throw new Error("the ingest position moved: another replica ingests now");
    }
    if (last !== undefined) this.position = this.stored = last;
    if (rows.length) this.onQueued(new Set(rows.map((r) => r.subscription_id)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.tending;
    // A consumer of the stream runs only while this replica holds the lease.
    const following = this.consumer !== undefined && this.bus.follow !== undefined;
    await this.consumer?.stop();
    this.consumer = undefined;
    // What was read past is stored while the lease is still this replica's.
    if (following) await this.storePosition().catch((err: unknown) => this.log.warn({ err }, "notifier: storing the ingest position failed"));
    if (this.bus.follow) await this.lease.release();
  }
}
