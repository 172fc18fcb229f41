import { readId } from "../../../lib/ids.js";
import type { Knex } from "../../../lib/db.js";

export type ImageOwner = "avatar" | "logo";

/** One owner's image: the blob's key and type, or an avatar taken from Gravatar. */
export interface ImageRow {
  owner_kind: ImageOwner;
  owner_id: bigint;
  image_key: string | null;
  content_type: string | null;
  byte_size: number;
  gravatar: boolean;
  updated_at: Date;
}

function read(raw: Record<string, unknown>): ImageRow {
  return {
    owner_kind: String(raw.owner_kind) as ImageOwner,
    owner_id: readId(raw.owner_id),
    image_key: raw.image_key === null ? null : String(raw.image_key),
    content_type: raw.content_type === null ? null : String(raw.content_type),
    byte_size: Number(raw.byte_size),
    gravatar: Boolean(raw.gravatar),
    updated_at: new Date(raw.updated_at as Date),
  };
}

/** The blob key of an image: one folder for all. */
export const blobKey = (imageKey: string) => `images/${imageKey}`;

/** The owner's image, locked for a change. */
export async function imageForChange(trx: Knex.Transaction, kind: ImageOwner, ownerId: bigint): Promise<ImageRow | undefined> {
  const raw = await trx("images").where({ owner_kind: kind, owner_id: ownerId }).first().forUpdate();
  return raw ? read(raw) : undefined;
}

export async function imageByKey(db: Knex, imageKey: string): Promise<ImageRow | undefined> {
  const raw = await db("images").where({ image_key: imageKey }).first();
  return raw ? read(raw) : undefined;
}

/** Sets the owner's image (replacing the row), or removes it with `undefined`. */
export async function setImage(trx: Knex.Transaction, kind: ImageOwner, ownerId: bigint, image: Omit<ImageRow, "owner_kind" | "owner_id"> | undefined): Promise<void> {
  await trx("images").where({ owner_kind: kind, owner_id: ownerId }).delete();
  if (image) await trx("images").insert({ owner_kind: kind, owner_id: ownerId, ...image });
}

export async function emailOf(db: Knex, userId: bigint): Promise<string | undefined> {
  const raw = await db("users").where({ id: userId }).first("email");
  return raw ? String(raw.email) : undefined;
}

export async function setLogoUrl(trx: Knex.Transaction, workspaceId: bigint, url: string, now: Date): Promise<void> {
  await trx("workspaces").where({ id: workspaceId }).update({ logo_url: url, updated_at: now });
}
