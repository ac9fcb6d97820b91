import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { env, SELF } from "cloudflare:test";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { signIn } from "../helpers";
import type { UserRow } from "../../../db/schema";
import { expectConsoleError } from "../../setup/fail-on-console-error";
import { OFFLINE_MODEL_NAME } from "~/.server/ai/registry";
import { usagePeriod } from "~/.server/billing/usage";
import { getLoadContext } from "~/.server/context";
import { deleteAccount, exportAccountData } from "~/.server/library/account";
import { OFFLINE_ANALYSIS_NOTE } from "~/.server/fulltext/extractive-analysis";
import type { NormalisedStudy } from "~/.server/search/types";
import { ANALYSIS_FAILED_MESSAGE, analyzeStudyFullText } from "~/.server/fulltext/study-analysis";
import { upsertStudies } from "~/.server/studies/persist";

const BASE = "https://metamind.test";

/**
 * Real PDFs from ../shared/pdfs, inlined by Vite as data: URLs at transform time (workerd has no
 * file system). Empty when ../shared is absent; those tests skip.
 */
const pdfs = import.meta.glob(
  [
    "../../../../shared/pdfs/rct_bmj2015_physical_activity_smoking_cessation_pregnancy.pdf",
    "../../../../shared/pdfs/bad_scanned_image_only_conference_paper.pdf",
  ],
  { query: "?inline", import: "default", eager: true },
) as Record<string, string>;
function pdfBytes(name: string): Uint8Array | null {
  const url = pdfs[`../../../../shared/pdfs/${name}`];
  if (!url) return null;
  const binary = atob(url.slice(url.indexOf(",") + 1));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
const BMJ = pdfBytes("rct_bmj2015_physical_activity_smoking_cessation_pregnancy.pdf");
const SCANNED = pdfBytes("bad_scanned_image_only_conference_paper.pdf");
const MISSING_PDFS = "skipped: ../shared/pdfs not found (the real PDFs live outside the repo)";

const ARTICLE_HTML = `<!DOCTYPE html><html><head><title>Trial</title><script>track()</script></head><body>
<nav>Journals Sign in Subscribe</nav><article><h1>Walking and blood pressure: a randomised trial</h1>
<h2>Abstract</h2><p>We aimed to test whether daily walking lowers blood pressure in adults with hypertension.</p>
<h2>Methods</h2><p>We randomly assigned 412 adults aged 40 to 75 years with stage 1 hypertension to a walking programme or usual care for 12 months.</p>
<p>The primary outcome was the change in systolic blood pressure measured by a blinded nurse at 12 months.</p>
<h2>Results</h2><p>Systolic blood pressure fell by 6.1 mm Hg more with walking than with usual care (95% CI 3.2 to 9.0; P&lt;0.001).</p>
<p>Adverse events were minor and similar between groups, mostly muscle soreness in 8% of walkers.</p>
${Array.from({ length: 14 }, (_, i) => `<p>Secondary analysis ${i + 1} examined adherence to the walking programme and the blood pressure response across subgroups of participants.</p>`).join("\n")}
<h2>Discussion</h2><p>A limitation of this trial is that participants were not blinded to the walking programme, which may have introduced bias.</p>
<h2>Conclusions</h2><p>A daily walking programme lowered systolic blood pressure in adults with stage 1 hypertension.</p>
</article><footer>© Journal</footer></body></html>`;

const POISON_HTML = ARTICLE_HTML.replace(
  "A daily walking programme lowered systolic blood pressure",
  "A daily walking programme cures hypertension in every patient, and medication should be stopped",
);

const OA = {
  /** A page anyone can put up: not the study's open-access location. */
  poison: "https://attacker.example.net/walking-trial",
  /** The location Unpaywall resolves for the DOIs 10.1000/walking-N (see publishers()). */
  resolved: "https://repository.example.edu/walking/fulltext",
  pdf: "https://oa.example.org/bmj.h2145.full.pdf",
  html: "https://oa.example.org/articles/walking",
  refused: "https://publisher.example.com/doi/pdf/10.1000/paywalled",
  scanned: "https://oa.example.org/scanned.pdf",
};

/** The publishers: every outbound fetch of the Worker lands here (Responses built per call). */
function publishers(input: RequestInfo | URL): Promise<Response> {
  const url = String(input instanceof Request ? input.url : input).split("#")[0]!;
  if (url === OA.pdf && BMJ)
    return Promise.resolve(new Response(BMJ.slice(), { headers: { "Content-Type": "application/pdf" } }));
  if (url === OA.scanned && SCANNED)
    return Promise.resolve(new Response(SCANNED.slice(), { headers: { "Content-Type": "application/pdf" } }));
  if (url === OA.html || url === OA.resolved)
    return Promise.resolve(new Response(ARTICLE_HTML, { headers: { "Content-Type": "text/html; charset=utf-8" } }));
  if (url === OA.poison)
    return Promise.resolve(new Response(POISON_HTML, { headers: { "Content-Type": "text/html; charset=utf-8" } }));
  if (/^https:\/\/api\.unpaywall\.org\/v2\/10\.1000\/walking-\d+\?/.test(url)) {
    const answer = {
      is_oa: true,
      best_oa_location: { url: OA.resolved, url_for_pdf: null, url_for_landing_page: OA.resolved },
      oa_locations: [{ host_type: "repository" }],
    };
    return Promise.resolve(Response.json(answer));
  }
  if (url === OA.refused)
    return Promise.resolve(
      new Response("<h1>Access denied</h1>", { status: 403, headers: { "Content-Type": "text/html" } }),
    );
  return Promise.reject(new Error(`unexpected outbound fetch ${url}`));
}

async function insertStudy(openAccessUrl: string | null, doi: string | null = null): Promise<number> {
  const row = await env.DB.prepare(
    `INSERT INTO studies (title_key, title, abstract, authors, source, source_id, study_type, publication_types, is_open_access, open_access_url, doi)
     VALUES (?, ?, ?, '[]', 'pubmed', ?, 'Clinical Trial', '[]', ?, ?, ?) RETURNING id`,
  )
    .bind(
      `ft ${crypto.randomUUID()}`,
      "Physical activity for smoking cessation in pregnancy",
      "An abstract of the trial.",
      crypto.randomUUID(),
      openAccessUrl ? 1 : 0,
      openAccessUrl,
      doi,
    )
    .first<{ id: number }>();
  return row!.id;
}

const analyze = (id: number | string, cookie: string | null, body?: unknown) =>
  SELF.fetch(`${BASE}/api/studies/${id}/analyze-fulltext`, {
    method: "POST",
    headers: { Origin: BASE, "Content-Type": "application/json", ...(cookie ? { Cookie: cookie } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function readAll(response: Response): Promise<{ reads: string[]; error?: unknown }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const reads: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { reads };
      reads.push(value);
    }
  } catch (error) {
    return { reads, error };
  }
}

async function storedRows(studyId: number) {
  const { results } = await env.DB.prepare(
    "SELECT feature, model, content, citations FROM ai_summaries WHERE study_id = ? AND feature = 'fulltext'",
  )
    .bind(studyId)
    .all<{ feature: string; model: string; content: string; citations: string | null }>();
  return results;
}

async function usageCount(userId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count FROM ai_usage WHERE user_id = ? AND period = ?")
    .bind(userId, usagePeriod(new Date()))
    .first<{ count: number }>();
  return row?.count ?? 0;
}

let spy: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  spy = vi.spyOn(globalThis, "fetch").mockImplementation(publishers as typeof fetch);
});
afterEach(() => spy.mockRestore());

