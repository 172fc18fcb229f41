import t from "tap";
import { create, createFileRegistry, setExtension, type DescService, type MessageInitShape } from "@bufbuild/protobuf";
import { FieldDescriptorProto_Label, FieldDescriptorProto_Type, FieldOptionsSchema, FileDescriptorProtoSchema, MethodOptionsSchema, ServiceOptionsSchema } from "@bufbuild/protobuf/wkt";
import { AccessSchema, Family, FieldLimitsSchema, RouteSchema, Scope, access as accessOption, family as familyOption, limits as limitsOption, route as routeOption } from "../../gen/gateway/v1/annotations_pb.js";
import { collectRoutes, type UploadRoute } from "../routes.js";
import { FormUpload, MALFORMED_FORM_MESSAGE, readFormUpload, TOO_MANY_FILES_MESSAGE } from "../multipart.js";

/**
 * The route option `multipart_file`: a route that also takes a `multipart/form-data` body whose
 * part of the field's name is a bytes field of the request. The form is read here (busboy); what
 * a declaration needs is checked when the routes are read. The uploads themselves, through HTTP,
 * are services/accounts/test/images-multipart.test.ts.
 */

type RouteInit = MessageInitShape<typeof RouteSchema>;

const { OPTIONAL } = FieldDescriptorProto_Label;
const { STRING, BYTES } = FieldDescriptorProto_Type;

/** A contract of the tracking family built in memory: one RPC per route given, taking `UploadRequest`. */
function contract(routes: Record<string, RouteInit>): DescService {
  const serviceOptions = create(ServiceOptionsSchema);
  setExtension(serviceOptions, familyOption, Family.TRACKING);
  const limited = (maxLength: number) => {
    const options = create(FieldOptionsSchema);
    setExtension(options, limitsOption, create(FieldLimitsSchema, { maxLength }));
    return options;
  };
  const file = create(FileDescriptorProtoSchema, {
    name: "tracking/test/uploads.proto",
    package: "tracking.test",
    syntax: "proto3",
    messageType: [
      {
        name: "UploadRequest",
        field: [
          { name: "image", number: 1, type: BYTES, label: OPTIONAL, jsonName: "image", options: limited(10) },
          { name: "caption", number: 2, type: STRING, label: OPTIONAL, jsonName: "caption", options: limited(10) },
          { name: "unbounded", number: 3, type: BYTES, label: OPTIONAL, jsonName: "unbounded" },
        ],
      },
      { name: "UploadResponse" },
    ],
    service: [
      {
        name: "UploadService",
        options: serviceOptions,
        method: Object.entries(routes).map(([name, route]) => {
          const options = create(MethodOptionsSchema);
          setExtension(options, routeOption, create(RouteSchema, { method: "POST", path: "/x", body: "*", ...route }));
          setExtension(options, accessOption, create(AccessSchema, { scope: Scope.USER }));
          return { name, inputType: ".tracking.test.UploadRequest", outputType: ".tracking.test.UploadResponse", options };
        }),
      },
    ],
  });
  return createFileRegistry(file, () => undefined).getService("tracking.test.UploadService")!;
}

t.test("a route declaring multipart_file names its bytes field and the field's limit; others have none", async (t) => {
  const [upload, plain] = collectRoutes([contract({ Upload: { multipartFile: "image" }, Plain: {} })]);
  t.equal(upload.upload?.field.name, "image");
  t.equal(upload.upload?.maxBytes, 10);
  t.equal(plain.upload, undefined);
  t.equal(collectRoutes([contract({ Named: { body: "image", multipartFile: "image" } })])[0].upload?.field.name, "image", "the body may be the field itself");
});

