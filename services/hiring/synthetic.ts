import { seededRandom } from "../../lib/seeded-random.js";

/**
 * A realistic synthetic hiring dataset in the import shapes, for demos and benchmarks:
 * openings with tests, categories per opening, tags, and candidates who took quiz (and some
 * video) tests, spread over two years, with ties in start times, some unfinished tests and
 * some demo candidates. Deterministic for a seed; candidate `i` is computed on its own so a
 * caller can produce any slice without holding the whole set.
 */

type Json = Record<string, unknown>;


const FIRST = ["Ada", "Alan", "Grace", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Frances", "Edsger", "Radia", "Tim", "Katherine", "John", "Sophie", "Mateo", "Aiko", "Nia", "Omar", "Ingrid"];
const LAST = ["Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Ritchie", "Liskov", "Thompson", "Allen", "Dijkstra", "Perlman", "Berners-Lee", "Johnson", "McCarthy", "Wilson", "Garcia", "Tanaka", "Okafor", "Haddad", "Larsen"];
const ROLES = ["Backend Developer", "Frontend Developer", "Data Engineer", "Site Reliability Engineer", "Product Designer", "QA Engineer", "Mobile Developer", "Engineering Manager", "Security Engineer", "Data Analyst"];
const TAGS = ["senior", "junior", "remote", "relocation", "referral", "strong communicator", "needs visa", "frontend", "backend", "full stack", "team lead", "part time"];
const CATEGORIES = ["Shortlist", "Maybe later", "Not a fit"];
const SOURCES = [["linkedin", "social", "spring-hiring"], ["google", "cpc", "brand"], ["newsletter", "email", "weekly"], ["", "", ""]];
const CITIES = [["Berlin", "Germany"], ["Lisbon", "Portugal"], ["Toronto", "Canada"], ["Nairobi", "Kenya"], ["Osaka", "Japan"], ["Austin", "United States"]];

const DAY = 86_400_000;
const SPAN_DAYS = 730;

export interface SyntheticOptions {
  candidates: number;
  seed: number;
  /** The dataset ends here (default: the start of the current day, UTC). */
  until?: Date;
}

export interface SyntheticCatalog {
  openings: Json[];
  categories: Json[];
  tags: Json[];
}

/** A zone-less export timestamp. */
function stamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

export class SyntheticHiring {
  readonly openingCount: number;
  private readonly prefix: string;
  private readonly start: number;

  constructor(private readonly options: SyntheticOptions) {
    this.openingCount = Math.min(40, Math.max(3, Math.ceil(options.candidates / 10_000)));
    this.prefix = `s${options.seed}`;
    const until = options.until ?? new Date(Math.floor(Date.now() / DAY) * DAY);
    this.start = until.getTime() - SPAN_DAYS * DAY;
  }

  private openingId(o: number): string {
    return `${this.prefix}-o${o}`;
  }

  catalog(): SyntheticCatalog {
    const openings: Json[] = [];
    const categories: Json[] = [];
    for (let o = 0; o < this.openingCount; o++) {
      const role = ROLES[o % ROLES.length];
      const created = this.start - (30 - o) * DAY;
      const slug = `${role.toLowerCase().replace(/\s+/g, "-")}-${this.prefix}-${o}`;
      openings.push({
        id: this.openingId(o),
        name: o < ROLES.length ? role : `${role} ${Math.floor(o / ROLES.length) + 1}`,
        slug,
        created_at: stamp(created),
        // Some older openings were published later than created, as in real exports.
        published_at: o % 7 === 3 ? stamp(created + 2 * DAY) : stamp(created),
        closed_at: o % 5 === 4 ? stamp(this.start + SPAN_DAYS * DAY - 10 * DAY) : null,
        tests: [
          { id: `${this.openingId(o)}-quiz`, name: `${role} quiz`, slug: `${slug}-quiz` },
          ...(o % 3 === 0 ? [{ id: `${this.openingId(o)}-video`, name: `${role} video interview`, slug: `${slug}-video` }] : []),
        ],
      });
      CATEGORIES.forEach((name, c) => categories.push({ id: `${this.openingId(o)}-cat${c}`, name, job_opening_id: this.openingId(o) }));
    }
    const tags = TAGS.map((name, t) => ({ id: `${this.prefix}-tag${t}`, name }));
    return { openings, categories, tags };
  }

  private quiz(opening: number, rand: () => number, startedAt: number, finished: boolean): Json {
    const questions: Json[] = [];
    const answers: Json[] = [];
    for (let q = 0; q < 4; q++) {
      const id = `${this.openingId(opening)}-q${q}`;
      const points = 1 + ((opening + q) % 3);
      questions.push({
        id,
        question_type: "single-choice",
        content: `Which statement about *topic ${q + 1}* is true?`,
        points,
        options: [0, 1, 2].map((k) => ({ id: `${id}-${k}`, content: `Option ${k + 1}`, correct: k === 0 })),
        skill: null,
      });
      const chosen = rand() < 0.65 ? 0 : 1 + Math.floor(rand() * 2);
      answers.push({ question_id: id, text_answer: "", points: chosen === 0 ? points : 0, chosen_option_ids: [`${id}-${chosen}`] });
    }
    const freeId = `${this.openingId(opening)}-q4`;
    questions.push({ id: freeId, question_type: "free-text", content: "Describe a bug you are proud of fixing.", points: 5, options: [], skill: null });
    // Free-text answers wait for a reviewer: some are not graded yet.
    answers.push({ question_id: freeId, text_answer: "A race in a cache invalidation path.", points: rand() < 0.7 ? Math.floor(rand() * 6) : null, chosen_option_ids: [] });
    const finishedAt = startedAt + (10 + Math.floor(rand() * 50)) * 60_000;
    return { type: "quiz", started_at: stamp(startedAt), finished_at: finished ? stamp(finishedAt) : null, questions, answers: finished ? answers : [], skills: [] };
  }

  private video(opening: number, rand: () => number, startedAt: number): Json {
    const id = `${this.openingId(opening)}-v0`;
    const score = Math.floor(rand() * 100);
    return {
      type: "video",
      started_at: stamp(startedAt),
      finished_at: stamp(startedAt + 15 * 60_000),
      points: 0,
      questions: [{ id, question_type: "video", content: "Introduce yourself.", points: 0, options: [], skill: "communication" }],
      answers: [{ question_id: id, text_answer: "", points: null, chosen_option_ids: [], recording_url: `https://media.example.com/rec/${this.prefix}/${opening}/${Math.floor(rand() * 1e9)}.webm` }],
      skills: [{ skill: "communication", score }],
    };
  }

  /** Candidate `i` (0-based) in the single-candidate shape plus `demo`. */
  candidate(i: number): Json {
    const rand = seededRandom((this.options.seed * 2654435761) ^ (i + 1));
    const n = this.options.candidates;
    const opening = Math.floor(rand() * this.openingCount);
    const first = FIRST[Math.floor(rand() * FIRST.length)];
    const last = LAST[Math.floor(rand() * LAST.length)];
    const demo = i % 97 === 13;
    // Spread over the span in candidate order, rounded to the minute so that ties occur.
    const startedAt = Math.floor((this.start + (i / n) * SPAN_DAYS * DAY + (rand() - 0.5) * DAY) / 60_000) * 60_000;
    const finished = demo || rand() >= 0.03;
    const tests = [this.quiz(opening, rand, startedAt, finished)];
    if (finished && opening % 3 === 0 && rand() < 0.3) tests.push(this.video(opening, rand, startedAt + 2 * 3600_000));
    const [utmSource, utmMedium, utmCampaign] = SOURCES[Math.floor(rand() * SOURCES.length)];
    const [city, country] = CITIES[Math.floor(rand() * CITIES.length)];
    const hire = rand();
    const tagIds = TAGS.map((_, t) => `${this.prefix}-tag${t}`).filter(() => rand() < 0.15);
    const category = rand();
    return {
      id: `${this.prefix}-c${String(i).padStart(7, "0")}`,
      name: demo ? "Demo Candidate" : rand() < 0.03 ? "" : `${first} ${last}`,
      email: demo ? `demo+${i}@example.com` : `${first}.${last}.${i}@example.com`.toLowerCase(),
      profile_url: rand() < 0.3 ? `https://github.com/${first.toLowerCase()}${i}` : "",
      contact_info: finished && rand() < 0.8
        ? { full_name: `${first} ${last}`, contact_email: `${first.toLowerCase()}@mail.example.com`, network: `https://linkedin.example.com/in/${first.toLowerCase()}-${i}`, phone: `+1 555 ${String(i % 10000).padStart(4, "0")}`, city, country }
        : null,
      rating: Math.floor(rand() * 4),
      hire_state: hire < 0.7 ? "" : hire < 0.85 ? "possible-hire" : "rejected",
      category_id: category < 0.6 ? `${this.openingId(opening)}-cat${Math.floor(category * 5)}` : null,
      job_opening_id: this.openingId(opening),
      utm_source: utmSource,
      utm_medium: utmMedium,
      utm_campaign: utmCampaign,
      referrer_url: utmSource ? `https://${utmSource}.example.com/` : "",
      ip_address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      tests,
      tag_ids: tagIds,
      demo,
    };
  }

  /** Candidates `from` (inclusive) to `to` (exclusive). */
  candidates(from: number, to: number): Json[] {
    const out: Json[] = [];
    for (let i = from; i < Math.min(to, this.options.candidates); i++) out.push(this.candidate(i));
    return out;
  }
}

export interface SyntheticLoad {
  openings: number;
  categories: number;
  tags: number;
  candidates: number;
  demo: number;
  events: number;
}

/**
 * Loads a synthetic dataset through an import function (the Import RPC), the catalog first,
 * then the candidates in chunks: each chunk is one import, so memory stays flat whatever the
 * size and a failure leaves whole chunks only. `progress` hears after every chunk.
 */
export async function loadSynthetic(
  importData: (data: Json) => Promise<{ events: number }>,
  options: SyntheticOptions & { chunk: number },
  progress: (done: number, total: number) => void = () => undefined,
): Promise<SyntheticLoad> {
  const data = new SyntheticHiring(options);
  const catalog = data.catalog();
  let events = (await importData({ ...catalog })).events;
  let demo = 0;
  progress(0, options.candidates);
  for (let from = 0; from < options.candidates; from += options.chunk) {
    const candidates = data.candidates(from, from + options.chunk);
    demo += candidates.filter((c) => c.demo).length;
    events += (await importData({ candidates })).events;
    progress(Math.min(from + options.chunk, options.candidates), options.candidates);
  }
  return { openings: catalog.openings.length, categories: catalog.categories.length, tags: catalog.tags.length, candidates: options.candidates, demo, events };
}
