import { Busboy, type BusboyFileStream, type BusboyInstance } from "@fastify/busboy";
import type { UploadRoute } from "./routes.js";

/**
 * The `multipart/form-data` bodies of upload routes (a route's `multipart_file`), read with
 * busboy: the declared part's bytes, nothing else kept. The gateway hands the parser the whole
 * body (at most its body limit), so a form always ends here, parsed or refused, never waiting.
 */

/** The media type of a form upload. */
export const MULTIPART_FORM = "multipart/form-data";

/** The answer to a form busboy cannot read: no boundary, another boundary, cut short (400). */
export const MALFORMED_FORM_MESSAGE = "Invalid multipart/form-data body";
/** The answer to a form with more than one part carrying a file (400). */
export const TOO_MANY_FILES_MESSAGE = "Only one file may be uploaded";

/** A form upload's request body: the declared part's bytes, or undefined when the form has none. */
export class FormUpload {
  constructor(readonly file: Uint8Array | undefined) {}
}

/** A form the gateway refuses (400, the family's error format by the gateway's error handler). */
export class FormRefused extends Error {
  readonly statusCode = 400;
}

/**
 * Reads the form: the part named as the route's field is the file, whether or not it carries a
 * file name (curl's `-F file=<image.png` sends none). Of it the gateway keeps one byte more than
 * the field's declared limit, so that the service answers a longer file with the field's own 400,
 * the same as for a base64 one. Other text parts are ignored; a second part carrying a file is
 * refused.
 */
export function readFormUpload(body: Buffer, contentType: string, upload: UploadRoute): Promise<FormUpload> {
  const name = upload.field.name;
  return new Promise((resolve, reject) => {
    let form: BusboyInstance;
    try {
      form = Busboy({
        headers: { "content-type": contentType },
        limits: { files: 1, fileSize: upload.maxBytes + 1 },
        isPartAFile: (field: string | undefined, _type: string | undefined, fileName: string | undefined) => fileName !== undefined || field === name,
      });
    } catch {
      return reject(new FormRefused(MALFORMED_FORM_MESSAGE));
    }
    const chunks: Buffer[] = [];
    let found = false;
    let settled = false;
    const refuse = (message: string) => {
      if (!settled) reject(new FormRefused(message));
      settled = true;
    };
    form.on("file", (field: string, stream: BusboyFileStream) => {
      // A part cut short fails its own stream too: unheard, that error would end the process.
      stream.on("error", () => refuse(MALFORMED_FORM_MESSAGE));
      if (field !== name) return stream.resume();
      found = true;
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    });
    form.on("filesLimit", () => refuse(TOO_MANY_FILES_MESSAGE));
    form.on("error", () => refuse(MALFORMED_FORM_MESSAGE));
    form.on("finish", () => {
      if (!settled) resolve(new FormUpload(found ? Buffer.concat(chunks) : undefined));
      settled = true;
    });
    form.end(body);
  });
}
