import { createHash, randomBytes } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import { ImageService } from "../../../gen/accounts/v1/images_pb.js";
import { scopeOf } from "../../../lib/access.js";
import type { Knex } from "../../../lib/db.js";
import { rowId } from "../../../lib/ids.js";
import type { Emit } from "../../../lib/storage.js";
import type { AccountsKit } from "../kit.js";
import { memberWorkspaceScope } from "../access.js";
import { imageNotFound, userDataMissing } from "../errors.js";
import { memberWorkspace } from "../workspaces/store.js";
import { workspaceEvent } from "../workspaces/view.js";
import { typeOfContent, uploadedImage, type ImageType } from "./rules.js";
import { blobKey, emailOf, imageByKey, imageForChange, setImage, setLogoUrl, type ImageOwner, type ImageRow } from "./store.js";

/** Bytes per streamed chunk of an image. */
const CHUNK = 64 * 1024;

/** Images: the caller's avatar and workspaces' logos, kept in the blob store, served by key. */
export function imageHandlers({ storage, clock, blobs, publicUrl, log }: AccountsKit) {
  const { db } = storage;
  const urlOf = (key: string, type: ImageType) => `${publicUrl}/api/v9/images/${key}.${type.extension}`;

  /**
   * Replaces the owner's image: the new blob first (under a new random key), then the row in
   * `change` (with what else the change does), then the old blob. A failed change leaves no blob.
   */
  async function replace(kind: ImageOwner, ownerId: bigint, next: { data: Uint8Array; type: ImageType } | "gravatar" | undefined, also?: (trx: Knex.Transaction, url: string, emit: Emit) => Promise<void>): Promise<string> {
    const key = next && next !== "gravatar" ? randomBytes(16).toString("hex") : undefined;
    if (key && next && next !== "gravatar") await blobs.put(blobKey(key), next.data);
    let previous: ImageRow | undefined;
    try {
      const url = key && next && next !== "gravatar" ? urlOf(key, next.type) : "";
      await storage.change(async (trx, emit) => {
        previous = await imageForChange(trx, kind, ownerId);
        const now = clock.now();
        if (next === undefined) await setImage(trx, kind, ownerId, undefined);
        else if (next === "gravatar") await setImage(trx, kind, ownerId, { image_key: null, content_type: null, byte_size: 0, gravatar: true, updated_at: now });
        else await setImage(trx, kind, ownerId, { image_key: key!, content_type: next.type.contentType, byte_size: next.data.length, gravatar: false, updated_at: now });
        await also?.(trx, url, emit);
      });
      if (previous?.image_key) await blobs.delete(blobKey(previous.image_key)).catch((err) => log.warn({ err }, "images: an old image's blob stays"));
      return url;
    } catch (err) {
      if (key) await blobs.delete(blobKey(key)).catch(() => undefined);
      throw err;
    }
  }

  function avatarAnswer(url: string, type: ImageType | undefined, name: string): JsonObject {
    return { avatar_urls: { original: url }, fileType: type?.contentType ?? "", name };
  }

  /** The workspace's logo is the workspace's `logo_url` (what its answers show); a change is a `workspace updated` event. */
  async function setLogo(ctx: HandlerContext, next: { data: Uint8Array; type: ImageType } | undefined): Promise<string> {
    const scope = memberWorkspaceScope(ctx);
    const workspaceId = scope.seen.workspace.id;
    return replace("logo", workspaceId, next, async (trx, url, emit) => {
      await setLogoUrl(trx, workspaceId, url, clock.now());
      const seen = await memberWorkspace(trx, scope.user, workspaceId);
      if (seen) await emit(workspaceEvent("updated", seen, scope.userId));
    });
  }

  async function* imageBytes(imageKey: string, extension: string) {
    const row = /^[0-9a-f]{32}$/.test(imageKey) ? await imageByKey(db, imageKey) : undefined;
    const type = row?.content_type ? typeOfContent(row.content_type) : undefined;
    if (!row?.image_key || type?.extension !== extension) throw imageNotFound();
    const data = await blobs.get(blobKey(row.image_key));
    if (!data) throw imageNotFound();
    for (let at = 0; at < data.length; at += CHUNK) yield { data: data.subarray(at, at + CHUNK) };
  }

  return (router: ConnectRouter) => {
    router.service(ImageService, {
      async uploadAvatar(req, ctx) {
        const user = rowId(scopeOf<bigint>(ctx))!;
        const image = uploadedImage(req.file);
        const url = await replace("avatar", user, image);
        return { avatar: avatarAnswer(url, image.type, url.slice(url.lastIndexOf("/") + 1)) };
      },

      async deleteAvatar(_req, ctx) {
        await replace("avatar", rowId(scopeOf<bigint>(ctx))!, undefined);
        return {};
      },

      async useGravatar(_req, ctx) {
        const user = rowId(scopeOf<bigint>(ctx))!;
        const email = await emailOf(db, user);
        if (!email) throw userDataMissing();
        await replace("avatar", user, "gravatar");
        // Gravatar's address of the e-mail (nothing is fetched: Gravatar answers its default image for an unknown one).
        const url = `https://www.gravatar.com/avatar/${createHash("md5").update(email.trim().toLowerCase()).digest("hex")}`;
        return { avatar: avatarAnswer(url, undefined, "gravatar") };
      },

      async getWorkspaceLogo(_req, ctx) {
        return { logo: memberWorkspaceScope(ctx).seen.workspace.logo_url };
      },

      async setWorkspaceLogo(req, ctx) {
        const image = uploadedImage(req.file);
        return { logo: await setLogo(ctx, image) };
      },

      async deleteWorkspaceLogo(_req, ctx) {
        return { logo: await setLogo(ctx, undefined) };
      },

      getPngImage: (req) => imageBytes(req.imageKey, "png"),
      getJpegImage: (req) => imageBytes(req.imageKey, "jpg"),
      getGifImage: (req) => imageBytes(req.imageKey, "gif"),
      getWebpImage: (req) => imageBytes(req.imageKey, "webp"),
    });
  };
}
