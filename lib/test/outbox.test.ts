import t from "tap";
import { fromBinary } from "@bufbuild/protobuf";
import { EventSchema } from "../../gen/events/v1/event_pb.js";
import { ClientSchema } from "../../gen/tracking/v1/clients_pb.js";
import { loadConfig } from "../config.js";
import { createLogger, type Logger } from "../logger.js";
import { eventSubject, readEvent } from "../events.js";
import { ManualClock } from "../clock.js";
import { InProcessBus, type BusMessage, type EventBus } from "../bus.js";
import { ServiceStorage } from "../storage.js";
import { cleanUp, STACK_MODE, testEnv } from "../../test/support/harness.js";
import { connectDatabase, isConnectionFailure, type Migration } from "../db.js";

const things: Migration = {
  name: "0001_things",
  up: (knex) => knex.schema.createTable("things", (t) => t.string("name").primary()),
  down: (knex) => knex.schema.dropTable("things"),
};

/** A bus whose stream can be made unreachable. */
class FlakyBus implements EventBus {
  down = false;
  /** Fails after storing this many messages of a publish (a stream lost mid-batch). */
  failAfter?: number;
  readonly stored: BusMessage[] = [];
  readonly publishes: string[][] = [];
  async publish(messages: readonly BusMessage[]) {
    if (this.down) throw new Error("stream unreachable");
    this.publishes.push(messages.map((m) => m.id));
    for (const [i, m] of messages.entries()) {
      if (i === this.failAfter) throw new Error("stream lost");
      this.stored.push(m);
    }
  }
  async consume() {
    return { stop: async () => undefined };
  }
  async ready() {
    return !this.down;
  }
  async close() {}
}

async function open(t: { teardown(fn: () => unknown): void }, bus: EventBus, config = loadConfig(testEnv())) {
  const storage = await ServiceStorage.open({ config, clock: new ManualClock(new Date("2025-03-01T12:00:00Z")), bus, log: createLogger("silent") }, "tracking", [things]);
  t.teardown(async () => {
    await storage.close();
    await cleanUp(config);
  });
  return storage;
}

const event = (name: string) => ({ workspaceId: "7", entity: "client", action: "created", userId: 3n, objectId: name, object: { schema: ClientSchema, message: { $typeName: "tracking.v1.Client", id: 1n, wid: 7n, name, archived: false, creatorId: 3n } as never } });

t.test("a change and its event commit together, and the event is published with its id as message id", async (t) => {
  const bus = new FlakyBus();
  const storage = await open(t, bus);
  const id = await storage.change(async (trx, emit) => {
    await trx("things").insert({ name: "a" });
    return emit(event("a"));
  });
  await storage.flush();
  t.equal(bus.stored.length, 1);
  t.equal(bus.stored[0].id, id);
  t.equal(bus.stored[0].subject, "tracking.7.client.created");
  const decoded = fromBinary(EventSchema, bus.stored[0].data);
  t.match(decoded, { id, service: "tracking", workspaceId: "7", entity: "client", action: "created", userId: 3n, objectId: "a" });
  t.same(eventSubject(bus.stored[0].subject), { service: "tracking", workspace: "7", entity: "client", action: "created" }, "its subject's parts");
  const skipped: unknown[] = [];
  const log = { error: (fields: unknown, message: string) => skipped.push([fields, message]) } as unknown as Logger;
  t.same(readEvent(bus.stored[0], log, "reader"), decoded, "read back by a consumer");
  t.equal(readEvent({ subject: "tracking.7.client.created", data: new Uint8Array([255, 255, 255]) }, log, "reader"), undefined, "a message that is no event is skipped");
  t.match(skipped, [[{ subject: "tracking.7.client.created" }, "reader: skipping a message that is not an events.v1.Event"]], "and the skip logged once, with its subject");
  t.equal(skipped.length, 1, "once");
});

t.test("a failed transaction leaves neither the change nor the event", async (t) => {
  const bus = new FlakyBus();
  const storage = await open(t, bus);
  await t.rejects(
    storage.change(async (trx, emit) => {
      await trx("things").insert({ name: "b" });
      await emit(event("b"));
      throw new Error("validation failed late");
    }),
  );
  await storage.flush();
  t.equal(bus.stored.length, 0);
  t.equal((await storage.db("things").count({ n: "*" }))[0].n, 0);
  t.equal((await storage.db("outbox").count({ n: "*" }))[0].n, 0);
});

