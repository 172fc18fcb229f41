import t from "tap";
import { createRequire } from "node:module";

/**
 * Resources are boundaries: no module imports itself back through others, type-only imports
 * included, anywhere outside the generated code. Checked by madge over the TypeScript sources (it
 * resolves the `.js` specifiers to their `.ts` files through tsconfig.json).
 */

type Madge = (paths: string[], config: object) => Promise<{ circular(): string[][]; obj(): Record<string, string[]> }>;
const madge = createRequire(import.meta.url)("madge") as Madge;

const graph = await madge(["lib", "gateway", "services", "cmd", "bench", "test", "deploy"], {
  fileExtensions: ["ts"],
  tsConfig: "tsconfig.json",
  excludeRegExp: [/^gen\//, /node_modules/],
});

t.test("no import cycle outside gen/", async (t) => {
  t.ok(Object.keys(graph.obj()).length > 200, "the sources were read");
  t.same(graph.circular().map((cycle) => cycle.join(" > ")), []);
});

t.test("a resource's handlers are composed by its service's routes.ts only (tests aside)", async (t) => {
  const handlers = /^services\/([a-z]+)\/[a-z-]+\/handlers\.ts$/;
  const wrong = Object.entries(graph.obj()).flatMap(([from, imports]) =>
    imports
      .filter((to) => handlers.test(to) && !from.includes("/test/") && from !== `services/${handlers.exec(to)![1]}/routes.ts`)
      .map((to) => `${from} imports ${to}`),
  );
  t.ok(Object.keys(graph.obj()).some((f) => handlers.test(f)), "the handlers files were found");
  t.same(wrong, []);
});
