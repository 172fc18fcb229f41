import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { WorkspaceUserSchema } from "../../../gen/accounts/v1/organizations_pb.js";
import type { Event } from "../../../gen/events/v1/event_pb.js";
import type { BusMessage, Consumer, EventBus } from "../../../lib/bus.js";
import { chunks } from "../../../lib/chunks.js";
import type { Clock } from "../../../lib/clock.js";
import { eventSubject, readEvent } from "../../../lib/events.js";
import { idBinding, readId } from "../../../lib/ids.js";
import type { Logger } from "../../../lib/logger.js";
import type { ServiceStorage } from "../../../lib/storage.js";
import { timeEntries } from "../time-entries/store.js";
import { ORIGINS } from "./store.js";

/** The durable consumer of the EVENTS stream that hands imported entries to the people who join (all tracking replicas share it). */
export const ADOPTION_CONSUMER = "tracking-import-adoptions";

/** The events that may say someone joined a workspace (each value is its own subject token). */
const JOINS = { service: "accounts", entity: "workspace_user", actions: ["created", "updated"] };

/** Whether an event with these service, entity and action fields (or subject tokens) may be a join. */
const mayJoin = (e: { service: string; entity: string; action: string }) => e.service === JOINS.service && e.entity === JOINS.entity && JOINS.actions.includes(e.action);

/** The member an accounts `workspace_user` event says may now act in a workspace, or undefined. */
export function joinedMember(event: Event): { workspace: bigint; userId: bigint; email: string } | undefined {
  if (!mayJoin(event) || !event.object) return undefined;
  const member = anyUnpack(event.object, WorkspaceUserSchema);
  if (!member || !member.active || member.inactive || member.userId <= 0n || !member.email) return undefined;
  return { workspace: member.workspaceId, userId: member.userId, email: member.email.toLowerCase() };
}

/**
 * An import keeps the entries of people without an account as the importing admin's, with their
 * address beside each (`import_entry_origins`). When such a person joins the workspace (the
 * accounts service's `workspace_user` event: an accepted invitation, or an admin adding them),
 * their entries become theirs, `at` moved so that syncs see them, and the addresses are dropped in
 * the same transaction: a redelivered event finds nothing left to move. A running entry stays with
 * the importer when the person already has one running (one running entry a user).
 */
export class ImportAdoptions {
  private consumer?: Consumer;

  constructor(
    private readonly storage: ServiceStorage,
    private readonly bus: EventBus,
    private readonly deps: { clock: Clock; log: Logger },
  ) {}

  async start(): Promise<void> {
    this.consumer = await this.bus.consume(ADOPTION_CONSUMER, (batch) => this.receive(batch));
  }

  async receive(batch: BusMessage[]): Promise<void> {
    for (const msg of batch) {
      // Most events are no join: their subject says so without decoding them.
      const subject = eventSubject(msg.subject);
      if (subject && !mayJoin(subject)) continue;
      const event = readEvent(msg, this.deps.log, "import adoption");
      const joined = event && joinedMember(event);
      if (joined) await this.adopt(joined.workspace, joined.userId, joined.email);
    }
  }

  /** Moves the workspace's entries kept for `email` to `userId`; answers how many moved. */
  async adopt(workspace: bigint, userId: bigint, email: string): Promise<number> {
    return this.storage.change(async (trx) => {
      const ids = (await trx(ORIGINS).where({ workspace_id: workspace, email }).select("time_entry_id")).map((r: { time_entry_id: unknown }) => readId(r.time_entry_id));
      if (ids.length === 0) return 0;
      const now = this.deps.clock.now();
      const runs = await trx(timeEntries.table).where("running_user_id", idBinding(userId)).first("id");
      const running = await trx(timeEntries.table).whereIn("id", ids.map(idBinding)).whereNotNull("running_user_id").select("id");
      const staying = new Set<bigint>(runs ? running.map((r: { id: unknown }) => readId(r.id)) : []);
      const moving = ids.filter((id) => !staying.has(id));
      for (const part of chunks(moving.map(idBinding))) {
        await trx(timeEntries.table).whereIn("id", part).where("workspace_id", idBinding(workspace)).update({ user_id: userId, at: now });
        await trx(timeEntries.table).whereIn("id", part).whereNotNull("running_user_id").update({ running_user_id: userId });
        await trx(ORIGINS).whereIn("time_entry_id", part).delete();
      }
      if (moving.length) this.deps.log.info({ workspace, userId, entries: moving.length }, "import: entries kept for a newcomer are theirs");
      return moving.length;
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = undefined;
  }
}
