import t from "tap";
import { KickedLoop, Lease, LeasedWork } from "../background.js";
import { ManualClock } from "../clock.js";
import { createLogger } from "../logger.js";
import { loadConfig } from "../config.js";
import { openDatabase, type Knex, type Migration } from "../db.js";
import { outboxMigration } from "../events.js";
import { cleanUp, testEnv } from "../../test/support/harness.js";

/**
 * The lease one replica of a service holds at a time: on a row of `outbox_lease`, or on a row of
 * a table of the service's own that holds more than the lease.
 */

const TTL = 10_000;

/** A table whose rows hold a lease and a position (as the notifier's `ingest_state` does). */
const positions: Migration = {
  name: "0001_positions",
  up: (knex) =>
    knex.schema.createTable("positions", (t) => {
      t.string("name", 40).primary();
      t.bigInteger("position").notNullable().defaultTo(0);
      t.string("holder", 40).nullable();
      t.bigInteger("expires_at_ms").notNullable().defaultTo(0);
    }),
  down: (knex) => knex.schema.dropTable("positions"),
};

/** The position stored in the row of `name`. */
async function positionOf(db: Knex, name: string): Promise<number | undefined> {
  const row = await db("positions").where({ name }).first("position");
  return row ? Number(row.position) : undefined;
}

async function open(t: { teardown(fn: () => unknown): void }): Promise<Knex> {
  const config = loadConfig(testEnv());
  const db = await openDatabase(config, "tracking", [outboxMigration, positions]);
  t.teardown(async () => {
    await db.destroy();
    await cleanUp(config);
  });
  return db;
}

t.test("one holder at a time: another takes the lease only once it has expired", async (t) => {
  const db = await open(t);
  let now = 1_000_000;
  const a = new Lease(db, "relay", () => now, TTL);
  const b = new Lease(db, "relay", () => now, TTL);
  t.equal(await a.hold(), true, "a takes it");
  t.equal(await b.hold(), false, "b waits while a's lease lasts");
  now += TTL - 1;
  t.equal(await a.hold(), true, "a renews it");
  now += TTL - 1;
  t.equal(await b.hold(), false, "renewed, it lasts another ttl");
  now += 2;
  t.equal(await b.hold(), true, "b takes it over once it has expired");
  t.equal(await a.hold(), false, "and a no longer holds it");
});

t.test("a released lease can be taken by another at once", async (t) => {
  const db = await open(t);
  const now = 1_000_000;
  const a = new Lease(db, "mail", () => now, TTL);
  const b = new Lease(db, "mail", () => now, TTL);
  t.equal(await a.hold(), true);
  await a.release();
  t.equal(await b.hold(), true, "b takes it without waiting for the ttl");
  t.equal(await a.hold(), false);
});

t.test("a lease on a row of the service's own table keeps the row's other columns through takeover and release", async (t) => {
  const db = await open(t);
  const now = 1_000_000;
  const a = new Lease(db, "events", () => now, TTL, { table: "positions" });
  const b = new Lease(db, "events", () => now, TTL, { table: "positions" });
  t.equal(await a.hold(), true, "a takes it: the row is made with the table's defaults");
  t.equal(await positionOf(db, "events"), 0);
  await db("positions").where({ name: "events" }).update({ position: 42 });
  t.equal(await b.hold(), false);
  await a.release();
  t.equal(await positionOf(db, "events"), 42, "releasing keeps the row");
  t.equal(await b.hold(), true);
  t.equal(await positionOf(db, "events"), 42, "taking it keeps the row");
  t.same(await db("outbox_lease").select("name"), [], "outbox_lease is not touched");
});

t.test("a row made by others without a holder is taken like an expired lease", async (t) => {
  const db = await open(t);
  await db("positions").insert({ name: "events", position: 7 });
  const lease = new Lease(db, "events", () => 1_000_000, TTL, { table: "positions" });
  t.equal(await lease.hold(), true);
  t.equal(await positionOf(db, "events"), 7);
});

t.test("a failure other than a lease held by another is not taken for one", async (t) => {
  const db = await open(t);
  const lease = new Lease(db, "events", () => 1_000_000, TTL, { table: "no_such_table" });
  await t.rejects(lease.hold(), "the database's error comes through");
});