describe("POST /api/studies/{id}/analyze-fulltext: validation and plans", () => {
  let pro: { cookie: string; userId: string };
  let free: { cookie: string; userId: string };
  beforeAll(async () => {
    pro = await signIn("pro@metamind.local");
    free = await signIn("free@metamind.local");
  });

  it("400 for a malformed id, 404 for an unknown study, 400 INVALID_INPUT for a bad URL", async () => {
    expect((await analyze("abc", pro.cookie, {})).status).toBe(400);
    const missing = await analyze(99_999_999, pro.cookie, {});
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: "STUDY_NOT_FOUND" });
    const id = await insertStudy(OA.html);
    const bad = await analyze(id, pro.cookie, { openAccessUrl: "not a url" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "INVALID_INPUT" });
    expect(spy).not.toHaveBeenCalled();
  });

  it("400 NO_OPEN_ACCESS when neither the body nor the study has a URL (nothing counted)", async () => {
    const id = await insertStudy(null);
    const before = await usageCount(pro.userId);
    const res = await analyze(id, pro.cookie, {});
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "NO_OPEN_ACCESS", message: "This study has no open access full text" });
    expect(await usageCount(pro.userId)).toBe(before);
    expect(spy).not.toHaveBeenCalled();
  });

  it("403 PRO_REQUIRED for a Free user and for a guest, before anything is fetched", async () => {
    const id = await insertStudy(OA.html);
    for (const cookie of [free.cookie, null]) {
      const res = await analyze(id, cookie, {});
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: "PRO_REQUIRED", feature: "full_text_analysis" });
    }
    expect(spy).not.toHaveBeenCalled();
    expect(await storedRows(id)).toEqual([]);
  });

  it("a publisher's 403 → 422 'Analysis failed' with the SPEC message and the reason; nothing stored or counted", async () => {
    const id = await insertStudy(OA.refused);
    const before = await usageCount(pro.userId);
    const res = await analyze(id, pro.cookie, {});
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      error: "ANALYSIS_FAILED",
      title: "Analysis failed",
      message:
        "Some publishers restrict automated access. Try a different open access paper or this paper may require institutional access.",
      reason: "The publisher refused automated access (HTTP 403).",
      reasonCode: "REFUSED",
    });
    expect(ANALYSIS_FAILED_MESSAGE).toBe(
      "Some publishers restrict automated access. Try a different open access paper or this paper may require institutional access.",
    );
    expect(await storedRows(id)).toEqual([]);
    expect(await usageCount(pro.userId)).toBe(before);
  });

  it("a private address → 422 with reasonCode BAD_URL and no outbound fetch", async () => {
    const id = await insertStudy(null);
    const res = await analyze(id, pro.cookie, { openAccessUrl: "http://169.254.169.254/latest/meta-data/" });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: "ANALYSIS_FAILED", reasonCode: "BAD_URL" });
    expect(spy).not.toHaveBeenCalled();
  });

  it("GET /api/studies/{id}/fulltext-analysis: 404 STUDY_NOT_FOUND; 200 with null for a study not yet analysed", async () => {
    const unknown = await SELF.fetch(`${BASE}/api/studies/99999998/fulltext-analysis`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: "STUDY_NOT_FOUND" });
    const id = await insertStudy(OA.html);
    const res = await SELF.fetch(`${BASE}/api/studies/${id}/fulltext-analysis`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ fullTextAnalysis: null, model: null, citations: [], updatedAt: null });
  });
});

