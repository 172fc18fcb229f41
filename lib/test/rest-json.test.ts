import t from "tap";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ClientSchema, CreateClientRequestSchema, ListClientsResponseSchema, RestoreClientRequestSchema } from "../../gen/tracking/v1/clients_pb.js";
import { CandidateDetailSchema, ListCandidatesRequestSchema, ListCandidatesResponseSchema, OpeningSchema } from "../../gen/hiring/v1/export_pb.js";
import { ImportRequestSchema } from "../../gen/hiring/v1/admin_pb.js";
import { PatchGroupRequestSchema } from "../../gen/accounts/v1/groups_pb.js";
import { coerceParam, decodeField, decodeMessage, encodeField, encodeMessage, hiringTimestamp, trackingTimestamp, RestInputError } from "../rest-json.js";

const field = (desc: { fields: { name: string }[] }, name: string) => desc.fields.find((f) => f.name === name)! as never;

t.test("tracking encoding: snake_case names, int64 as numbers, unset optionals and messages as null", async (t) => {
  const client = create(ClientSchema, { id: 9007199254740991n, wid: 7n, name: "Acme", archived: false, creatorId: 3n, at: timestampFromDate(new Date("2024-12-13T00:18:26.835Z")) });
  t.same(encodeMessage(ClientSchema, client as never, trackingTimestamp), {
    id: 9007199254740991,
    wid: 7,
    name: "Acme",
    notes: null,
    archived: false,
    creator_id: 3,
    at: "2024-12-13T00:18:26.835000Z",
    permissions: null,
    server_deleted_at: null,
  });
});

t.test("timestamps follow each family's format", async (t) => {
  const ts = timestampFromDate(new Date("2020-02-10T10:00:00Z"));
  t.equal(hiringTimestamp(ts, "created_at"), "2020-02-10T10:00:00");
  t.equal(hiringTimestamp(timestampFromDate(new Date("2020-02-10T10:00:00.250Z")), "created_at"), "2020-02-10T10:00:00.250");
  t.equal(trackingTimestamp(ts, "start"), "2020-02-10T10:00:00+00:00");
  t.equal(trackingTimestamp(ts, "at"), "2020-02-10T10:00:00.000000Z");
  const opening = create(OpeningSchema, { id: "1", name: "Dev", slug: "dev", createdAt: ts });
  t.match(encodeMessage(OpeningSchema, opening as never, hiringTimestamp), { created_at: "2020-02-10T10:00:00", published_at: null, closed_at: null, tests: [] });
});

t.test("a body that is one field: bare arrays, and null for an unset message", async (t) => {
  const res = create(ListClientsResponseSchema, {});
  t.same(encodeField(field(ListClientsResponseSchema, "clients"), res.clients, trackingTimestamp), []);
  t.equal(encodeField(field(ClientSchema, "server_deleted_at"), undefined, trackingTimestamp), null);
});

t.test("nested messages: every field in declaration order, escaping, non-finite numbers, int64, Struct", async (t) => {
  const started = timestampFromDate(new Date("2024-11-21T09:54:00.125Z"));
  const detail = create(CandidateDetailSchema, {
    id: "c1",
    name: 'Zoë "Z" \\ O\u2028Brien\n',
    email: "z@example.com",
    contactInfo: { fullName: "Zoë", city: "Kraków" },
    points: 2,
    score: Number.NaN,
    rating: 3,
    tests: [
      {
        type: "quiz",
        startedAt: started,
        points: 1.5,
        questions: [{ id: "q1", questionType: "choice", content: "<b>?</b>", points: 1, options: [{ id: "o1", content: "yes", correct: true }] }],
        answers: [{ questionId: "q1", chosenOptionIds: ["o1"] }],
        skills: [{ skill: "go", score: 100 }],
      },
    ],
    tagIds: ["t1", "t2"],
  });
  const parsed = JSON.parse(JSON.stringify(encodeMessage(CandidateDetailSchema, detail as never, hiringTimestamp))) as Record<string, unknown>;
  t.same(Object.keys(parsed), CandidateDetailSchema.fields.map((f) => f.name), "every field, in declaration order");
  t.equal(parsed.name, 'Zoë "Z" \\ O\u2028Brien\n');
  t.equal(parsed.score, null, "NaN is no JSON number");
  t.equal(parsed.category_id, null, "unset optional");
  t.same(parsed.contact_info, { full_name: "Zoë", contact_email: "", network: "", phone: "", city: "Kraków", country: "" });
  t.same(parsed.tests, [
    {
      type: "quiz",
      started_at: "2024-11-21T09:54:00.125",
      finished_at: null,
      points: 1.5,
      score: null,
      questions: [{ id: "q1", question_type: "choice", content: "<b>?</b>", points: 1, options: [{ id: "o1", content: "yes", correct: true }], skill: null }],
      answers: [{ question_id: "q1", text_answer: "", points: null, chosen_option_ids: ["o1"], recording_url: null }],
      skills: [{ skill: "go", score: 100 }],
    },
  ]);
  t.same(parsed.tag_ids, ["t1", "t2"]);

  const page = create(ListCandidatesResponseSchema, { total: 9007199254740993n });
  t.equal(JSON.stringify(encodeMessage(ListCandidatesResponseSchema, page as never, hiringTimestamp)), '{"data":[],"links":null,"total":9007199254740992}', "int64 as a JSON number");
  t.same(encodeMessage(ImportRequestSchema, create(ImportRequestSchema, { data: { a: [1, "x", null, { b: true }] } }) as never, hiringTimestamp), {
    workspace_id: "",
    data: { a: [1, "x", null, { b: true }] },
    json: "",
  });
});

