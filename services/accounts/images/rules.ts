import { declaredMaxLength } from "../../../lib/field-limits.js";
import { UploadAvatarRequestSchema } from "../../../gen/accounts/v1/images_pb.js";
import { imageInvalidType, imageMissing } from "../errors.js";

/** The largest image kept, in bytes: what the contract declares for `file` (checked before any handler). */
export const MAX_IMAGE_BYTES = declaredMaxLength(UploadAvatarRequestSchema.field.file);

export interface ImageType {
  contentType: string;
  extension: string;
}

/** The types kept, each told by its first bytes. */
export const IMAGE_TYPES = {
  png: { contentType: "image/png", extension: "png" },
  jpeg: { contentType: "image/jpeg", extension: "jpg" },
  gif: { contentType: "image/gif", extension: "gif" },
  webp: { contentType: "image/webp", extension: "webp" },
} as const satisfies Record<string, ImageType>;

const startsWith = (data: Uint8Array, bytes: readonly number[], at = 0) => bytes.every((b, i) => data[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** The image's type by its magic bytes, or undefined for anything else. */
export function sniffImage(data: Uint8Array): ImageType | undefined {
  if (startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return IMAGE_TYPES.png;
  if (startsWith(data, [0xff, 0xd8, 0xff])) return IMAGE_TYPES.jpeg;
  if (startsWith(data, ascii("GIF87a")) || startsWith(data, ascii("GIF89a"))) return IMAGE_TYPES.gif;
  if (startsWith(data, ascii("RIFF")) && startsWith(data, ascii("WEBP"), 8)) return IMAGE_TYPES.webp;
  return undefined;
}

export const typeOfContent = (contentType: string): ImageType | undefined => Object.values(IMAGE_TYPES).find((t) => t.contentType === contentType);

/** The uploaded image (`file`, its size already bounded by the contract) and its type by its bytes. */
export function uploadedImage(data: Uint8Array): { data: Uint8Array; type: ImageType } {
  if (data.length === 0) throw imageMissing();
  const type = sniffImage(data);
  if (!type) throw imageInvalidType();
  return { data, type };
}
