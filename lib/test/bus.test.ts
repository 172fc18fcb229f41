import t from "tap";
import { randomBytes } from "node:crypto";
import { connect } from "nats";
import { ensureStream, InProcessBus, JetStreamBus, STREAM_ATTEMPTS, type BusMessage, type EventBus } from "../bus.js";
import { createLogger } from "../logger.js";
import { STACK_MODE } from "../../test/support/harness.js";

const log = createLogger("silent");
const msg = (id: string): BusMessage => ({ subject: `svc.1.thing.${id}`, id, data: new TextEncoder().encode(id) });

function collect(bus: EventBus, durable: string, fail?: (m: BusMessage, attempt: number) => boolean) {
  const seen: string[] = [];
  const batches: string[][] = [];
  const attempts = new Map<string, number>();
  const consumer = bus.consume(durable, async (batch) => {
    for (const m of batch) {
      const n = (attempts.get(m.id) ?? 0) + 1;
      attempts.set(m.id, n);
      if (fail?.(m, n)) throw new Error("handler failed");
    }
    batches.push(batch.map((m) => m.id));
    seen.push(...batch.map((m) => m.id));
  });
  return { seen, batches, consumer };
}

async function until(check: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test("in-process bus hands messages to every consumer in publish order", async (t) => {
  const bus = new InProcessBus();
  const a = collect(bus, "a");
  const b = collect(bus, "b");
  await Promise.all([a.consumer, b.consumer]);
  await Promise.all(["1", "2", "3"].map((id) => bus.publish([msg(id)])));
  await bus.publish([msg("4"), msg("5")]);
  t.same(a.seen, ["1", "2", "3", "4", "5"]);
  t.same(b.seen, ["1", "2", "3", "4", "5"]);
  t.same(a.batches.at(-1), ["4", "5"], "a published batch reaches each consumer as one batch");
});

t.test("in-process bus: a failing consumer fails the publish, so the outbox retries", async (t) => {
  const bus = new InProcessBus();
  const c = collect(bus, "a", (_m, n) => n === 1);
  await c.consumer;
  await t.rejects(bus.publish([msg("x")]));
  await bus.publish([msg("x")]);
  t.same(c.seen, ["x"]);
});

t.test("the stream is made again after a refused creation, up to STREAM_ATTEMPTS tries, and not made when it is there", async (t) => {
  const calls: string[] = [];
  const manager = (refusals: number, exists = false) => ({
    streams: {
      info: async (name: string) => {
        calls.push(`info ${name}`);
        if (!exists) throw new Error("stream not found");
        return {};
      },
      add: async (config: { name: string }) => {
        calls.push(`add ${config.name}`);
        if (refusals-- > 0) throw new Error("error creating store for stream");
        exists = true;
        return {};
      },
    },
  });
  const jsm = (refusals: number, exists?: boolean) => manager(refusals, exists) as unknown as Parameters<typeof ensureStream>[0];
  await ensureStream(jsm(2), { name: "S" }, 1);
  t.same(calls, ["info S", "add S", "info S", "add S", "info S", "add S"], "refused twice, made on the third try");
  calls.length = 0;
  await t.rejects(ensureStream(jsm(STREAM_ATTEMPTS), { name: "S" }, 1), /error creating store for stream/);
  t.equal(calls.filter((c) => c.startsWith("add")).length, STREAM_ATTEMPTS, "gives up after STREAM_ATTEMPTS tries");
  calls.length = 0;
  await ensureStream(jsm(0, true), { name: "S" }, 1);
  t.same(calls, ["info S"], "a stream that is there is left as it is");
});

if (STACK_MODE) {
  const prefix = `t${randomBytes(4).toString("hex")}_`;
  t.teardown(async () => {
    const nc = await connect({ servers: process.env.NATS_URL });
    await (await nc.jetstreamManager()).streams.delete(`${prefix}EVENTS`).catch(() => undefined);
    await nc.close();
  });

  t.test("JetStream: the event id deduplicates republished messages", async (t) => {
    const bus = await JetStreamBus.connect(process.env.NATS_URL!, prefix, log);
    t.teardown(() => bus.close());
    await bus.publish([msg("d1")]);
    await bus.publish([msg("d1")]);
    await bus.publish([msg("d2")]);
    const c = collect(bus, "dedup");
    const consumer = await c.consumer;
    t.teardown(() => consumer.stop());
    await until(() => c.seen.length >= 2);
    await new Promise((r) => setTimeout(r, 300));
    t.same(c.seen, ["d1", "d2"]);
  });

  t.test("JetStream: a durable consumer resumes after a restart where it left off", async (t) => {
    const bus = await JetStreamBus.connect(process.env.NATS_URL!, prefix, log);
    t.teardown(() => bus.close());
    const first = collect(bus, "resume");
    const c1 = await first.consumer;
    await bus.publish([msg("r1")]);
    await until(() => first.seen.includes("r1"));
    await c1.stop();
    await bus.publish([msg("r2")]);
    await bus.publish([msg("r3")]);
    const second = collect(bus, "resume");
    const c2 = await second.consumer;
    t.teardown(() => c2.stop());
    await until(() => second.seen.includes("r3"));
    t.notOk(second.seen.includes("r1"), "acknowledged messages are not delivered again");
    t.same(second.seen.filter((id) => id !== "d1" && id !== "d2"), ["r2", "r3"]);
  });

  t.test("JetStream: what arrives while a batch is handled is the next batch, and all of it is acknowledged", async (t) => {
    const bus = await JetStreamBus.connect(process.env.NATS_URL!, prefix, log);
    t.teardown(() => bus.close());
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const batches: string[][] = [];
    const own = (batch: BusMessage[]) => batch.map((m) => m.id).filter((id) => id.startsWith("g"));
    const consumer = await bus.consume("gather", async (batch) => {
      batches.push(own(batch));
      if (own(batch).includes("g0")) await held;
    });
    await bus.publish([msg("g0")]);
    await until(() => batches.some((b) => b.includes("g0")));
    await bus.publish(["g1", "g2", "g3", "g4", "g5"].map(msg));
    await new Promise((r) => setTimeout(r, 300));
    release();
    await until(() => batches.flat().includes("g5"));
    t.same(batches.filter((b) => b.length > 0), [["g0"], ["g1", "g2", "g3", "g4", "g5"]]);
    await consumer.stop();
    const again: string[] = [];
    const restarted = await bus.consume("gather", async (batch) => void again.push(...own(batch)));
    t.teardown(() => restarted.stop());
    await new Promise((r) => setTimeout(r, 500));
    t.same(again, [], "nothing handled is delivered again");
  });

  t.test("JetStream: a message whose handler failed is delivered again", async (t) => {
    const bus = await JetStreamBus.connect(process.env.NATS_URL!, prefix, log);
    t.teardown(() => bus.close());
    const c = collect(bus, "retry", (m, n) => m.id === "f1" && n === 1);
    const consumer = await c.consumer;
    t.teardown(() => consumer.stop());
    await bus.publish([msg("f1")]);
    await until(() => c.seen.includes("f1"));
    t.pass("redelivered after the failure");
  });
}
