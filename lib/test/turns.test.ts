import t from "tap";
import { Turns } from "../turns.js";

t.test("pieces run one at a time, in order; a failed one does not stop the next; settled waits for all", async (t) => {
  const turns = new Turns();
  const log: string[] = [];
  const piece = (name: string, ms: number, fail = false) => () =>
    new Promise<string>((resolve, reject) => {
      log.push(`start ${name}`);
      setTimeout(() => {
        log.push(`end ${name}`);
        if (fail) reject(new Error(name));
        else resolve(name);
      }, ms);
    });
  const a = turns.run(piece("a", 20));
  const b = turns.run(piece("b", 1, true));
  const c = turns.run(piece("c", 1));
  const settled = turns.settled().then(() => log.push("settled"));
  t.equal(await a, "a");
  await t.rejects(b, /b/, "the failure reaches the caller of its piece");
  t.equal(await c, "c", "the next piece runs after a failed one");
  await settled;
  t.same(log, ["start a", "end a", "start b", "end b", "start c", "end c", "settled"]);
});
