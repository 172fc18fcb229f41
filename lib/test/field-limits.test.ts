import t from "tap";
import { create, createFileRegistry, setExtension, type DescMessage, type DescMethodUnary, type DescService, type MessageInitShape } from "@bufbuild/protobuf";
import {
  FieldDescriptorProto_Label as Label,
  FieldDescriptorProto_Type as Type,
  FieldDescriptorProtoSchema,
  FieldOptionsSchema,
  FileDescriptorProtoSchema,
  ServiceOptionsSchema,
  file_google_protobuf_struct,
  file_google_protobuf_wrappers,
  type DescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { Family, FieldLimitsSchema, family, limits } from "../../gen/gateway/v1/annotations_pb.js";
import { UpdateCandidateRequestSchema } from "../../gen/hiring/v1/admin_pb.js";
import { ERROR_HEADER } from "../errors.js";
import { checkDeclaredLength, declaredMaxLength, fieldLimitViolation, fieldLimitsInterceptor } from "../field-limits.js";
import { CreateClientRequestSchema } from "../../gen/tracking/v1/clients_pb.js";
import { ProjectInputSchema } from "../../gen/tracking/v1/projects_pb.js";

/**
 * The field-limits interceptor: a value at its declared limit passes, one past it is the
 * family's 400 naming the field, in nested, repeated and map fields alike; strings count
 * characters (code points), bytes count bytes.
 */

// A contract made for this test, with every kind of field the check knows.
type Limits = MessageInitShape<typeof FieldLimitsSchema>;
type FieldInit = MessageInitShape<typeof FieldDescriptorProtoSchema>;

function field(name: string, number: number, type: Type, options: { limits?: Limits; repeated?: boolean; typeName?: string; oneofIndex?: number } = {}): FieldInit {
  const fieldOptions = create(FieldOptionsSchema);
  if (options.limits) setExtension(fieldOptions, limits, create(FieldLimitsSchema, options.limits));
  return {
    name,
    number,
    type,
    label: options.repeated ? Label.REPEATED : Label.OPTIONAL,
    typeName: options.typeName,
    jsonName: name.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase()),
    oneofIndex: options.oneofIndex,
    options: options.limits ? fieldOptions : undefined,
  };
}

/** The entry message of a map field: `key` (a string) and `value`. */
const mapEntry = (name: string, value: FieldInit): MessageInitShape<typeof DescriptorProtoSchema> => ({ name, field: [field("key", 1, Type.STRING), value], options: { mapEntry: true } });

function serviceOptions(f: Family) {
  const options = create(ServiceOptionsSchema);
  setExtension(options, family, f);
  return options;
}

const fileProto = create(FileDescriptorProtoSchema, {
  name: "limits_test.proto",
  package: "limitstest",
  syntax: "proto3",
  dependency: ["google/protobuf/struct.proto", "google/protobuf/wrappers.proto"],
  messageType: [
    { name: "Inner", field: [field("note", 1, Type.STRING, { limits: { maxLength: 3 } })] },
    {
      name: "Probe",
      field: [
        field("name", 1, Type.STRING, { limits: { maxLength: 5 } }),
        field("blob", 2, Type.BYTES, { limits: { maxLength: 4 } }),
        field("count", 3, Type.INT32, { limits: { min: 1n, max: 10n } }),
        field("big", 4, Type.INT64, { limits: { min: -5n, max: 5n } }),
        field("ratio", 5, Type.DOUBLE, { limits: { min: 0n, max: 1n } }),
        field("tags", 6, Type.STRING, { repeated: true, limits: { maxItems: 2, maxLength: 3 } }),
        field("inner", 7, Type.MESSAGE, { typeName: ".limitstest.Inner" }),
        field("inners", 8, Type.MESSAGE, { repeated: true, typeName: ".limitstest.Inner", limits: { maxItems: 3 } }),
        field("by_key", 9, Type.MESSAGE, { repeated: true, typeName: ".limitstest.Probe.ByKeyEntry", limits: { maxItems: 2, maxLength: 4 } }),
        field("labels", 10, Type.MESSAGE, { repeated: true, typeName: ".limitstest.Probe.LabelsEntry", limits: { maxLength: 3 } }),
        field("doc", 11, Type.MESSAGE, { typeName: ".google.protobuf.Struct", limits: { maxLength: 20 } }),
        field("wrapped", 12, Type.MESSAGE, { typeName: ".google.protobuf.StringValue", limits: { maxLength: 3 } }),
        field("choice_text", 13, Type.STRING, { oneofIndex: 0, limits: { maxLength: 2 } }),
        field("free", 14, Type.STRING),
      ],
      nestedType: [mapEntry("ByKeyEntry", field("value", 2, Type.MESSAGE, { typeName: ".limitstest.Inner" })), mapEntry("LabelsEntry", field("value", 2, Type.STRING))],
      oneofDecl: [{ name: "choice" }],
    },
    { name: "Empty" },
  ],
  service: [
    { name: "HiringProbeService", method: [{ name: "Check", inputType: ".limitstest.Probe", outputType: ".limitstest.Empty" }], options: serviceOptions(Family.HIRING) },
    { name: "PlainProbeService", method: [{ name: "Check", inputType: ".limitstest.Probe", outputType: ".limitstest.Empty" }] },
  ],
});

