import t from "tap";
import { randomBytes } from "node:crypto";
import { SecretBox } from "../secret-box.js";

const box = new SecretBox(randomBytes(32));

t.test("a sealed secret opens to itself and does not show it", async (t) => {
  const secret = "0123456789abcdef0123456789abcdef";
  const sealed = box.seal(secret);
  t.notMatch(sealed, secret);
  t.notMatch(Buffer.from(sealed.split(".")[3], "base64url").toString("utf8"), secret);
  t.equal(box.open(sealed), secret);
  t.not(box.seal(secret), sealed, "a fresh nonce each time");
});

t.test("a changed value, another key or a plain string does not open", async (t) => {
  const sealed = box.seal("secret");
  const parts = sealed.split(".");
  const flipped = Buffer.from(parts[3], "base64url");
  flipped[0] ^= 1;
  t.throws(() => box.open([parts[0], parts[1], parts[2], flipped.toString("base64url")].join(".")));
  t.throws(() => new SecretBox(randomBytes(32)).open(sealed));
  t.throws(() => box.open("secret"));
  t.throws(() => new SecretBox(randomBytes(16)));
});
