import t from "tap";
import { FailureThrottle } from "../throttle.js";

t.test("a client is refused after too many failures in the window, and let in again once they age out", async (t) => {
  let now = 1_000_000;
  const throttle = new FailureThrottle(3, 60_000, () => now);
  for (let i = 0; i < 3; i++) {
    t.equal(throttle.retryAfterSeconds("1.2.3.4"), 0);
    throttle.recordFailure("1.2.3.4");
    now += 1000;
  }
  t.equal(throttle.retryAfterSeconds("1.2.3.4"), 57, "until the first failure is 60 s old");
  t.equal(throttle.retryAfterSeconds("5.6.7.8"), 0, "other clients are not affected");
  now += 57_000;
  t.equal(throttle.retryAfterSeconds("1.2.3.4"), 0);
});
