import t from "tap";
import { FAILURES_BEFORE_GIVING_UP, nextRetryDelayMs } from "../notifications/rules.js";

t.test("after x failed attempts the next one waits 10 + x^4 seconds", async (t) => {
  t.same(
    [1, 2, 3, 4, 5, 6, 7, 8, 9].map((x) => nextRetryDelayMs(x) / 1000),
    [11, 26, 91, 266, 635, 1306, 2411, 4106, 6571],
  );
});

t.test("a notification is given up after 10 consecutive failed attempts, about 4 h 17 min after the first", async (t) => {
  t.equal(FAILURES_BEFORE_GIVING_UP, 10);
  const waits = Array.from({ length: FAILURES_BEFORE_GIVING_UP - 1 }, (_, i) => nextRetryDelayMs(i + 1));
  t.equal(waits.reduce((a, b) => a + b, 0) / 1000, 15_423, "nine waits between ten attempts");
});
