import t from "tap";
import { createHash } from "node:crypto";
import { ManualClock, systemClock } from "../../../lib/clock.js";
import { KeyVerifier } from "../keys/verifier.js";
import { newApiKey } from "../keys/rules.js";

/** A key table in memory, counting reads. */
function table() {
  const rows = new Map<string, { workspace_id: string; secret_hash: string }>();
  const state = { reads: 0 };
  const load = async (id: string) => {
    state.reads++;
    return rows.get(id);
  };
  return { rows, state, load };
}

t.test("the key row is read once per interval; the secret is checked on every call", async (t) => {
  const { rows, state, load } = table();
  const key = newApiKey();
  rows.set(key.id, { workspace_id: "ws_a", secret_hash: key.secretHash });
  const clock = new ManualClock();
  const verifier = new KeyVerifier(load, clock, 2_000);

  t.equal(await verifier.verify(key.key), "ws_a");
  t.equal(await verifier.verify(key.key), "ws_a");
  t.equal(state.reads, 1, "the second call used the remembered row");
  t.equal(await verifier.verify(`${key.id}.wrong-secret`), undefined, "a wrong secret fails against a remembered row");
  t.equal(await verifier.verify(`${key.key}x`), undefined);

  rows.delete(key.id); // revoked by another replica
  clock.advance(1_999);
  t.equal(await verifier.verify(key.key), "ws_a", "within the interval the row is remembered");
  clock.advance(2);
  t.equal(await verifier.verify(key.key), undefined, "after it the row is read again");
  t.equal(state.reads, 2);
});

t.test("forget: a key revoked through this service fails at once", async (t) => {
  const { rows, load } = table();
  const key = newApiKey();
  rows.set(key.id, { workspace_id: "ws_a", secret_hash: key.secretHash });
  const verifier = new KeyVerifier(load, systemClock);
  t.equal(await verifier.verify(key.key), "ws_a");
  rows.delete(key.id);
  verifier.forget(key.id);
  t.equal(await verifier.verify(key.key), undefined);
});

t.test("malformed and unknown keys fail, and are not remembered", async (t) => {
  const { state, load } = table();
  const verifier = new KeyVerifier(load, systemClock);
  for (const bad of ["", "nodot", ".secret", "key_x.", `key_x.${"a".repeat(300)}`]) {
    t.equal(await verifier.verify(bad), undefined, JSON.stringify(bad.slice(0, 20)));
  }
  t.equal(state.reads, 0, "malformed keys never reach the table");
  t.equal(await verifier.verify("key_unknown.secret"), undefined);
  t.equal(await verifier.verify("key_unknown.secret"), undefined);
  t.equal(state.reads, 2, "an unknown key is looked up each time");
});

t.test("only the secret's SHA-256 is stored", async (t) => {
  const key = newApiKey();
  const secret = key.key.slice(key.key.indexOf(".") + 1);
  t.equal(key.secretHash, createHash("sha256").update(secret).digest("hex"));
  t.notOk(key.secretHash.includes(secret));
});

t.test("a row read while the key is forgotten is not remembered", async (t) => {
  const { rows } = table();
  const key = newApiKey();
  rows.set(key.id, { workspace_id: "ws_a", secret_hash: key.secretHash });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reads = 0;
  const verifier = new KeyVerifier(async (id) => {
    reads++;
    const row = rows.get(id);
    if (reads === 1) await gate; // the first read is slow: the revocation overtakes it
    return row;
  }, systemClock);
  const racing = verifier.verify(key.key);
  rows.delete(key.id);
  verifier.forget(key.id);
  release();
  t.equal(await racing, "ws_a", "the request that raced the revocation read the row before it");
  t.equal(await verifier.verify(key.key), undefined, "the next request reads the table again");
  t.equal(reads, 2);
});