t.test("a multipart_file that cannot work is refused when the routes are read", async (t) => {
  for (const [route, problem] of [
    [{ multipartFile: "nope" }, /multipart_file nope is no bytes request field/],
    [{ multipartFile: "caption" }, /multipart_file caption is no bytes request field/],
    [{ multipartFile: "image", body: "" }, /multipart_file image is not in the route's body/],
    [{ multipartFile: "image", body: "caption" }, /multipart_file image is not in the route's body/],
    [{ multipartFile: "image", method: "DELETE" }, /multipart_file needs a unary POST, PUT or PATCH/],
    [{ multipartFile: "unbounded" }, /unbounded declares no max_length/],
  ] as const) {
    t.throws(() => collectRoutes([contract({ Bad: route })]), problem, JSON.stringify(route));
  }
});

const UPLOAD: UploadRoute = collectRoutes([contract({ Upload: { multipartFile: "image" } })])[0].upload!;

/** A multipart body by hand, each part with its headers as given. */
function body(boundary: string, parts: [disposition: string, data: string | Buffer][], end = `--${boundary}--\r\n`): Buffer {
  return Buffer.concat([
    ...parts.flatMap(([disposition, data]) => [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; ${disposition}\r\n\r\n`), Buffer.from(data), Buffer.from("\r\n")]),
    Buffer.from(end),
  ]);
}
const read = (data: Buffer, contentType = "multipart/form-data; boundary=b") => readFormUpload(data, contentType, UPLOAD);
/** Bytes with a line end and dashes in them (not followed by the boundary, which no part may hold). */
const BINARY = Buffer.from([0, 13, 10, 45, 45, 122, 255, 13, 10]);

t.test("the part of the field's name is the file, raw, with or without a file name; text parts are ignored", async (t) => {
  const withName = await read(body("b", [['name="caption"', "hello"], ['name="image"; filename="a.png"', BINARY], ['name="other"', "x"]]));
  t.ok(withName instanceof FormUpload);
  t.same(Buffer.from(withName.file!), BINARY, "bytes that look like line ends and boundaries stay");
  t.same(Buffer.from((await read(body("b", [['name="image"', BINARY]]))).file!), BINARY, "a text part of the name");
  t.equal((await read(body("b", [['name="caption"', "hello"]]))).file, undefined, "no such part: no file");
  t.equal((await read(body("b", [['name="picture"; filename="a.png"', BINARY]]))).file, undefined, "a file of another name is not the field");
  t.same((await read(body("b", [['name="image"; filename="a"', ""]]))).file, new Uint8Array(0), "an empty part is an empty file");
});

t.test("of a longer file one byte past the limit is kept: the service answers the field's own 400", async (t) => {
  const form = await read(body("b", [['name="image"; filename="a"', "x".repeat(50)]]));
  t.equal(form.file?.length, UPLOAD.maxBytes + 1);
  t.equal((await read(body("b", [['name="image"; filename="a"', "x".repeat(10)]]))).file?.length, 10, "at the limit, whole");
});

t.test("a second part with a file is refused; a malformed form is refused, never waited on", async (t) => {
  for (const [why, data, contentType, message] of [
    ["two files of the name", body("b", [['name="image"; filename="a"', "1"], ['name="image"; filename="b"', "2"]]), undefined, TOO_MANY_FILES_MESSAGE],
    ["a second file of another name", body("b", [['name="image"; filename="a"', "1"], ['name="more"; filename="b"', "2"]]), undefined, TOO_MANY_FILES_MESSAGE],
    ["cut inside a part", body("b", [['name="image"; filename="a"', BINARY]]).subarray(0, 60), undefined, MALFORMED_FORM_MESSAGE],
    ["cut inside the headers", Buffer.from('--b\r\nContent-Disposition: form-data; name="im'), undefined, MALFORMED_FORM_MESSAGE],
    ["no closing boundary", body("b", [['name="image"; filename="a"', BINARY]], ""), undefined, MALFORMED_FORM_MESSAGE],
    ["another boundary", body("b", [['name="image"; filename="a"', BINARY]]), "multipart/form-data; boundary=c", MALFORMED_FORM_MESSAGE],
    ["no boundary", body("b", [['name="image"; filename="a"', BINARY]]), "multipart/form-data", MALFORMED_FORM_MESSAGE],
    ["no form at all", Buffer.from("{\"image\":\"AAAA\"}"), undefined, MALFORMED_FORM_MESSAGE],
  ] as const) {
    await t.rejects(read(data, contentType), { message, statusCode: 400 }, why);
  }
});
