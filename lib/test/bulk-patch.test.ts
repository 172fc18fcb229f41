import t from "tap";
import { ConnectError } from "@connectrpc/connect";
import { applyEach, parseIdList, parsePatchOperations, patchValue } from "../bulk-patch.js";
import { badRequest, forbidden } from "../errors.js";

const message = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ConnectError ? err.rawMessage : String(err);
  }
  return undefined;
};

t.test("parseIdList: positive integers, repeats dropped, at least one, at most the limit", async (t) => {
  const opts = { max: 3, invalid: "Invalid value as user IDs" };
  t.strictSame(parseIdList("3, 1,3,2", opts), [3n, 1n, 2n]);
  t.equal(message(() => parseIdList("", opts)), "PATCH expects at least one ID");
  t.equal(message(() => parseIdList("1,2,3,4", opts)), "PATCH request is limited to 3 entries at once");
  for (const bad of ["a", "1,,2", "0", "-1", "1.5", "9007199254740993", "1e3"]) t.equal(message(() => parseIdList(bad, opts)), "Invalid value as user IDs", bad);
});

t.test("parsePatchOperations: the request as a whole, with the real API's messages", async (t) => {
  const paths = { manager: { ops: ["replace"] as const, check: patchValue.boolean("/manager") }, rate: { check: patchValue.nullableNumber("/rate") } };
  t.same(parsePatchOperations([{ op: "Replace", path: "/manager", value: true }, { op: "remove", path: "/rate" }], paths), [
    { op: "replace", path: "/manager", field: "manager", value: true },
    { op: "remove", path: "/rate", field: "rate", value: undefined },
  ]);
  for (const [body, expected] of [
    [{}, "Invalid JSON input"],
    [[], "No patchable fields defined"],
    [[1], "Invalid JSON input"],
    [[{ op: "copy", path: "/rate", value: 1 }], "Invalid op: copy"],
    [[{ path: "/rate", value: 1 }], "Invalid op: "],
    [[{ op: "add", path: "rate", value: 1 }], "Invalid path format: rate"],
    [[{ op: "add", path: "/a/b", value: 1 }], "Invalid path format: /a/b"],
    [[{ op: "add", path: "/labour", value: 1 }], "Path not found: /labour"],
    [[{ op: "add", path: "/constructor", value: 1 }], "Path not found: /constructor"],
    [[{ op: "add", path: "/manager", value: true }], "Operation not supported (add /manager)"],
    [[{ op: "replace", path: "/manager", value: "yes" }], "/manager expects a boolean"],
    [[{ op: "replace", path: "/rate", value: "1" }], "/rate expects a number or null"],
    [Array.from({ length: 101 }, () => ({ op: "replace", path: "/rate", value: 1 })), "PATCH request is limited to 100 operations at once"],
  ] as const) {
    t.equal(message(() => parsePatchOperations(body as never, paths)), expected, JSON.stringify(body).slice(0, 60));
  }
});

t.test("applyEach: client errors fail one id, other errors end the request", async (t) => {
  const result = await applyEach([1n, 2n, 3n, 4n], async (id) => {
    if (id === 2n) throw badRequest("Invalid project_id");
    if (id === 4n) throw forbidden("User does not have access to this resource.");
  });
  t.strictSame(result, { success: [1n, 3n], failure: [{ id: 2n, message: "Invalid project_id" }, { id: 4n, message: "User does not have access to this resource." }] });
  await t.rejects(applyEach([1n], async () => Promise.reject(new Error("database gone"))), /database gone/);
});
