import t from "tap";
import { Code, ConnectError } from "@connectrpc/connect";
import { loadConfig } from "../config.js";
import { createLogger } from "../logger.js";
import { ManualClock } from "../clock.js";
import { InProcessBus } from "../bus.js";
import { ServiceStorage } from "../storage.js";
import { ScopedTable } from "../scoped-table.js";
import { changeRow } from "../resource-kit.js";
import { rowId } from "../ids.js";
import { checkCataloged, EVENT_CATALOG, TRACKING_EVENTS, UncatalogedEventError } from "../event-catalog.js";
import { badRequest, notFound } from "../errors.js";
import { cleanUp, testEnv } from "../../test/support/harness.js";
import { Directory } from "../directory.js";
import { IdentityService } from "../../gen/accounts/v1/accounts_pb.js";
import type { Migration } from "../db.js";

/** The resource kit on both engines: scoped rows, safe ids, changes, the event catalog. */

interface ThingRow {
  id: bigint;
  workspace_id: bigint;
  name: string;
  tags: string[];
  done: boolean;
  due: Date | null;
}

const thingsMigration: Migration = {
  name: "0001_things",
  up: (knex) =>
    knex.schema.createTable("things", (t) => {
      t.bigIncrements("id");
      t.bigInteger("workspace_id").notNullable();
      t.string("name", 100).notNullable();
      t.text("tags").notNullable();
      t.boolean("done").notNullable();
      t.dateTime("due", { precision: 3 }).nullable();
      t.unique(["workspace_id", "name"]);
    }),
  down: (knex) => knex.schema.dropTable("things"),
};

const things = new ScopedTable<ThingRow>({
  table: "things",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", name: "string", tags: "json", done: "boolean", due: "date?" },
  order: ["lower(name)", "id"],
});

const config = loadConfig(testEnv());
const storage = await ServiceStorage.open({ config, clock: new ManualClock(), bus: new InProcessBus(), log: createLogger("silent") }, "tracking", [thingsMigration]);
t.teardown(async () => {
  await storage.close();
  await cleanUp(config);
});
const add = (row: Omit<ThingRow, "id">) => storage.change((trx) => things.insert(trx, row));

t.test("row ids: only positive ids a JSON number holds exactly", async (t) => {
  t.equal(rowId(1n), 1n);
  t.equal(rowId(9007199254740991n), 9007199254740991n);
  for (const id of [0n, -1n, 9007199254740992n, 9007199254740993n, 2n ** 63n - 1n]) t.equal(rowId(id), undefined, String(id));
});

t.test("rows come back typed, in the declared order, from their own scope only", async (t) => {
  const due = new Date("2025-05-01T10:00:00.123Z");
  const a = await add({ workspace_id: 1n, name: "beta", tags: ["x"], done: true, due });
  await add({ workspace_id: 1n, name: "Alpha", tags: [], done: false, due: null });
  await add({ workspace_id: 2n, name: "alpha 2", tags: [], done: false, due: null });
  t.same(await things.get(storage.db, 1n, a.id), { id: a.id, workspace_id: 1n, name: "beta", tags: ["x"], done: true, due });
  t.equal(await things.get(storage.db, 2n, a.id), undefined, "another workspace's row is not found");
  t.same((await things.list(storage.db, 1n)).map((r) => r.name), ["Alpha", "beta"]);
  t.same((await things.list(storage.db, 1n, { contains: { name: "ALP" } })).map((r) => r.name), ["Alpha"]);
  t.same((await things.list(storage.db, 1n, { where: { done: true } })).map((r) => r.name), ["beta"]);
  t.same(await things.list(storage.db, 1n, { contains: { name: "%" } }), [], "LIKE wildcards are literals");
});

