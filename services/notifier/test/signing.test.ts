import t from "tap";
import { createHmac } from "node:crypto";
import { newSecret, signatureHeaders, standardSignature, trackingSignature } from "../delivery/signing.js";

t.test("the Standard Webhooks signature matches the specification's example", async (t) => {
  const signature = standardSignature("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}');
  t.equal(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
});

t.test("X-Webhook-Signature-256 is sha256= and the hex HMAC-SHA256 of the raw body keyed by the secret", async (t) => {
  const body = '{"event_id":"e1","payload":"ping"}';
  // Computed independently: printf '%s' "$body" | openssl dgst -sha256 -hmac 'my secret'
  t.equal(trackingSignature("my secret", body), "sha256=5721871c17176d4ea02c6f3d795beb7a761086ac0111ab9b2dad154429864ddc");
});

t.test("every delivery carries webhook-id, webhook-timestamp, webhook-signature and X-Webhook-Signature-256", async (t) => {
  const secret = newSecret();
  t.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  const headers = signatureHeaders(secret, "ntf_1", 1700000000, "{}");
  t.same(Object.keys(headers).sort(), ["webhook-id", "webhook-signature", "webhook-timestamp", "x-webhook-signature-256"]);
  t.equal(headers["webhook-id"], "ntf_1");
  t.equal(headers["webhook-timestamp"], "1700000000");
  t.equal(headers["webhook-signature"], standardSignature(secret, "ntf_1", 1700000000, "{}"));
  t.equal(headers["x-webhook-signature-256"], trackingSignature(secret, "{}"));
});

t.test("a secret chosen by the user (not whsec_) keys the Standard Webhooks signature with its UTF-8 bytes", async (t) => {
  const expected = createHmac("sha256", Buffer.from("new secret string", "utf8")).update("id.1.{}").digest("base64");
  t.equal(standardSignature("new secret string", "id", 1, "{}"), `v1,${expected}`);
});
