import { create, createFileRegistry, setExtension, type DescService, type MessageInitShape } from "@bufbuild/protobuf";
import { FieldDescriptorProto_Label, FieldDescriptorProto_Type, FieldOptionsSchema, FileDescriptorProtoSchema, MethodOptionsSchema, ServiceOptionsSchema } from "@bufbuild/protobuf/wkt";
import {
  AccessSchema,
  Family,
  FieldLimitsSchema,
  RouteSchema,
  Scope,
  access as accessOption,
  family as familyOption,
  limits as limitsOption,
  route as routeOption,
} from "../../gen/gateway/v1/annotations_pb.js";
import { file_gateway_v1_files } from "../../gen/gateway/v1/files_pb.js";

/**
 * A contract of the tracking family built in memory for tests of file answers: each RPC given
 * takes a `FileRequest` and (unless `unary`) streams `gateway.v1.FileChunk` messages.
 */

type RouteInit = MessageInitShape<typeof RouteSchema>;

/** The request of every RPC of the contract; `name` declares at most 10 characters, `mode` 20. */
export interface FileRequest {
  workspaceId: bigint;
  mode: string;
  name: string;
  rows: number;
}

export interface DeclaredRpc {
  /** Without one, the RPC is not routed. */
  route?: RouteInit;
  scope?: Scope;
  unary?: boolean;
  /** The output type's full name: `.gateway.v1.FileChunk` unless given (`.tracking.test.Plain` has one string). */
  output?: string;
}

const { OPTIONAL } = FieldDescriptorProto_Label;
const { STRING, INT64, INT32 } = FieldDescriptorProto_Type;

function bounded(maxLength: number) {
  const options = create(FieldOptionsSchema);
  setExtension(options, limitsOption, create(FieldLimitsSchema, { maxLength }));
  return options;
}

/** The service `tracking.test.FilesService` with the RPCs given, by name. */
export function fileContract(rpcs: Record<string, DeclaredRpc>): DescService {
  const serviceOptions = create(ServiceOptionsSchema);
  setExtension(serviceOptions, familyOption, Family.TRACKING);
  const file = create(FileDescriptorProtoSchema, {
    name: "tracking/test/files.proto",
    package: "tracking.test",
    syntax: "proto3",
    dependency: ["gateway/v1/files.proto"],
    messageType: [
      {
        name: "FileRequest",
        field: [
          { name: "workspace_id", number: 1, type: INT64, label: OPTIONAL, jsonName: "workspaceId" },
          { name: "mode", number: 2, type: STRING, label: OPTIONAL, jsonName: "mode", options: bounded(20) },
          { name: "name", number: 3, type: STRING, label: OPTIONAL, jsonName: "name", options: bounded(10) },
          { name: "rows", number: 4, type: INT32, label: OPTIONAL, jsonName: "rows" },
        ],
      },
      { name: "Plain", field: [{ name: "text", number: 1, type: STRING, label: OPTIONAL, jsonName: "text" }] },
    ],
    service: [
      {
        name: "FilesService",
        options: serviceOptions,
        method: Object.entries(rpcs).map(([name, { route, scope, unary, output }]) => {
          const options = create(MethodOptionsSchema);
          if (route) setExtension(options, routeOption, create(RouteSchema, { method: "GET", ...route }));
          setExtension(options, accessOption, create(AccessSchema, { scope: scope ?? Scope.PUBLIC }));
          return { name, inputType: ".tracking.test.FileRequest", outputType: output ?? ".gateway.v1.FileChunk", serverStreaming: !unary, options };
        }),
      },
    ],
  });
  const registry = createFileRegistry(file, (name) => (name === "gateway/v1/files.proto" ? file_gateway_v1_files : undefined));
  return registry.getService("tracking.test.FilesService")!;
}