describe("POST /api/studies/{id}/analyze-fulltext: a Professional user's analysis", () => {
  let pro: { cookie: string; userId: string };
  beforeAll(async () => {
    pro = await signIn("pro@metamind.local");
  });

  it("an HTML full text given in the body streams, is stored with citations, and GET returns it", async () => {
    const id = await insertStudy(null);
    const before = await usageCount(pro.userId);
    const res = await analyze(id, pro.cookie, { openAccessUrl: OA.html });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/plain/);
    expect(decodeURIComponent(res.headers.get("X-Model-Name")!)).toBe(OFFLINE_MODEL_NAME);
    expect(res.headers.get("X-Full-Text-Kind")).toBe("html");
    expect(decodeURIComponent(res.headers.get("X-Full-Text-Url")!)).toBe(OA.html);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const { reads, error } = await readAll(res);
    expect(error).toBeUndefined();
    const text = reads.join("");
    expect(text.startsWith(OFFLINE_ANALYSIS_NOTE)).toBe(true);
    expect(text).toContain("### Objective\nWe aimed to test whether daily walking lowers blood pressure");
    expect(text).toContain("(95% CI 3.2 to 9.0; P<0.001)");
    expect(text).not.toMatch(/track\(\)|Sign in|© Journal/);

    const [row] = await storedRows(id);
    expect(row).toMatchObject({ feature: "fulltext", model: OFFLINE_MODEL_NAME });
    expect(row!.content).toContain("### Conclusion\nA daily walking programme lowered systolic blood pressure");
    const citations = JSON.parse(row!.citations!) as { id: string; quote: string }[];
    expect(citations.length).toBeGreaterThan(4);
    expect(citations.every((c) => row!.content.includes(c.quote))).toBe(true);

    // The study has no open-access location of its own, so the analysis of the URL in the body
    // belongs to the Professional user who asked for it.
    expect(res.headers.get("X-Full-Text-Visibility")).toBe("private");
    const own = { headers: { Cookie: pro.cookie } };
    const study = (await (await SELF.fetch(`${BASE}/api/studies/${id}`, own)).json()) as {
      fullTextAnalysis: string | null;
    };
    expect(study.fullTextAnalysis).toBe(row!.content);
    const stored = (await (await SELF.fetch(`${BASE}/api/studies/${id}/fulltext-analysis`, own)).json()) as Record<
      string,
      unknown
    >;
    expect(stored).toMatchObject({
      fullTextAnalysis: row!.content,
      model: OFFLINE_MODEL_NAME,
      sourceUrl: OA.html,
      visibility: "private",
    });
    expect((stored.citations as unknown[]).length).toBe(citations.length);
    expect(await usageCount(pro.userId)).toBe(before + 1);
  });

  const pdfIt = BMJ ? it : it.skip;
  pdfIt(
    BMJ
      ? "the study's own open-access PDF (real BMJ trial) is read with unpdf in workerd and analysed"
      : `real PDF — ${MISSING_PDFS}`,
    async () => {
      const id = await insertStudy(OA.pdf);
      const res = await analyze(id, pro.cookie);
      expect(res.status).toBe(200);
      expect(res.headers.get("X-Full-Text-Kind")).toBe("pdf");
      expect(res.headers.get("X-Full-Text-Pages")).toBe("10");
      const text = (await readAll(res)).reads.join("");
      expect(text).toContain(
        "### Objective\nTo determine the effectiveness of a physical activity intervention for smoking cessation during pregnancy.",
      );
      expect(text).toContain("odds ratio 1.21, 95% confidence interval 0.70 to 2.10");
      const study = (await (await SELF.fetch(`${BASE}/api/studies/${id}`)).json()) as {
        fullTextAnalysis: string | null;
      };
      expect(study.fullTextAnalysis).toContain("### Outcomes & Effect Sizes");
    },
    30_000,
  );

  const scannedIt = SCANNED ? it : it.skip;
  scannedIt(
    SCANNED ? "a scanned PDF → 422 with reasonCode NO_TEXT_LAYER" : `scanned PDF — ${MISSING_PDFS}`,
    async () => {
      const id = await insertStudy(OA.scanned);
      const res = await analyze(id, pro.cookie, {});
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({
        error: "ANALYSIS_FAILED",
        reason: "This PDF has no text layer (scanned images)",
        reasonCode: "NO_TEXT_LAYER",
      });
    },
  );
});

