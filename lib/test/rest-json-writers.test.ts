import t from "tap";
import { fromJson, ScalarType, toJson, type DescField, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence, ListValueSchema, ValueSchema, type Timestamp } from "@bufbuild/protobuf/wkt";
import { PROTO_FILES } from "../contracts.js";
import { seededRandom } from "../seeded-random.js";
import { encodeMessage, hiringTimestamp, trackingTimestamp, type TimestampFormat } from "../rest-json.js";

/**
 * The generated message writers (encodeMessage) write what the codec's rules say, byte for byte,
 * for every message the services declare: each filled with values of every kind (strings that
 * need escaping, 64-bit integers, doubles that are not finite, nested messages, maps), with fields
 * left unset, and with oneof members set and not. The rules, written plainly, field by field:
 */
function reference(desc: DescMessage, msg: Record<string, unknown>, format: TimestampFormat): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const field of desc.fields) {
    if (field.oneof) {
      const set = msg[field.oneof.localName] as { case?: string; value?: unknown } | undefined;
      if (set?.case === field.localName && set.value !== undefined) out[field.name] = referenceValue(field, set.value, format);
      continue;
    }
    const value = msg[field.localName];
    if (value !== undefined) out[field.name] = referenceValue(field, value, format);
    else if (field.fieldKind === "list") out[field.name] = [];
    else if (field.fieldKind === "map") out[field.name] = {};
    else if (field.fieldKind === "message" || field.presence === FeatureSet_FieldPresence.EXPLICIT) out[field.name] = null;
  }
  return out;
}

function referenceElement(field: DescField, kind: "scalar" | "enum" | "message", value: unknown, format: TimestampFormat): JsonValue {
  if (kind === "enum") return Number(value);
  if (kind === "scalar") {
    switch (field.scalar!) {
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        return Number.isFinite(value as number) ? (value as number) : null;
      case ScalarType.BYTES:
        return Buffer.from(value as Uint8Array).toString("base64");
      case ScalarType.BOOL:
        return Boolean(value);
      case ScalarType.STRING:
        return value as string;
      default:
        return Number(value as bigint);
    }
  }
  const desc = field.message!;
  if (desc.typeName === "google.protobuf.Timestamp") return format(value as Timestamp, field.name);
  if (desc.typeName === "google.protobuf.Struct") return value as JsonValue;
  if (desc.typeName === "google.protobuf.Value" || desc.typeName === "google.protobuf.ListValue") return toJson(desc, value as never);
  return reference(desc, value as Record<string, unknown>, format);
}

function referenceValue(field: DescField, value: unknown, format: TimestampFormat): JsonValue {
  if (field.fieldKind === "list") return (value as unknown[]).map((v) => referenceElement(field, field.listKind, v, format));
  if (field.fieldKind === "map") {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = referenceElement(field, field.mapKind, v, format);
    return out;
  }
  return referenceElement(field, field.fieldKind, value, format);
}

const random = seededRandom(25);
const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];

const STRINGS = ["", "plain", 'quote " and \\ backslash', "line\nbreak\ttab", "unicode é ✓ \u2028 \ud83d\ude00", "\u0000\u001f control", "lone \ud800 surrogate"];
const INTEGERS = [0n, 1n, -1n, 9007199254740993n, -9223372036854775808n, 9223372036854775807n];

function scalar(type: ScalarType): unknown {
  switch (type) {
    case ScalarType.STRING:
      return pick(STRINGS);
    case ScalarType.BOOL:
      return random() < 0.5;
    case ScalarType.BYTES:
      return new Uint8Array([0, 255, 34, 92]);
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return pick([0, -0, 1.5, -2.25e-7, 1e21, Number.NaN, Number.POSITIVE_INFINITY, 123456789.123]);
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return pick(INTEGERS);
    default:
      return pick([0, 7, -2147483648, 2147483647]);
  }
}

function messageValue(desc: DescMessage, depth: number): unknown {
  switch (desc.typeName) {
    case "google.protobuf.Timestamp":
      return { seconds: pick([0n, 1734049106n, -62135596800n, 253402300799n, 9999999999999n]), nanos: pick([0, 1_000, 123_456_789]) };
    case "google.protobuf.Struct":
      return { a: [1, "x", null, { b: true }], "10": 1, "2": "two" };
    case "google.protobuf.Value":
      return fromJson(ValueSchema, { nested: [1, "y", { "3": null }] });
    case "google.protobuf.ListValue":
      return fromJson(ListValueSchema, [1, "z", false]);
    default:
      return depth > 3 ? {} : message(desc, depth + 1);
  }
}

function element(field: DescField, kind: "scalar" | "enum" | "message", depth: number): unknown {
  if (kind === "enum") return pick([0, 1, 2]);
  if (kind === "scalar") return scalar(field.scalar!);
  return messageValue(field.message!, depth);
}

function value(field: DescField, depth: number): unknown {
  switch (field.fieldKind) {
    case "scalar":
    case "enum":
    case "message":
      return element(field, field.fieldKind, depth);
    case "list":
      return Array.from({ length: pick([0, 1, 3]) }, () => element(field, field.listKind, depth));
    case "map": {
      const out: Record<string, unknown> = {};
      for (const key of ["b", "10", "a", "2"]) out[key] = element(field, field.mapKind, depth);
      return out;
    }
  }
}

/** A message with about three fields in four set, each oneof set to one of its members (or none). */
function message(desc: DescMessage, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of desc.fields) {
    if (field.oneof || random() < 0.25) continue;
    out[field.localName] = value(field, depth);
  }
  for (const oneof of desc.oneofs) {
    const member = pick([...oneof.fields, undefined]);
    out[oneof.localName] = member ? { case: member.localName, value: value(member, depth) } : { case: undefined };
  }
  return out;
}

function allMessages(): DescMessage[] {
  const seen = new Map<string, DescMessage>();
  const visit = (desc: DescMessage) => {
    if (seen.has(desc.typeName)) return;
    seen.set(desc.typeName, desc);
    for (const f of desc.fields) if (f.message) visit(f.message);
    for (const nested of desc.nestedMessages) visit(nested);
  };
  for (const file of PROTO_FILES) {
    for (const m of file.messages) visit(m);
    for (const s of file.services) for (const method of s.methods) (visit(method.input), visit(method.output));
  }
  return [...seen.values()].filter((d) => !d.typeName.startsWith("google.protobuf."));
}

t.test("every declared message is written as the rules say", async (t) => {
  const messages = allMessages();
  t.ok(messages.length > 100, `${messages.length} messages`);
  let compared = 0;
  for (const desc of messages) {
    for (let round = 0; round < 4; round++) {
      const msg = message(desc);
      for (const format of [trackingTimestamp, hiringTimestamp]) {
        const expected = JSON.stringify(reference(desc, msg, format));
        const written = JSON.stringify(encodeMessage(desc, msg, format));
        if (written !== expected) t.equal(written, expected, desc.typeName);
        compared++;
      }
    }
    // Nothing set: every field as the API writes an unset one.
    t.equal(JSON.stringify(encodeMessage(desc, {}, trackingTimestamp)), JSON.stringify(reference(desc, {}, trackingTimestamp)), `${desc.typeName}, unset`);
  }
  t.pass(`${compared} messages written alike`);
});
