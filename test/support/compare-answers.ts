/**
 * Compares the answers two runs of the suite recorded (ANSWERS_DIR, test/support/harness.ts):
 *
 *   ANSWERS_DIR=/tmp/before npx tap services/accounts/test ...   # on one commit
 *   ANSWERS_DIR=/tmp/after npx tap services/accounts/test ...    # on the other
 *   npx tsx test/support/compare-answers.ts /tmp/before /tmp/after
 *
 * What differs from run to run whatever the code (times, the random part of the tests' emails,
 * tokens and secrets) is masked first; every other byte of a request and its answer is compared.
 * A binary answer (a ZIP, XLSX or PDF file: they carry the time they were made, and the recording
 * holds them decoded as text) is compared by its status only; the tests that read such files check
 * their contents. A request repeated at once with the same answer (a test polling for a job's state)
 * counts once: how often it polls depends on timing. Prints per test file the exchanges that match
 * and the first ones that do not.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const MASKS: [RegExp, string][] = [
  [/\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?/g, "<time>"],
  [/\b([a-z]+\d*)\.([0-9a-f]{6,}|\d{13})\b/gi, "$1.<random>"],
  [/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>"],
  [/"file":"[^"]*"/g, '"file":"<random image>"'],
  // Files the tests make and upload (imports' ZIPs carry the time they were made).
  [/"content":"[A-Za-z0-9+/=]{40,}"/g, '"content":"<file>"'],
  [/\b[0-9a-f]{32,}\.(png|jpg|gif|webp)\b/g, "<hex>.<image>"],
  [/\b[0-9a-f]{32,}\b/g, "<hex>"],
  [/[A-Za-z0-9_-]{32,}/g, "<token>"],
];

const mask = (line: string) => MASKS.reduce((text, [pattern, by]) => text.replace(pattern, by), line);

const REQUEST = /^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \//;
const STATUS = /^\d{3} /;
const BINARY = /^(\d{3}) (PK\u0003\u0004|%PDF-)/;

/**
 * A file's exchanges: each request with its answer. Either may span lines (a raw body, a CSV or a
 * file): a request starts at a method and a path, its answer at the status after it.
 */
function exchanges(file: string): string[] {
  const out: string[] = [];
  let request: string[] = [];
  let answer: string[] | undefined;
  const flush = () => {
    if (!answer) return;
    const text = answer.join("\n");
    const binary = BINARY.exec(text);
    const exchange = `${mask(request.join("\n"))}\n${binary ? `${binary[1]} <binary>` : mask(text)}`;
    if (exchange !== out.at(-1)) out.push(exchange);
  };
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (REQUEST.test(line) && (answer || request.length === 0)) {
      flush();
      request = [line];
      answer = undefined;
    } else if (!answer && STATUS.test(line)) answer = [line];
    else (answer ?? request).push(line);
  }
  flush();
  return out;
}

const [before, after] = process.argv.slice(2);
if (!before || !after) throw new Error("usage: compare-answers.ts <before dir> <after dir>");
let same = 0;
let total = 0;
for (const name of readdirSync(before).sort()) {
  const a = exchanges(join(before, name));
  let b: string[];
  try {
    b = exchanges(join(after, name));
  } catch {
    console.log(`${name}: missing after`);
    continue;
  }
  // Compared as multisets: tests that run requests concurrently record them in either order.
  const left = new Map<string, number>();
  for (const x of a) left.set(x, (left.get(x) ?? 0) + 1);
  const unmatched: string[] = [];
  for (const x of b) {
    const n = left.get(x) ?? 0;
    if (n > 0) left.set(x, n - 1);
    else unmatched.push(x);
  }
  const matched = b.length - unmatched.length;
  same += matched;
  total += Math.max(a.length, b.length);
  if (unmatched.length === 0 && a.length === b.length) continue;
  console.log(`${name}: ${matched} of ${a.length} before / ${b.length} after identical`);
  const missing = [...left].filter(([, n]) => n > 0).map(([x]) => x);
  for (const x of missing.slice(0, 3)) console.log(`  before only:\n    ${x.replace(/\n/g, "\n    ").slice(0, 600)}`);
  for (const x of unmatched.slice(0, 3)) console.log(`  after only:\n    ${x.replace(/\n/g, "\n    ").slice(0, 600)}`);
}
console.log(`${same} of ${total} exchanges identical`);
