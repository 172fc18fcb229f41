import { open, stat } from "node:fs/promises";
import { basename } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { CallOptions } from "@connectrpc/connect";
import type { Directory } from "../lib/directory.js";
import { HEADER } from "../lib/identity.js";
import { IdentityService } from "../gen/accounts/v1/accounts_pb.js";
import { ImportService, type Import } from "../gen/tracking/v1/imports_pb.js";

/**
 * `track:import`: uploads files to the tracking service's import RPCs (the ones the REST API
 * routes), in parts of at most what one part may hold, as the workspace's first active admin
 * (lowest user id; the internal token lets the command line act as them), then follows the job to
 * its end. A dry run answers at once.
 */

/** The most bytes one part carries (ImportFile.content's declared limit). */
export const PART_BYTES = 737_280;

export interface ImportProgress {
  upload: (done: number, total: number) => void;
  entries: (done: number, total: number) => void;
}

/** The admin an import from the command line acts as. */
async function importingAdmin(d: Directory, workspaceId: bigint): Promise<bigint> {
  const { members } = await d.client("accounts", IdentityService).listWorkspaceMembers({ workspaceId });
  const admins = members.filter((m) => m.active && m.admin).sort((a, b) => (a.userId < b.userId ? -1 : 1));
  if (admins.length === 0) throw new Error(`workspace ${workspaceId} has no active admin to import as`);
  return admins[0].userId;
}

/** Each file's parts, in order, with the bytes of all files (for the progress bar). */
async function* partsOf(paths: string[]): AsyncGenerator<{ name: string; content: Uint8Array; last: boolean }> {
  for (const [i, path] of paths.entries()) {
    const handle = await open(path, "r");
    try {
      const size = (await handle.stat()).size;
      let offset = 0;
      do {
        const buffer = Buffer.alloc(Math.min(PART_BYTES, size - offset));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
        offset += bytesRead;
        yield { name: basename(path), content: buffer.subarray(0, bytesRead), last: i === paths.length - 1 && offset >= size };
      } while (offset < size);
    } finally {
      await handle.close();
    }
  }
}

export async function runTrackImport(d: Directory, args: { workspace: string; dryRun: boolean; timeZone?: string; files: string[] }, progress: ImportProgress): Promise<Import> {
  const workspaceId = BigInt(args.workspace);
  const as: CallOptions = { headers: { [HEADER.userId]: String(await importingAdmin(d, workspaceId)) } };
  const imports = d.client("tracking", ImportService);
  let total = 0;
  for (const path of args.files) total += (await stat(path)).size;
  let job = (await imports.createImport({ workspaceId, dryRun: args.dryRun, moreFiles: true, timeZone: args.timeZone ?? "" }, as)).import!;
  let sent = 0;
  progress.upload(0, total);
  for await (const part of partsOf(args.files)) {
    job = (await imports.addImportFile({ workspaceId, importId: job.id, file: { name: part.name, content: part.content }, moreFiles: !part.last }, as)).import!;
    sent += part.content.length;
    progress.upload(sent, total);
  }
  while (job.state === "queued" || job.state === "running") {
    progress.entries(Number(job.entriesDone), Number(job.entriesTotal));
    await sleep(200);
    job = (await imports.getImport({ workspaceId, importId: job.id }, as)).import!;
  }
  if (job.state === "failed") throw new Error(job.error ?? "import failed");
  progress.entries(Number(job.entriesDone), Number(job.entriesTotal));
  return job;
}
