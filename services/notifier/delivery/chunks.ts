import { chunks } from "../../../lib/chunks.js";

/** Rows per INSERT statement, well under the engines' limits on bound values. */
const INSERT_CHUNK = 400;

/** The rows in slices of one INSERT statement each. */
export const insertChunks = <T>(rows: T[]): T[][] => chunks(rows, INSERT_CHUNK);