describe("analyzeStudyFullText with a failing model", () => {
  it("stores nothing and gives the reserved use back when the model fails mid-stream", async () => {
    expectConsoleError();
    const pending: Promise<unknown>[] = [];
    const app = getLoadContext(env as never, { waitUntil: (p) => void pending.push(p) }).app;
    const user = (await env.DB.prepare("SELECT * FROM users WHERE email = 'pro@metamind.local'").first<{
      id: string;
    }>())!;
    const proUser = { id: user.id, plan: "pro" } as UserRow;
    const before = await usageCount(user.id);
    const id = await insertStudy(OA.html);
    const parts: LanguageModelV4StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "### Objective\n" },
      { type: "error", error: new Error("upstream 500") },
    ];
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: 5 }) }),
    });
    const response = await analyzeStudyFullText(app, {
      studyId: id,
      body: {},
      model: { model, name: "mock-failing" },
      meter: { user: proUser, request: new Request(BASE) },
    });
    expect(response.status).toBe(200);
    const { error } = await readAll(response);
    expect(error).toBeDefined();
    await Promise.all(pending);
    expect(await storedRows(id)).toEqual([]);
    expect(await usageCount(user.id)).toBe(before);
  });
});

describe("full-text analysis provenance: only the study's own open-access location is public", () => {
  let pro: { cookie: string; userId: string };
  let free: { cookie: string; userId: string };
  beforeAll(async () => {
    pro = await signIn("pro@metamind.local");
    free = await signIn("free@metamind.local");
  });

  const getAnalysis = (id: number, cookie: string | null) =>
    SELF.fetch(`${BASE}/api/studies/${id}/fulltext-analysis`, { headers: cookie ? { Cookie: cookie } : {} });
  const getStudyAs = async (id: number, cookie: string | null) =>
    (await (await SELF.fetch(`${BASE}/api/studies/${id}`, { headers: cookie ? { Cookie: cookie } : {} })).json()) as {
      fullTextAnalysis: string | null;
    };

  /** Runs one analysis through the API and returns its visibility header and stored text. */
  async function analyse(id: number, body?: unknown) {
    const res = await analyze(id, pro.cookie, body);
    expect(res.status).toBe(200);
    const text = (await readAll(res)).reads.join("");
    return { visibility: res.headers.get("X-Full-Text-Visibility"), text };
  }

  it("an analysis of an arbitrary URL is seen by its Professional author only, not by guests or other users", async () => {
    const id = await insertStudy(OA.html);
    const poisoned = await analyse(id, { openAccessUrl: OA.poison });
    expect(poisoned.visibility).toBe("private");
    expect(poisoned.text).toContain("cures hypertension");

    for (const viewer of [null, free.cookie]) {
      const res = await getAnalysis(id, viewer);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ fullTextAnalysis: null, model: null, citations: [], updatedAt: null });
      expect((await getStudyAs(id, viewer)).fullTextAnalysis).toBeNull();
    }
    const mine = await getAnalysis(id, pro.cookie);
    expect(mine.status).toBe(200);
    expect(await mine.json()).toMatchObject({ sourceUrl: OA.poison, visibility: "private" });
    expect((await getStudyAs(id, pro.cookie)).fullTextAnalysis).toContain("cures hypertension");

    const { results } = await env.DB.prepare(
      "SELECT owner_id, source_url FROM ai_summaries WHERE study_id = ? AND feature = 'fulltext'",
    )
      .bind(id)
      .all<{ owner_id: string; source_url: string }>();
    expect(results).toEqual([{ owner_id: pro.userId, source_url: OA.poison }]);
  });

  it("search results carry only the analyses their viewer may see", async () => {
    const record: NormalisedStudy = {
      source: "pubmed",
      sourceId: crypto.randomUUID(),
      title: `Walking and blood pressure provenance ${crypto.randomUUID()}`,
      abstract: "An abstract.",
      authors: [],
      journal: null,
      publicationDate: "2020-01-01",
      pmid: null,
      pmcid: null,
      doi: null,
      studyType: "Clinical Trial",
      publicationTypes: [],
      fullTextAvailable: true,
      isOpenAccess: true,
      openAccessUrl: OA.html,
      citationCount: null,
      impactFactor: null,
      url: null,
    };
    const [stored] = await upsertStudies(env.DB, [record]);
    await analyse(stored!.row.id, { openAccessUrl: OA.poison });

    const [asGuest] = await upsertStudies(env.DB, [record]);
    const [asOther] = await upsertStudies(env.DB, [record], { viewerId: free.userId });
    const [asAuthor] = await upsertStudies(env.DB, [record], { viewerId: pro.userId });
    expect(asGuest!.fullTextAnalysis).toBeNull();
    expect(asOther!.fullTextAnalysis).toBeNull();
    expect(asAuthor!.fullTextAnalysis).toContain("cures hypertension");

    await analyse(stored!.row.id);
    const [publicForGuest] = await upsertStudies(env.DB, [record]);
    expect(publicForGuest!.fullTextAnalysis).toContain("lowered systolic blood pressure");
    expect(publicForGuest!.fullTextAnalysis).not.toContain("cures hypertension");
  });

  it("an analysis of the study's own location (stored, or named in the body) is visible to everyone", async () => {
    const id = await insertStudy(OA.html);
    expect((await analyse(id)).visibility).toBe("public");
    for (const viewer of [null, free.cookie, pro.cookie]) {
      const res = await getAnalysis(id, viewer);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ sourceUrl: OA.html, visibility: "public" });
      expect((await getStudyAs(id, viewer)).fullTextAnalysis).toContain("lowered systolic blood pressure");
    }
    const other = await insertStudy(OA.html);
    expect((await analyse(other, { openAccessUrl: `${OA.html}#results` })).visibility).toBe("public");
    expect((await getAnalysis(other, null)).status).toBe(200);
  });

  it("the location Unpaywall resolves for the study's DOI counts as its own; the author still sees a newer private one", async () => {
    const id = await insertStudy(null, "10.1000/walking-1");
    expect((await analyse(id, { openAccessUrl: OA.resolved })).visibility).toBe("public");
    const guest = await getAnalysis(id, null);
    expect(await guest.json()).toMatchObject({ sourceUrl: OA.resolved, visibility: "public" });

    expect((await analyse(id, { openAccessUrl: OA.poison })).visibility).toBe("private");
    expect(await (await getAnalysis(id, pro.cookie)).json()).toMatchObject({
      sourceUrl: OA.poison,
      visibility: "private",
    });
    expect(await (await getAnalysis(id, null)).json()).toMatchObject({ sourceUrl: OA.resolved, visibility: "public" });
    expect(await (await getAnalysis(id, free.cookie)).json()).toMatchObject({
      sourceUrl: OA.resolved,
      visibility: "public",
    });
  });

  it("without a URL in the body, a study with only a DOI is analysed at its resolved location", async () => {
    const id = await insertStudy(null, "10.1000/walking-2");
    const result = await analyse(id);
    expect(result.visibility).toBe("public");
    expect(await (await getAnalysis(id, null)).json()).toMatchObject({ sourceUrl: OA.resolved });
  });

  it("a user's private analyses are in their data download and go with their account", async () => {
    const userId = crypto.randomUUID();
    await env.DB.prepare("INSERT INTO users (id, email, password_hash, plan) VALUES (?, ?, 'x', 'pro')")
      .bind(userId, `ft-${userId}@metamind.test`)
      .run();
    const user = { id: userId, plan: "pro" } as UserRow;
    const pending: Promise<unknown>[] = [];
    const app = getLoadContext(env as never, { waitUntil: (p) => void pending.push(p) }).app;
    const id = await insertStudy(OA.html);
    const response = await analyzeStudyFullText(app, {
      studyId: id,
      body: { openAccessUrl: OA.poison },
      meter: { user, request: new Request(BASE) },
    });
    await readAll(response);
    await Promise.all(pending);

    const data = await exportAccountData(env, { userId, now: new Date() });
    expect(data.tables.ai_summaries).toEqual([
      expect.objectContaining({ studyId: id, ownerId: userId, sourceUrl: OA.poison }),
    ]);
    const deleted = await deleteAccount(env, { userId });
    expect(deleted.rows.ai_summaries).toBe(1);
    expect(await storedRows(id)).toEqual([]);
  });
});