const registry = createFileRegistry(fileProto, (name) =>
  name === "google/protobuf/struct.proto" ? file_google_protobuf_struct : name === "google/protobuf/wrappers.proto" ? file_google_protobuf_wrappers : undefined,
);
const Probe = registry.getMessage("limitstest.Probe")!;
const HiringProbe = registry.getService("limitstest.HiringProbeService")!;
const PlainProbe = registry.getService("limitstest.PlainProbeService")!;

const violation = (init: Record<string, unknown>, desc: DescMessage = Probe) => fieldLimitViolation(desc, create(desc, init as never));

t.test("a string at its limit passes, one character more is refused naming the field", async (t) => {
  t.equal(violation({ name: "abcde" }), undefined);
  t.equal(violation({ name: "abcdef" }), "name must be at most 5 characters");
  t.equal(violation({ free: "x".repeat(100_000) }), undefined, "a field without limits is not checked");
});

t.test("strings count characters, not bytes or UTF-16 units", async (t) => {
  t.equal(violation({ name: "ééééé" }), undefined, "two-byte characters");
  t.equal(violation({ name: "😀😀😀😀😀" }), undefined, "characters outside the BMP (two UTF-16 units each)");
  t.equal(violation({ name: "😀😀😀😀😀😀" }), "name must be at most 5 characters");
  t.equal(violation({ name: "\ud800\ud800\ud800\ud800\ud800" }), undefined, "a lone surrogate counts as one");
  t.equal(violation({ name: "😀\ud800😀\udc00é" }), undefined);
});

t.test("bytes count bytes", async (t) => {
  t.equal(violation({ blob: new Uint8Array(4) }), undefined);
  t.equal(violation({ blob: new Uint8Array(5) }), "blob must be at most 4 bytes");
});

t.test("numbers: at the bounds pass, beyond them are refused", async (t) => {
  t.equal(violation({ count: 1 }), undefined);
  t.equal(violation({ count: 10 }), undefined);
  t.equal(violation({ count: 11 }), "count must be at most 10");
  t.equal(violation({ count: 0 }), undefined, "zero of a field without presence is unset: not checked against min");
  t.equal(violation({ count: -1 }), "count must be at least 1");
  t.equal(violation({ big: 5n }), undefined);
  t.equal(violation({ big: 6n }), "big must be at most 5");
  t.equal(violation({ big: -6n }), "big must be at least -5");
  t.equal(violation({ ratio: 1 }), undefined);
  t.equal(violation({ ratio: 1.0001 }), "ratio must be at most 1");
  t.equal(violation({ ratio: -0.5 }), "ratio must be at least 0");
});

t.test("repeated fields: the count of items and each item", async (t) => {
  t.equal(violation({ tags: ["abc", "def"] }), undefined);
  t.equal(violation({ tags: ["a", "b", "c"] }), "tags must have at most 2 items");
  t.equal(violation({ tags: ["abc", "defg"] }), "tags[1] must be at most 3 characters");
  t.equal(violation({ inners: [{ note: "abc" }, { note: "abc" }, { note: "abc" }] }), undefined);
  t.equal(violation({ inners: [{}, {}, {}, {}] }), "inners must have at most 3 items");
  t.equal(violation({ inners: [{ note: "abc" }, { note: "abcd" }] }), "inners[1].note must be at most 3 characters");
});

t.test("nested messages are walked, with the path in the message", async (t) => {
  t.equal(violation({ inner: { note: "abc" } }), undefined);
  t.equal(violation({ inner: { note: "abcd" } }), "inner.note must be at most 3 characters");
});