t.test("changeRow: 404 when missing, the declared error for a duplicate, nothing half-written", async (t) => {
  const b = await add({ workspace_id: 4n, name: "one", tags: [], done: false, due: null });
  await add({ workspace_id: 4n, name: "two", tags: [], done: false, due: null });
  const taken = () => badRequest("Name has already been taken");
  await t.rejects(
    changeRow(storage, things, { scope: 4n, id: b.id, missing: () => notFound("x") }, (row, trx) => things.update(trx, row, { name: "two" }), { onDuplicate: taken }),
    { message: "Name has already been taken", code: Code.InvalidArgument },
  );
  t.equal((await things.get(storage.db, 4n, b.id))!.name, "one");
  const updated = await changeRow(storage, things, { scope: 4n, id: b.id, missing: () => notFound("x") }, (row, trx) => things.update(trx, row, { tags: ["a", "b"], done: true }));
  t.same(updated.tags, ["a", "b"]);
  t.same((await things.get(storage.db, 4n, b.id))!.tags, ["a", "b"]);
  await t.rejects(changeRow(storage, things, { scope: 5n, id: b.id, missing: () => notFound("not here") }, async () => undefined), { message: "not here" });
  const other = new ConnectError("boom", Code.Internal);
  await t.rejects(storage.change(async () => Promise.reject(other), { onDuplicate: taken }), other, "other errors pass through");
});

t.test("the event catalog: emitting what it does not list fails; the webhooks offer what it lists", async (t) => {
  t.doesNotThrow(() => checkCataloged("tracking", "client", "created"));
  t.throws(() => checkCataloged("tracking", "clients", "created"), UncatalogedEventError);
  t.throws(() => checkCataloged("tracking", "client", "archived"), UncatalogedEventError);
  await t.rejects(storage.change((_trx, emit) => emit({ workspaceId: "1", entity: "widget", action: "created", objectId: "1" })), UncatalogedEventError);
  t.equal((await storage.db("outbox").count({ n: "*" }))[0].n, 0, "nothing recorded");
  t.same(Object.keys(TRACKING_EVENTS).sort(), [...Object.keys(EVENT_CATALOG.tracking), ...Object.keys(EVENT_CATALOG.accounts)].sort());
});

// Last: after this row, new ids of the table would be beyond 2^53 themselves.
t.test("an id beyond 2^53 finds nothing, not the row whose id it rounds to", async (t) => {
  await storage.db("things").insert({ id: 9007199254740992, workspace_id: 3, name: "edge", tags: "[]", done: false });
  t.equal(await things.get(storage.db, 3n, 9007199254740993n), undefined);
  t.equal(await things.get(storage.db, 3n, 9007199254740992n), undefined, "2^53 itself is not exact either");
  const missing = () => notFound("no thing");
  await t.rejects(changeRow(storage, things, { scope: 3n, id: 9007199254740993n, missing }, async () => t.fail("must not run")), { message: "no thing" });
});

t.test("no call to another service while a change's transaction is open", { skip: process.env.TRANSACTION_CHECKS === "1" ? false : "checked where TRANSACTION_CHECKS=1 (npm test sets it)" }, async (t) => {
  const directory = new Directory(config);
  directory.registerLocal("accounts", (router) => router.service(IdentityService, { getUserProfile: () => ({ fullname: "A" }) }));
  const identity = directory.peerClient("accounts", IdentityService);
  t.equal((await identity.getUserProfile({ userId: 1n })).fullname, "A", "outside a change");
  await t.rejects(
    storage.change(async (trx) => {
      await things.insert(trx, { workspace_id: 77n, name: "locked", tags: [], done: false, due: null });
      await identity.getUserProfile({ userId: 1n });
    }),
    /accounts\.v1\.IdentityService\.GetUserProfile called inside a transaction of the tracking service/,
  );
  t.same(await things.list(storage.db, 77n), [], "the change was rolled back");
  const after = await storage.change(async () => "done");
  t.equal(after, "done");
  t.equal((await identity.getUserProfile({ userId: 1n })).fullname, "A", "after a change");
});

t.test("againOnDuplicate runs a change that collides on a unique key again, then gives up as declared", async (t) => {
  await add({ workspace_id: 78n, name: "taken", tags: [], done: false, due: null });
  let runs = 0;
  const name = () => (++runs < 3 ? "taken" : "free");
  const row = await storage.change((trx) => things.insert(trx, { workspace_id: 78n, name: name(), tags: [], done: false, due: null }), { againOnDuplicate: { attempts: 3, giveUp: () => badRequest("gave up") } });
  t.same([row.name, runs], ["free", 3], "ran until it did not collide");
  runs = 0;
  const err = await storage
    .change((trx) => (runs++, things.insert(trx, { workspace_id: 78n, name: "taken", tags: [], done: false, due: null })), { againOnDuplicate: { attempts: 2, giveUp: () => badRequest("gave up") } })
    .catch((e) => e);
  t.same([(err as ConnectError).rawMessage, runs], ["gave up", 2]);
});
