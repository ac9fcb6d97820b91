/**
 * The meta-analysis report opened from a living review (issue 31) in the Workers runtime: a review
 * whose PubMed export is re-run by a living update sends the job what the page sends
 * (jobPrismaFromReview of GET /api/reviews/{id}/prisma); the finished job's PRISMA counts, the
 * HTML report and its JSON export carry PRISMA 2020's template for updated reviews with the same
 * counts as the PRISMA tab. A review without updates keeps the whole-review diagram.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../../workers/app";
import { createReplayFetch } from "../../mocks/index.ts";
import { hasWorkerFixtures, MISSING_WORKER_FIXTURES, workerFixtureReader } from "../../mocks/workers-fixtures.ts";
import { buildExport, DEFAULT_OPTIONS } from "~/lib/meta-analysis/page-logic";
import { buildReportHtml } from "~/components/meta-analysis/report-html";
import type { MetaAnalysisJobResult } from "~/lib/meta-analysis/types";
import { jobPrismaFromReview, prismaCountsFromReview, type ApiReview, type ReviewPrisma } from "~/lib/reviews";
import { parseEnv } from "~/.server/env";
import { call, json } from "../helpers";

async function signUp(): Promise<string> {
  const email = `living-report-${crypto.randomUUID()}@example.org`;
  const res = await call("POST", "/api/register", { body: { email, password: "secret12" } });
  expect(res.status).toBe(201);
  await env.DB.prepare("UPDATE users SET plan = 'pro' WHERE email = ?").bind(email).run();
  return (res.headers.get("Set-Cookie") ?? "").split(";")[0]!;
}

/** Three trials whose abstracts give mortality counts, and PMID 11748933, which the recorded PubMed answer also returns. */
const NBIB = [
  [
    "1001",
    "Drug A versus placebo: a randomised controlled trial",
    "We randomly assigned 198 adults. Mortality was 12/100 vs 20/98 (p = 0.04).",
  ],
  [
    "1002",
    "Drug A in older adults: a randomized trial",
    "We randomly assigned 822 patients. Mortality occurred in 57 of 411 patients given drug A and 73 of 411 given placebo.",
  ],
  [
    "1003",
    "Drug A in primary care: a randomised trial",
    "We randomly assigned 390 adults. Mortality was 30/200 vs 35/190.",
  ],
  [
    "11748933",
    "Is cryopreservation a homogeneous process? Ultrastructure and motility of untreated, prefreezing, and postthawed spermatozoa of Diplodus puntazzo (Cetti).",
    "",
  ],
]
  .map(([pmid, title, abstract]) =>
    [`PMID- ${pmid}`, `TI  - ${title}`, ...(abstract ? [`AB  - ${abstract}`] : []), "DP  - 2020", ""].join("\n"),
  )
  .join("\n");

const e = parseEnv(env as unknown as Record<string, unknown>);

function replayPubmed() {
  const replay = createReplayFetch(workerFixtureReader, { baseUrls: { pubmed: e.PUBMED_BASE_URL } });
  return vi.spyOn(globalThis, "fetch").mockImplementation(replay as typeof fetch);
}

interface Rec {
  id: number;
  title: string;
  abstract: string | null;
  pmid: string | null;
}

async function include(cookie: string, reviewId: string, recordId: number) {
  for (const stage of ["title_abstract", "full_text"]) {
    await json(
      await call("POST", `/api/reviews/${reviewId}/records/${recordId}/decision`, {
        cookie,
        body: { stage, decision: "include" },
      }),
      200,
    );
  }
}