t.test("maps: the count of entries, each key and each value", async (t) => {
  t.equal(violation({ byKey: { abcd: { note: "abc" }, b: {} } }), undefined);
  t.equal(violation({ byKey: { a: {}, b: {}, c: {} } }), "by_key must have at most 2 items");
  t.equal(violation({ byKey: { abcde: {} } }), "by_key key must be at most 4 characters");
  t.equal(violation({ byKey: { k: { note: "abcd" } } }), 'by_key["k"].note must be at most 3 characters');
  t.equal(violation({ labels: { k: "abc" } }), undefined);
  t.equal(violation({ labels: { k: "abcd" } }), 'labels["k"] must be at most 3 characters');
});

t.test("a Struct is limited by the length of its JSON text; wrappers and oneof members like their value", async (t) => {
  t.equal(violation({ doc: { a: "123456789012" } }), undefined, '{"a":"123456789012"} is 20 characters');
  t.equal(violation({ doc: { a: "1234567890123" } }), "doc must be at most 20 characters as JSON");
  t.equal(violation({ wrapped: "abc" }), undefined);
  t.equal(violation({ wrapped: "abcd" }), "wrapped must be at most 3 characters");
  t.equal(violation({ choice: { case: "choiceText", value: "ab" } }), undefined);
  t.equal(violation({ choice: { case: "choiceText", value: "abc" } }), "choice_text must be at most 2 characters");
});

t.test("the declared limits of the real contracts: a nested list of a hiring admin request", async (t) => {
  const base = { workspaceId: "ws_1", candidateId: "c1" };
  t.equal(violation({ ...base, tagIds: { ids: ["t".repeat(64)] } }, UpdateCandidateRequestSchema), undefined);
  t.equal(violation({ ...base, tagIds: { ids: ["ok", "t".repeat(65)] } }, UpdateCandidateRequestSchema), "tag_ids.ids[1] must be at most 64 characters");
  t.equal(violation({ ...base, rating: 128 }, UpdateCandidateRequestSchema), "rating must be at most 127");
});

/** A service that answers every call, behind the interceptor, over a serializing in-memory transport. */
function probeClient(service: DescService) {
  let calls = 0;
  const transport = createRouterTransport(
    (router) => {
      const method = service.methods[0] as DescMethodUnary;
      router.rpc(method, () => {
        calls++;
        return {};
      });
    },
    { router: { interceptors: [fieldLimitsInterceptor()] } },
  );
  const client = createClient(service, transport) as unknown as { check(req: Record<string, unknown>): Promise<unknown> };
  return { client, calls: () => calls };
}

t.test("the interceptor refuses before the handler runs, with the family's 400", async (t) => {
  const hiring = probeClient(HiringProbe);
  await hiring.client.check({ name: "abcde" });
  t.equal(hiring.calls(), 1, "within the limits the handler runs");
  const err = await hiring.client.check({ name: "abcdef" }).then(() => undefined, (e: unknown) => ConnectError.from(e));
  t.equal(err?.code, Code.InvalidArgument);
  t.equal(err?.rawMessage, "name must be at most 5 characters");
  t.equal(err?.metadata.get(ERROR_HEADER.errorType), "ValidationError", "the hiring family's ValidationError");
  t.equal(hiring.calls(), 1, "the handler did not run");

  const plain = probeClient(PlainProbe);
  const plainErr = await plain.client.check({ inner: { note: "abcd" } }).then(() => undefined, (e: unknown) => ConnectError.from(e));
  t.equal(plainErr?.code, Code.InvalidArgument);
  t.equal(plainErr?.rawMessage, "inner.note must be at most 3 characters");
  t.equal(plainErr?.metadata.get(ERROR_HEADER.errorType), null, "other families: a plain InvalidArgument");
  t.equal(plain.calls(), 0);
});

t.test("a field's own message for a string past its length, with {max} filled in", async (t) => {
  const name = "x".repeat(declaredMaxLength(CreateClientRequestSchema.field.name));
  t.equal(fieldLimitViolation(CreateClientRequestSchema, create(CreateClientRequestSchema, { name })), undefined, "at the limit");
  t.equal(fieldLimitViolation(CreateClientRequestSchema, create(CreateClientRequestSchema, { name: `${name}y` })), "Client name maximum length is 100", "one past it");
  t.equal(declaredMaxLength(CreateClientRequestSchema.field.name), 100, "the limit the rules read");
  t.throws(() => declaredMaxLength(CreateClientRequestSchema.field.workspaceId), /declares no max_length/, "a field without one is a programming error");
  t.doesNotThrow(() => checkDeclaredLength(ProjectInputSchema.field.name, "p".repeat(255)), "a value reaching a rule another way, at the limit");
  t.throws(() => checkDeclaredLength(ProjectInputSchema.field.name, "p".repeat(256)), new ConnectError("Project name must be at most 255 characters", Code.InvalidArgument), "past it");
});
