import t from "tap";
import { ScalarType, getOption, hasOption, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { limits as limitsOption } from "../gen/gateway/v1/annotations_pb.js";
import { ListCandidatesResponseSchema } from "../gen/hiring/v1/export_pb.js";
import { GetMeResponseSchema } from "../gen/accounts/v1/accounts_pb.js";
import { PROTO_FILES } from "../lib/contracts.js";

/**
 * Every request field declares its limits (`(gateway.v1.limits)`): strings and bytes a
 * max_length, numbers a max (64-bit ids excepted: the services convert them safely), JSON
 * values (Struct, Value, ListValue) a max_length, repeated and map fields a max_items. The
 * field-limits interceptor checks them before any handler runs.
 */

const NUMBERS = new Set([ScalarType.INT32, ScalarType.UINT32, ScalarType.SINT32, ScalarType.FIXED32, ScalarType.SFIXED32, ScalarType.DOUBLE, ScalarType.FLOAT]);
const INT64 = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);
const JSON_TYPES = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"]);

const isIdName = (name: string) => name === "id" || name.endsWith("_id") || name.endsWith("_ids");

/** What one value of the field (scalar, element or map value) lacks; undefined when it is bounded. */
function lackOfValue(field: DescField, scalar: ScalarType | undefined, message: DescMessage | undefined): string | undefined {
  const limits = hasOption(field, limitsOption) ? getOption(field, limitsOption) : undefined;
  if (message && isWrapperDesc(message)) scalar = message.fields[0].scalar;
  else if (message) return JSON_TYPES.has(message.typeName) && !limits?.maxLength ? `${message.typeName} without max_length` : undefined;
  if (scalar === ScalarType.STRING || scalar === ScalarType.BYTES) return limits?.maxLength ? undefined : `${ScalarType[scalar].toLowerCase()} without max_length`;
  if (scalar !== undefined && NUMBERS.has(scalar)) return limits?.max === undefined ? `${ScalarType[scalar].toLowerCase()} without max` : undefined;
  if (scalar !== undefined && INT64.has(scalar) && !isIdName(field.name)) return limits?.max === undefined ? `${ScalarType[scalar].toLowerCase()} (not an id) without max` : undefined;
  return undefined;
}

/** Fields of the message, and of every message inside it, that lack a limit: `type.field: what is missing`. */
function missingLimits(desc: DescMessage, seen = new Set<DescMessage>()): string[] {
  if (seen.has(desc)) return [];
  seen.add(desc);
  const out: string[] = [];
  for (const field of desc.fields) {
    const where = `${desc.typeName}.${field.name}`;
    const limits = hasOption(field, limitsOption) ? getOption(field, limitsOption) : undefined;
    let lack: string | undefined;
    let inner: DescMessage | undefined;
    switch (field.fieldKind) {
      case "scalar":
        lack = lackOfValue(field, field.scalar, undefined);
        break;
      case "enum":
        break;
      case "message":
        lack = lackOfValue(field, undefined, field.message);
        inner = field.message;
        break;
      case "list":
        if (!limits?.maxItems) out.push(`${where}: repeated without max_items`);
        if (field.listKind === "scalar") lack = lackOfValue(field, field.scalar, undefined);
        if (field.listKind === "message") {
          lack = lackOfValue(field, undefined, field.message);
          inner = field.message;
        }
        break;
      case "map":
        if (!limits?.maxItems) out.push(`${where}: map without max_items`);
        if (field.mapKey === ScalarType.STRING && !limits?.maxLength) out.push(`${where}: map key without max_length`);
        if (field.mapKind === "scalar") lack = lackOfValue(field, field.scalar, undefined);
        if (field.mapKind === "message") {
          lack = lackOfValue(field, undefined, field.message);
          inner = field.message;
        }
        break;
    }
    if (lack) out.push(`${where}: ${lack}`);
    if (inner && !inner.typeName.startsWith("google.protobuf.")) out.push(...missingLimits(inner, seen));
  }
  return out;
}

t.test("every string, bytes, number and list field of every request declares its limits", async (t) => {
  const services = PROTO_FILES.flatMap((f) => f.services);
  t.ok(services.length >= 6, "the contracts' services are all here");
  const seen = new Set<DescMessage>();
  const missing = services.flatMap((s) => s.methods.flatMap((m) => missingLimits(m.input, seen)));
  t.same(missing, [], "fields without limits");
});

t.test("the check names what is missing (response messages declare no limits)", async (t) => {
  const list = missingLimits(ListCandidatesResponseSchema);
  t.ok(list.includes("hiring.v1.ListCandidatesResponse.data: repeated without max_items"), "a repeated field");
  t.ok(list.includes("hiring.v1.Candidate.name: string without max_length"), "a string of a nested message");
  t.ok(list.includes("hiring.v1.Candidate.id: string without max_length"), "a string id");
  t.ok(list.includes("hiring.v1.Candidate.points: double without max"), "a double");
  t.ok(list.includes("hiring.v1.ListCandidatesResponse.total: int64 (not an id) without max"), "a 64-bit number that is no id");
  const me = missingLimits(GetMeResponseSchema);
  t.ok(me.includes("accounts.v1.User.beginning_of_week: int32 without max"), "an int32");
  t.notOk(me.some((m) => /User\.(id|default_workspace_id|country_id):/.test(m)), "64-bit ids need no bounds");
  t.notOk(me.some((m) => /User\.created_at:/.test(m)), "a timestamp needs none");
});
