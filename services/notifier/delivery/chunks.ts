/** Rows per INSERT statement, well under the engines' limits on bound values. */
const INSERT_CHUNK = 400;

/** The rows in slices of one INSERT statement each. */
export function insertChunks<T>(rows: T[]): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) chunks.push(rows.slice(i, i + INSERT_CHUNK));
  return chunks;
}