/** Runs the meta-analysis of the review's included studies as /meta-analysis does, through the queue. */
async function reportOf(
  cookie: string,
  reviewId: string,
): Promise<{ prisma: ReviewPrisma; result: MetaAnalysisJobResult }> {
  const prisma = await json<ReviewPrisma>(await call("GET", `/api/reviews/${reviewId}/prisma`, { cookie }), 200);
  const { records } = await json<{ records: Rec[] }>(
    await call("GET", `/api/reviews/${reviewId}/records?stage=full_text&decision=include`, { cookie }),
    200,
  );
  const studies = records.map((r) => ({ id: String(r.id), title: r.title, abstract: r.abstract }));
  const { jobId } = await json<{ jobId: string }>(
    await call("POST", "/api/meta-analysis/enhanced", {
      cookie,
      body: { studies, prisma: jobPrismaFromReview(prisma) },
    }),
    202,
  );
  const batch = createMessageBatch("metamind-jobs", [
    { id: `msg-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body: { kind: "meta-analysis", jobId } },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env as never, ctx);
  await getQueueResult(batch, ctx);
  const job = await json<{ status: string; result: MetaAnalysisJobResult }>(
    await call("GET", `/api/meta-analysis/jobs/${jobId}`, { cookie }),
    200,
  );
  expect(job.status).toBe("done");
  return { prisma, result: job.result };
}

describe.skipIf(!hasWorkerFixtures)("the meta-analysis report of a living review", () => {
  it("carries the updated-review PRISMA 2020 diagram with the PRISMA tab's counts; without updates, the whole-review diagram", async () => {
    const cookie = await signUp();
    const { review } = await json<{ review: ApiReview }>(
      await call("POST", "/api/reviews", { cookie, body: { title: "Drug A and mortality" } }),
      201,
    );
    const form = new FormData();
    form.set("file", new File([NBIB], "drug-a.nbib", { type: "text/plain" }));
    form.set("searchDatabase", "pubmed");
    form.set("searchQuery", "drug A mortality");
    await json(await call("POST", `/api/reviews/${review.id}/import`, { cookie, form }), 201);
    const { records: before } = await json<{ records: Rec[] }>(
      await call("GET", `/api/reviews/${review.id}/records`, { cookie }),
      200,
    );
    for (const r of before.filter((x) => x.pmid === "1001" || x.pmid === "1002"))
      await include(cookie, review.id, r.id);

    // Before any update: the whole-review diagram, as today.
    const plain = await reportOf(cookie, review.id);
    expect(plain.prisma).not.toHaveProperty("updated");
    expect(plain.result.prisma).not.toHaveProperty("updated");
    expect(plain.result.prisma).toMatchObject({ included: 2, identified: { "drug-a.nbib": 4 } });
    const plainHtml = buildReportHtml({
      title: "Drug A",
      result: plain.result,
      options: DEFAULT_OPTIONS,
      generatedAt: new Date(),
    });
    expect(plainHtml).toContain("Studies included in review (n = 2)");
    expect(plainHtml).not.toContain("Previous studies");

    // A living update re-runs the file's PubMed search: PMID 11748933 is a duplicate, 11700088 is new and is included.
    const spy = replayPubmed();
    try {
      expect(await json(await call("POST", `/api/reviews/${review.id}/update`, { cookie }), 200)).toMatchObject({
        searchesRun: 1,
        newRecords: 1,
        duplicatesRemoved: 1,
      });
    } finally {
      spy.mockRestore();
    }
    const { records: after } = await json<{ records: Rec[] }>(
      await call("GET", `/api/reviews/${review.id}/records`, { cookie }),
      200,
    );
    await include(cookie, review.id, after.find((r) => r.pmid === "11700088")!.id);

    const { prisma, result } = await reportOf(cookie, review.id);
    expect(prisma.updated).toMatchObject({ updates: 1, previousStudies: 2, totalStudies: 3 });
    expect(result.analyses[0]).toMatchObject({ measure: "RR", k: 2 });
    // The job's counts are the PRISMA tab's: the whole review, and the updated-review template's.
    const { updated, ...whole } = result.prisma!;
    expect(whole).toEqual(prismaCountsFromReview(prisma));
    expect(updated).toEqual({
      updates: 1,
      lastUpdateAt: prisma.updated!.lastUpdateAt,
      previousStudies: 2,
      totalStudies: 3,
      newFlow: prismaCountsFromReview(prisma.updated!.newFlow),
    });
    expect(updated!.newFlow).toMatchObject({
      identified: { PubMed: 2 },
      duplicatesRemoved: 1,
      screened: 1,
      included: 1,
    });

    const html = buildReportHtml({ title: "Drug A", result, options: DEFAULT_OPTIONS, generatedAt: new Date() });
    expect(html).toContain("PRISMA 2020 flow diagram for updated systematic reviews");
    expect(html).toContain(
      `Updated review: 1 living update, the last on ${prisma.updated!.lastUpdateAt!.slice(0, 10)}`,
    );
    expect(html).toContain("Studies included in the review before the update(s) (n = 2)");
    expect(html).toContain("PubMed (n = 2)");
    expect(html).toContain("New studies included in review (n = 1)");
    expect(html).toContain("Total studies included in review (n = 3)");
    expect(buildExport(result, DEFAULT_OPTIONS).prisma!.updated).toEqual(updated);

    // Counts that do not add up are refused.
    const bad = jobPrismaFromReview(prisma);
    bad.updated!.totalStudies = 4;
    const studies = [
      { title: "a", abstract: "x" },
      { title: "b", abstract: "y" },
    ];
    const refused = await json<{ error: string; message: string }>(
      await call("POST", "/api/meta-analysis/enhanced", { cookie, body: { studies, prisma: bad } }),
      400,
    );
    expect(refused).toMatchObject({ error: "INVALID_INPUT", message: expect.stringContaining("totalStudies") });
  });
});
if (!hasWorkerFixtures) describe.skip(MISSING_WORKER_FIXTURES, () => {});