t.test("events stay in the outbox while the bus is down and go out in order once it is back", async (t) => {
  const bus = new FlakyBus();
  const storage = await open(t, bus);
  bus.down = true;
  const ids: string[] = [];
  for (const name of ["c1", "c2", "c3"]) ids.push(await storage.change((_trx, emit) => emit(event(name))));
  await storage.flush();
  t.equal(bus.stored.length, 0);
  t.equal((await storage.db("outbox").whereNull("sent_at").count({ n: "*" }))[0].n, 3, "nothing marked sent without an ack");
  bus.down = false;
  await storage.flush();
  t.same(bus.stored.map((m) => m.id), ids, "published in creation order");
  t.same([...ids].sort(), ids, "event ids sort by creation");
  t.equal((await storage.db("outbox").whereNull("sent_at").count({ n: "*" }))[0].n, 0);
});

t.test("a pass publishes what is pending as one batch; a batch stored in part is published again whole", async (t) => {
  const bus = new FlakyBus();
  const storage = await open(t, bus);
  bus.down = true;
  const ids: string[] = [];
  for (const name of ["p1", "p2", "p3"]) ids.push(await storage.change((_trx, emit) => emit(event(name))));
  bus.down = false;
  bus.failAfter = 2;
  await storage.flush();
  t.same(bus.stored.map((m) => m.id), ids.slice(0, 2), "the stream stored a prefix");
  t.equal((await storage.db("outbox").whereNull("sent_at").count({ n: "*" }))[0].n, 3, "none of a failed batch is marked sent");
  bus.failAfter = undefined;
  await storage.flush();
  t.same(bus.publishes.at(-1), ids, "the whole batch again, in order (the stream drops what it has by id)");
  t.equal((await storage.db("outbox").whereNull("sent_at").count({ n: "*" }))[0].n, 0);
});

t.test("the in-process bus refuses to publish with no consumer, so the outbox keeps the event", async (t) => {
  const bus = new InProcessBus();
  await t.rejects(bus.publish([{ subject: "x", id: "1", data: new Uint8Array() }]));
  const got: string[] = [];
  await bus.consume("c", async (batch) => void got.push(...batch.map((m) => m.id)));
  await bus.publish([{ subject: "x", id: "2", data: new Uint8Array() }]);
  t.same(got, ["2"]);
});

t.test("a transaction that deadlocks runs again and records its events once", { skip: !STACK_MODE && "deadlocks happen in MySQL only" }, async (t) => {
  const bus = new InProcessBus();
  const storage = await open(t, bus);
  await storage.db("things").insert([{ name: "a" }, { name: "b" }]);
  // Each takes one row, waits until the other has taken its row, then wants the other's.
  let taken = 0;
  const bothTaken = async () => {
    taken++;
    while (taken < 2) await new Promise((r) => setTimeout(r, 5));
  };
  const runs = { ab: 0, ba: 0 };
  const cross = (first: string, second: string, key: "ab" | "ba") =>
    storage.change(async (trx, emit) => {
      runs[key]++;
      await trx("things").where({ name: first }).first().forUpdate();
      if (runs[key] === 1) await bothTaken();
      await trx("things").where({ name: second }).first().forUpdate();
      await emit({ workspaceId: "1", entity: "client", action: key === "ab" ? "created" : "updated", objectId: key });
    });
  await Promise.all([cross("a", "b", "ab"), cross("b", "a", "ba")]);
  t.equal(runs.ab + runs.ba, 3, "the victim ran again once");
  const actions = (await storage.db("outbox").select("id")).length;
  t.equal(actions, 2, "one event of each, none of the rolled-back run");
});

t.test("a SQLite transaction that read before another process wrote runs again and records its events once", { skip: STACK_MODE && "SQLite only" }, async (t) => {
  const config = loadConfig(testEnv());
  const storage = await open(t, new InProcessBus(), config);
  // Another process on the same file (the admin command, a benchmark's server): its own connection.
  const other = await connectDatabase(config, "tracking");
  t.teardown(() => other.destroy());
  let runs = 0;
  await storage.change(async (trx, emit) => {
    runs++;
    await trx("things").select("name");
    // Between this transaction's read and its write, the other connection writes and commits.
    if (runs === 1) await other("things").insert({ name: "theirs" });
    await trx("things").insert({ name: `ours ${runs}` });
    await emit({ workspaceId: "1", entity: "client", action: "created", objectId: "x" });
  });
  t.equal(runs, 2, "the first run was refused (SQLITE_BUSY_SNAPSHOT) and ran again");
  t.same((await storage.db("things").orderBy("name").pluck("name")), ["ours 2", "theirs"], "only the second run's row");
  t.equal((await storage.db("outbox").select("id")).length, 1, "one event, none of the refused run");
});

t.test("SQLite's extended busy codes are a database too busy, not a fault of the request", async (t) => {
  for (const code of ["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_BUSY_TIMEOUT"]) t.ok(isConnectionFailure({ code }), code);
  t.notOk(isConnectionFailure({ code: "SQLITE_CONSTRAINT_UNIQUE" }));
});
