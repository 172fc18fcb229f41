import t from "tap";
import { loadConfig } from "../config.js";
import { connectDatabase, dropDatabase } from "../db.js";
import { ScopedTable } from "../scoped-table.js";
import { readIds } from "../ids.js";
import { testEnv } from "../../test/support/harness.js";

/** readAll (rows read as arrays) reads every kind of column as read() does, on either engine. */

interface ThingRow {
  id: bigint;
  workspace_id: bigint;
  parent_id: bigint | null;
  name: string;
  note: string | null;
  active: boolean;
  amount: number;
  starts: Date;
  ends: Date | null;
  ids: bigint[];
}

const things = new ScopedTable<ThingRow>({
  table: "things",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", parent_id: "id?", name: "string", note: "string?", active: "boolean", amount: "number", starts: "date", ends: "date?", ids: "json" },
  json: { ids: readIds },
  order: ["id"],
});

const config = loadConfig(testEnv());
const db = await connectDatabase(config, "tracking");
t.teardown(async () => {
  await db.destroy();
  await dropDatabase(config, "tracking");
});
await db.schema.createTable("things", (table) => {
  table.bigIncrements("id");
  table.bigInteger("workspace_id").notNullable();
  table.bigInteger("parent_id").nullable();
  table.string("name").notNullable();
  table.text("note").nullable();
  table.boolean("active").notNullable();
  table.double("amount").notNullable();
  table.dateTime("starts", { precision: 3 }).notNullable();
  table.dateTime("ends", { precision: 3 }).nullable();
  table.json("ids").notNullable();
  // A column the declaration leaves out: readAll reads the declared ones only.
  table.string("extra").nullable();
});
const base = Date.UTC(2025, 0, 1);
await db("things").insert(
  Array.from({ length: 30 }, (_, i) => ({
    workspace_id: i % 3 === 0 ? 2 : 1,
    parent_id: i % 4 === 0 ? null : i,
    name: `thing "${i}" é`,
    note: i % 2 ? null : `note ${i}`,
    active: i % 5 !== 0,
    amount: i * 1.25 - 3,
    starts: new Date(base + i * 3_600_123),
    ends: i % 3 === 1 ? null : new Date(base + i * 7_200_000),
    ids: JSON.stringify(i % 2 ? [] : [i, i + 1]),
    extra: "x",
  })),
);

t.test("the same rows as read() of the objects, with date and boolean bindings", async (t) => {
  const query = () => things.query(db, 1n).where("starts", ">=", new Date(base + 3 * 3_600_123)).where("active", true).orderBy("id");
  const expected = (await query()).map((raw: Record<string, unknown>) => things.read(raw));
  const rows = await things.readAll(db, query());
  t.ok(expected.length > 10, `${expected.length} rows`);
  t.same(rows, expected);
  t.ok(rows[0].starts instanceof Date && rows.some((r) => r.ends === null) && rows.some((r) => r.note === null));
  t.notOk("extra" in rows[0], "only the declared columns");
});

t.test("nothing found is an empty list", async (t) => {
  t.same(await things.readAll(db, things.query(db, 3n)), []);
});

t.test("ids: id columns and JSON ids read as bigint, an insert answers a bigint, JSON ids are stored as numbers", async (t) => {
  const [row] = await things.list(db, 2n);
  t.equal(typeof row.id, "bigint");
  t.equal(row.workspace_id, 2n);
  t.equal(row.parent_id, null);
  t.same(row.ids, [0n, 1n]);
  const got = await things.get(db, 2n, row.id);
  t.equal(got?.id, row.id, "found by the message's id");
  t.equal(await things.get(db, 2n, 2n ** 53n), undefined, "an id beyond 2^53-1 finds nothing");
  t.equal(await things.get(db, 2n, 0n), undefined);
  const inserted = await db.transaction((trx) =>
    things.insert(trx, { workspace_id: 4n, parent_id: 3n, name: "n", note: null, active: true, amount: 1, starts: new Date(base), ends: null, ids: [7n, 9007199254740991n] }),
  );
  t.equal(typeof inserted.id, "bigint");
  const stored = await db("things").where("id", Number(inserted.id)).first("ids");
  t.equal(typeof stored.ids === "string" ? stored.ids : JSON.stringify(stored.ids), "[7,9007199254740991]", "the stored bytes are JSON numbers");
  t.same((await things.readAll(db, things.query(db, 4n)))[0], inserted);
});