/** Work that records its passes and renews the lease once per item, as a long job does. */
class CountingWork extends LeasedWork {
  passes = 0;
  renewals: boolean[] = [];
  hasWork = true;
  constructor(db: Knex, clock: ManualClock, renewEveryMs?: number) {
    super(db, "counting", clock, createLogger("silent"), { pollMs: 60_000, leaseMs: TTL, renewEveryMs });
  }
  protected override async pending(): Promise<boolean> {
    return this.hasWork;
  }
  protected async pass(): Promise<void> {
    this.passes++;
    for (let item = 0; item < 3; item++) this.renewals.push(await this.stillHeld());
  }
}

async function expiryOf(db: Knex): Promise<number | undefined> {
  const row = await db("outbox_lease").where({ name: "counting" }).first("expires_at_ms");
  return row ? Number(row.expires_at_ms) : undefined;
}

t.test("leased work takes no lease while nothing is pending, and renews at most every renewEveryMs", async (t) => {
  const db = await open(t);
  const clock = new ManualClock(new Date(1_000_000));
  const work = new CountingWork(db, clock, TTL / 4);
  work.hasWork = false;
  await work.tick();
  t.equal(work.passes, 0, "no pass without pending work");
  t.equal(await expiryOf(db), undefined, "and no lease row written");

  work.hasWork = true;
  await work.tick();
  t.equal(work.passes, 1, "a pass once work is pending");
  t.same(work.renewals, [true, true, true], "held throughout");
  t.equal(await expiryOf(db), 1_000_000 + TTL, "renewals within renewEveryMs write nothing");

  clock.advance(TTL / 4 - 1);
  await work.tick();
  t.equal(work.passes, 2, "a pass within renewEveryMs of the last renewal runs");
  t.equal(await expiryOf(db), 1_000_000 + TTL, "without writing the lease");

  clock.advance(1);
  await work.tick();
  t.equal(await expiryOf(db), 1_000_000 + TTL / 4 + TTL, "the lease is renewed (taken at the pass's start) once renewEveryMs has passed");

  const rival = new Lease(db, "counting", () => clock.now().getTime(), TTL);
  clock.advance(TTL + 1);
  t.equal(await rival.hold(), true, "another replica takes the lapsed lease");
  await work.tick();
  t.equal(work.passes, 3, "no pass while the rival holds it");
});

t.test("a stopped work takes the lease again before its next pass, however soon", async (t) => {
  const db = await open(t);
  const clock = new ManualClock(new Date(3_000_000));
  const work = new CountingWork(db, clock, TTL / 4);
  await work.tick();
  await work.stop();
  const rival = new Lease(db, "counting", () => clock.now().getTime(), TTL);
  t.equal(await rival.hold(), true, "the released lease is free at once");
  await work.tick();
  t.equal(work.passes, 1, "no pass on the renewal the stop gave up");
});

t.test("without renewEveryMs every stillHeld renews, and a lost lease answers false", async (t) => {
  const db = await open(t);
  const clock = new ManualClock(new Date(2_000_000));
  const rival = new Lease(db, "counting", () => clock.now().getTime(), TTL);
  const work = new CountingWork(db, clock);
  await work.tick();
  t.same(work.renewals, [true, true, true]);
  clock.advance(TTL + 1);
  t.equal(await rival.hold(), true, "the rival takes the lapsed lease");
  t.equal(await work["stillHeld"](), false, "the work learns at once that it lost the lease");
});

t.test("kicks within the kick delay share one pass; a kick during a pass runs one more after it", async (t) => {
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  let passes = 0;
  let inPass: (() => void) | undefined;
  let holdPass = false;
  const loop = new KickedLoop(
    async () => {
      passes++;
      if (holdPass) await new Promise<void>((resolve) => (inPass = resolve));
    },
    60_000,
    30,
  );
  loop.start();
  t.teardown(() => loop.stop());
  await wait(20);
  t.equal(passes, 1, "the first pass runs at start");
  for (let i = 0; i < 5; i++) loop.kick();
  await wait(10);
  t.equal(passes, 1, "no pass before the delay has passed");
  loop.kick();
  await wait(60);
  t.equal(passes, 2, "six kicks within the delay made one pass");
  holdPass = true;
  loop.kick();
  await wait(60);
  t.equal(passes, 3, "a pass runs and is held");
  holdPass = false;
  loop.kick();
  loop.kick();
  inPass!();
  await wait(10);
  t.equal(passes, 3, "the kicks during it wait for the delay after it");
  await wait(60);
  t.equal(passes, 4, "and share one pass");
});