t.test("decoding a body: proto names, integers as numbers or digit strings, null as unset, unknown names ignored", async (t) => {
  t.same(decodeMessage(CreateClientRequestSchema, { name: "A", notes: null, wid: 12, extra: true }), { name: "A", wid: 12n });
  t.same(decodeMessage(CreateClientRequestSchema, { wid: "9223372036854775807" }), { wid: 9223372036854775807n });
  t.same(decodeMessage(RestoreClientRequestSchema, { projects: [1, 2], restore_all_projects: false }), { projects: [1n, 2n], restoreAllProjects: false });
  t.same(decodeMessage(ImportRequestSchema, { data: { openings: [{ id: "1" }] } }), { data: { openings: [{ id: "1" }] } });
});

t.test("decoding rejects values of the wrong type with a message naming the field", async (t) => {
  const cases: [unknown, string][] = [
    [{ name: 5 }, "Invalid value for name: expected string, got number"],
    [{ wid: 1.5 }, "Invalid value for wid: expected integer, got number"],
    [{ wid: "12abc" }, "Invalid value for wid: expected integer, got string"],
    [{ wid: "99999999999999999999" }, "Invalid value for wid: expected 64-bit integer, got string"],
    [[], "Invalid value for body: expected object, got array"],
    ["x", "Invalid value for body: expected object, got string"],
  ];
  for (const [input, message] of cases) {
    t.throws(() => decodeMessage(CreateClientRequestSchema, input), new RestInputError(message), JSON.stringify(input));
  }
  t.throws(() => decodeMessage(RestoreClientRequestSchema, { restore_all_projects: "yes" }), { name: "RestInputError" });
  t.throws(() => decodeMessage(RestoreClientRequestSchema, { projects: 1 }), { name: "RestInputError" });
  t.throws(() => decodeMessage(ImportRequestSchema, { data: [1] }), { name: "RestInputError" });
});

t.test("free-form JSON (google.protobuf.Value) refuses deep nesting and numbers beyond float range", async (t) => {
  const patches = field(PatchGroupRequestSchema, "patches");
  t.throws(() => decodeField(patches, JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)), { name: "RestInputError" });
  t.throws(() => decodeField(patches, JSON.parse(`{"a":${"1".repeat(400)}}`)), { name: "RestInputError" });
  t.match(decodeField(patches, [{ op: "add", value: [1] }]), { kind: { case: "listValue" } });
});

t.test("query and path strings are coerced to the field's type", async (t) => {
  t.same(coerceParam(field(ListCandidatesRequestSchema, "tag_ids"), "a,b,,c"), ["a", "b", "c"]);
  t.same(coerceParam(field(ListCandidatesRequestSchema, "tag_ids"), ["a", "b,c"]), ["a", "b", "c"]);
  t.equal(coerceParam(field(ListCandidatesRequestSchema, "min_score"), "12.5"), 12.5);
  t.equal(coerceParam(field(ListCandidatesRequestSchema, "limit"), "10"), 10);
  t.equal(coerceParam(field(RestoreClientRequestSchema, "restore_all_projects"), "true"), true);
  t.equal(coerceParam(field(RestoreClientRequestSchema, "workspace_id"), "42"), 42n);
  for (const [name, raw] of [
    ["min_score", "abc"],
    ["min_score", ""],
    ["limit", "1.5"],
    ["limit", "ten"],
    ["limit", "99999999999"],
    ["limit", "2147483648"],
    ["limit", "-2147483649"],
  ] as const) {
    t.throws(() => coerceParam(field(ListCandidatesRequestSchema, name), raw), { name: "RestInputError" }, `${name}=${raw}`);
  }
  t.throws(() => coerceParam(field(RestoreClientRequestSchema, "restore_all_projects"), "maybe"), { name: "RestInputError" });
});
