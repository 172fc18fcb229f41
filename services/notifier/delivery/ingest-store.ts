import { Lease } from "../../../lib/background.js";
import type { Knex } from "../../../lib/db.js";
import type { NewNotification } from "../notifications/store.js";
import { chunks } from "../../../lib/chunks.js";

/** An event's notification body without what differs per subscription (see payloads.ts). */
export interface EventPayload {
  event_id: string;
  template: string;
  created_at: Date;
}

/** The ingest_state row of the EVENTS stream. */
const INGEST = "events";

/**
 * What ingest writes: the queued notifications with their events' payloads, and its position in
 * the stream, in the `ingest_state` row that also carries the ingest lease.
 */
export class IngestStore {
  constructor(private readonly db: Knex) {}

  /**
   * The lease of the replica that ingests, on the position's own row: taking it makes the row
   * (position 0) when there is none yet.
   */
  lease(nowMs: () => number, ttlMs: number): Lease {
    return new Lease(this.db, INGEST, nowMs, ttlMs, { table: "ingest_state" });
  }

  /** Where ingest stands in the stream (0: nothing read yet). */
  async position(): Promise<number> {
    const row = await this.db("ingest_state").where({ name: INGEST }).first("position");
    return row ? Number(row.position) : 0;
  }

  /**
   * Queues notifications with their events' payloads. With a position, it is moved from
   * `expected` to `next` first, in the same transaction, and nothing is queued when another
   * replica moved it meanwhile: ingest is exactly once and in stream order, and the position
   * row's lock orders concurrent ingesters. A notification already queued for the same event
   * and subscription is kept.
   */
  async enqueue(rows: NewNotification[], payloads: EventPayload[], position?: { expected: number; next: number }): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      if (position) {
        const moved = await trx("ingest_state").where({ name: INGEST, position: position.expected }).update({ position: position.next });
        if (moved === 0) {
          const exists = await trx("ingest_state").where({ name: INGEST }).first("position");
          if (exists || position.expected !== 0) return false;
          await trx("ingest_state").insert({ name: INGEST, position: position.next, holder: null, expires_at_ms: 0 });
        }
      }
      for (const chunk of chunks(payloads)) await trx("event_payloads").insert(chunk).onConflict("event_id").ignore();
      for (const chunk of chunks(rows)) await trx("notifications").insert(chunk).onConflict(["subscription_id", "event_id"]).ignore();
      return true;
    });
  }
}
