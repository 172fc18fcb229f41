import t from "tap";
import { createRequire } from "node:module";

/**
 * Resources are boundaries: no module imports itself back through others, type-only imports
 * included, anywhere outside the generated code. Checked by madge over the TypeScript sources (it
 * resolves the `.js` specifiers to their `.ts` files through tsconfig.json).
 */

type Madge = (paths: string[], config: object) => Promise<{ circular(): string[][]; obj(): Record<string, string[]> }>;
const madge = createRequire(import.meta.url)("madge") as Madge;

t.test("no import cycle outside gen/", async (t) => {
  const graph = await madge(["lib", "gateway", "services", "cmd", "bench", "test", "deploy"], {
    fileExtensions: ["ts"],
    tsConfig: "tsconfig.json",
    excludeRegExp: [/^gen\//, /node_modules/],
  });
  t.ok(Object.keys(graph.obj()).length > 200, "the sources were read");
  t.same(graph.circular().map((cycle) => cycle.join(" > ")), []);
});
