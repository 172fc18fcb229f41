import { randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { create, toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { DownloadRequestRecordSchema, ExportService, type DownloadRequestRecord } from "../../../gen/tracking/v1/exports_pb.js";
import { exportInProgress, userExportMissing, workspaceExportMissing } from "../errors.js";
import type { TrackingKit } from "../kit.js";
import { exportArchiveName, userExportArchiveName } from "../portability/layout.js";
import { fileChunks } from "../reports/formats/index.js";
import { trackingScope, trackingUserScope } from "../scope.js";
import { exportFile } from "./files.js";
import { activeKey, isUuid, userObjects, workspaceObjects } from "./rules.js";
import { exportByUuid, exportRequests, userExports, workspaceExports, type ExportKind, type ExportRow } from "./store.js";

const recordMessage = (row: ExportRow): DownloadRequestRecord =>
  create(DownloadRequestRecordSchema, { token: row.uuid, state: row.state, errorMessage: row.error_message });

/**
 * The export requests: a request is a row the worker (worker.ts) turns into a ZIP; the lists
 * answer the rows; a download answers a finished one's file.
 */
export function exportHandlers({ storage, clock, exports }: TrackingKit) {
  const { db } = storage;

  /** Records a request; a requester's second unfinished one of the same target collides on `active_key`. */
  async function request(kind: ExportKind, requesterId: bigint, workspace: bigint | null, objects: string[]): Promise<string> {
    const uuid = randomUUID();
    await storage.change(
      (trx) =>
        exportRequests.insert(trx, {
          uuid,
          kind,
          workspace_id: workspace,
          requester_id: requesterId,
          objects,
          state: "pending",
          error_message: "",
          active_key: activeKey(kind, requesterId, workspace),
          file_path: null,
          attempts: 0,
          created_at: clock.now(),
          finished_at: null,
        }),
      { onDuplicate: exportInProgress },
    );
    exports.kick();
    return uuid;
  }

  /** A finished export's file as the answer's chunks; anything else (pending, expired, unknown, gone from disk) is `missing`. */
  async function* download(row: ExportRow | undefined, name: (row: ExportRow) => string, missing: () => Error) {
    const path = row?.state === "done" && row.file_path ? exportFile(exports.dir, row.file_path) : undefined;
    if (!row || !path || !(await stat(path).then((s) => s.isFile(), () => false))) throw missing();
    yield* fileChunks(createReadStream(path), name(row));
  }

  return (router: ConnectRouter) =>
    router.service(ExportService, {
      async createWorkspaceExport(req, ctx) {
        const scope = trackingScope(ctx);
        return { token: await request("workspace", scope.userId, scope.workspaceId, workspaceObjects(req.objects === undefined ? undefined : toJson(ValueSchema, req.objects))) };
      },

      async listWorkspaceExports(_req, ctx) {
        return { exports: (await workspaceExports(db, trackingScope(ctx).workspaceId)).map(recordMessage) };
      },

      async *getWorkspaceExportFile(req, ctx) {
        const scope = trackingScope(ctx);
        const row = isUuid(req.uuid) ? await exportByUuid(db, req.uuid, { workspace: scope.workspaceId }) : undefined;
        yield* download(row, (r) => exportArchiveName(String(r.workspace_id), r.uuid), workspaceExportMissing);
      },

      async createMyExport(req, ctx) {
        return { token: await request("user", trackingUserScope(ctx).userId, null, userObjects(req)) };
      },

      async listMyExports(_req, ctx) {
        return { exports: (await userExports(db, trackingUserScope(ctx).userId)).map(recordMessage) };
      },

      async *getMyExportFile(req, ctx) {
        const { userId: user } = trackingUserScope(ctx);
        const row = isUuid(req.uuid) ? await exportByUuid(db, req.uuid, { userId: user }) : undefined;
        yield* download(row, (r) => userExportArchiveName(String(r.requester_id), r.uuid), userExportMissing);
      },
    });
}
