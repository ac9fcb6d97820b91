import { createExecutionContext, createMessageBatch, env, getQueueResult, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MetaAnalysisJobResult } from "~/lib/meta-analysis/types";
import worker from "../../../workers/app";
import { expectConsoleError } from "../../setup/fail-on-console-error";
import { hasWorkerFixtures, MISSING_WORKER_FIXTURES, workerFixtureReader } from "../../mocks/workers-fixtures.ts";
import { failingModel, textModel } from "../../mocks/meta-models";
import { recordingD1 } from "../../mocks/recording-d1";
import { createDb } from "~/.server/db/client";
import { getLoadContext } from "~/.server/context";
import { normalisePubmedXml } from "~/.server/search/providers/pubmed";
import { assertMetaAnalysisAvailable, createMetaAnalysisJob } from "~/.server/meta-analysis/jobs";
import { runMetaAnalysisJob } from "~/.server/meta-analysis/queue";
import { AppError } from "~/.server/http/errors";
import type { UserRow } from "../../../db/schema";

const BASE = "https://metamind.test";
let ipCounter = 0;
const uniqueIp = () => `198.51.${Math.floor(++ipCounter / 250)}.${(ipCounter % 250) + 1}`;

const STUDIES = [
  {
    id: "t1",
    title: "Drug A versus placebo: a randomised controlled trial",
    abstract: "We randomly assigned 198 adults. Mortality was 12/100 vs 20/98 (p = 0.04).",
  },
  {
    id: "t2",
    title: "Drug A in older adults: a randomized trial",
    abstract:
      "We randomly assigned 822 patients. Mortality occurred in 57 of 411 patients given drug A and 73 of 411 given placebo.",
  },
  {
    id: "t3",
    title: "Drug A in primary care: a randomised trial",
    abstract: "We randomly assigned 390 adults. Mortality was 30/200 vs 35/190.",
  },
  { id: "t4", title: "Patients' views of drug A", abstract: "Participants described their experience in interviews." },
];

async function register(ip: string): Promise<{ cookie: string; userId: string }> {
  const res = await SELF.fetch(`${BASE}/api/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: BASE, "CF-Connecting-IP": ip },
    body: JSON.stringify({ email: `ma-${crypto.randomUUID()}@example.org`, password: "secret12" }),
  });
  expect(res.status).toBe(201);
  const cookie = res.headers.get("Set-Cookie")!.split(";")[0]!;
  const me = (await (await SELF.fetch(`${BASE}/api/user`, { headers: { Cookie: cookie } })).json()) as { id: string };
  return { cookie, userId: me.id };
}

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return SELF.fetch(`${BASE}/api/meta-analysis/${path}`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Origin: BASE,
      "CF-Connecting-IP": headers["CF-Connecting-IP"] ?? uniqueIp(),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

function getJob(jobId: string, headers: Record<string, string> = {}) {
  return SELF.fetch(`${BASE}/api/meta-analysis/jobs/${jobId}`, { headers });
}

/** Delivers one queue message for the job to the Worker's queue handler. */
async function deliver(jobId: string, attempts = 1) {
  const batch = createMessageBatch("metamind-jobs", [
    { id: `msg-${crypto.randomUUID()}`, timestamp: new Date(), attempts, body: { kind: "meta-analysis", jobId } },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env as never, ctx);
  return getQueueResult(batch, ctx);
}

async function usageCount(userId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count FROM ai_usage WHERE user_id = ?")
    .bind(userId)
    .first<{ count: number }>();
  return row?.count ?? 0;
}

async function insertJob(request: unknown, owner: { userId?: string; deviceKey?: string } = {}): Promise<string> {
  const id = crypto.randomUUID();
  await env.DB.prepare(
    "INSERT INTO meta_analysis_jobs (id, user_id, device_key, status, progress, request) VALUES (?, ?, ?, 'queued', 0, ?)",
  )
    .bind(id, owner.userId ?? null, owner.deviceKey ?? null, JSON.stringify(request))
    .run();
  return id;
}

async function jobRow(id: string) {
  return env.DB.prepare("SELECT status, progress, error, attempts, result FROM meta_analysis_jobs WHERE id = ?")
    .bind(id)
    .first<{
      status: string;
      progress: number;
      error: string | null;
      attempts: number;
      result: string | null;
    }>();
}

describe("POST /api/meta-analysis/enhanced validation", () => {
  it("fewer than 2 studies: 400 with the spec's message", async () => {
    for (const body of [{ studies: [] }, { studies: [STUDIES[0]] }, {}]) {
      const res = await post("enhanced", body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: "INVALID_INPUT",
        message: "Please select at least 2 studies for meta-analysis",
      });
    }
  });

  it("bad fields: 400; oversized abstract: 413; malformed JSON: 400", async () => {
    expect((await post("enhanced", { studies: STUDIES, method: "XYZ" })).status).toBe(400);
    expect(
      (await post("enhanced", { studies: Array.from({ length: 101 }, (_, i) => ({ title: `S${i}`, abstract: "x" })) }))
        .status,
    ).toBe(400);
    const big = await post("enhanced", { studies: [STUDIES[0], { title: "Long", abstract: "a".repeat(20_001) }] });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: "PAYLOAD_TOO_LARGE" });
    // Each full text is within its limit, but the whole request would not fit in a D1 row.
    const fullTexts = Array.from({ length: 10 }, (_, i) => ({
      title: `Full ${i}`,
      fullTextAnalysis: "b".repeat(190_000),
    }));
    const tooMuch = await post("enhanced", { studies: fullTexts });
    expect(tooMuch.status).toBe(413);
    expect(await tooMuch.json()).toMatchObject({
      error: "PAYLOAD_TOO_LARGE",
      message: expect.stringContaining("1.8 MB"),
    });
    const bad = await post("enhanced", "{nope");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "INVALID_JSON" });
  });
});

describe("meta-analysis job through the queue", () => {
  it("202 {jobId} at once, then the queue runs it: done with pooled numbers; counted once", async () => {
    const ip = uniqueIp();
    const { cookie, userId } = await register(ip);
    const res = await post(
      "enhanced",
      { studies: STUDIES, prisma: { identified: { pubmed: 30 }, duplicatesRemoved: 2, screened: 28 } },
      { Cookie: cookie, "CF-Connecting-IP": ip },
    );
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("X-AI-Uses-Remaining")).toBe("19");

    const before = await getJob(jobId, { Cookie: cookie });
    expect(before.status).toBe(200);
    expect(["queued", "running", "done"]).toContain(((await before.json()) as { status: string }).status);

    const outcome = await deliver(jobId);
    expect(outcome.explicitAcks).toHaveLength(1);
    expect(outcome.retryMessages).toEqual([]);

    const job = (await (await getJob(jobId, { Cookie: cookie })).json()) as {
      status: string;
      progress: number;
      result: MetaAnalysisJobResult;
    };
    expect(job.status).toBe("done");
    expect(job.progress).toBe(100);
    const a = job.result.analyses[0]!;
    expect([a.outcome, a.measure, a.method, a.test, a.k, a.studyIds]).toEqual([
      "mortality",
      "RR",
      "REML",
      "knha",
      3,
      ["t1", "t2", "t3"],
    ]);
    // R: rma(escalc("RR", ai=c(12,57,30), n1i=c(100,411,200), ci=c(20,73,35), n2i=c(98,411,190)), method="REML", test="knha")
    expect(a.estimate).toBeCloseTo(-0.27303629, 6);
    expect(a.ratio!.estimate).toBeCloseTo(0.7610652, 6);
    expect(job.result.excluded).toEqual([
      {
        studyId: "t4",
        title: "Patients' views of drug A",
        reason: "No effect estimate with a confidence interval or arm-level data found in the abstract",
      },
    ]);
    const start = STUDIES[0]!.abstract.indexOf("12/100");
    expect(job.result.extracted.find((r) => r.studyId === "t1")!.quotes[0]).toEqual({
      quote: "12/100 vs 20/98",
      start,
      end: start + 15,
      source: "abstract",
    });
    expect(job.result.prisma).toMatchObject({
      screened: 28,
      reportsAssessed: 4,
      included: 3,
      reportsExcluded: [{ count: 1 }],
    });
    expect(job.result.narrative).toMatchObject({ strengthOfEvidence: expect.any(String) });
    expect(await usageCount(userId)).toBe(1);

    // A redelivery changes nothing and counts nothing.
    await deliver(jobId, 2);
    expect(await usageCount(userId)).toBe(1);
  });

  it("user-edited data replaces extraction", async () => {
    const ip = uniqueIp();
    const { cookie } = await register(ip);
    const data = [
      {
        studyId: "t1",
        title: "T1",
        outcome: "Stroke",
        measure: "OR",
        data: { kind: "counts", events1: 5, n1: 50, events2: 9, n2: 50 },
        quotes: [],
        extractedBy: "user",
        design: "RCT",
        totalN: 100,
      },
      {
        studyId: "t2",
        title: "T2",
        outcome: "stroke",
        measure: "OR",
        data: { kind: "counts", events1: 7, n1: 60, events2: 12, n2: 61 },
        quotes: [],
        extractedBy: "user",
        design: "RCT",
        totalN: 121,
      },
    ];
    const res = await post(
      "enhanced",
      { studies: STUDIES.slice(0, 3), data, method: "DL", test: "z" },
      { Cookie: cookie, "CF-Connecting-IP": ip },
    );
    const { jobId } = (await res.json()) as { jobId: string };
    await deliver(jobId);
    const job = (await (await getJob(jobId, { Cookie: cookie })).json()) as { result: MetaAnalysisJobResult };
    expect(job.result.analyses.map((x) => [x.outcome, x.measure, x.method, x.test, x.k])).toEqual([
      ["stroke", "OR", "DL", "z", 2],
    ]);
    expect(job.result.excluded).toEqual([
      { studyId: "t3", title: STUDIES[2]!.title, reason: "No data rows for this study in the reviewed table" },
    ]);
  });

  it("summaryOfFindings: each pooled analysis gains its row, with the reviewer's assumed control risk and GRADE inputs", async () => {
    const ip = uniqueIp();
    const { cookie } = await register(ip);
    const data = [
      {
        studyId: "t1",
        title: "T1",
        outcome: "stroke",
        measure: "OR",
        data: { kind: "counts", events1: 5, n1: 50, events2: 9, n2: 50 },
        design: "RCT",
        totalN: 100,
      },
      {
        studyId: "t2",
        title: "T2",
        outcome: "stroke",
        measure: "OR",
        data: { kind: "counts", events1: 7, n1: 60, events2: 12, n2: 61 },
        design: "RCT",
        totalN: 121,
      },
    ];
    const body = {
      studies: STUDIES.slice(0, 2),
      data,
      summaryOfFindings: { assumedControlRisk: 0.2 },
      grade: { riskOfBias: { t1: "high", t2: "some_concerns" } },
    };
    const res = await post("enhanced", body, { Cookie: cookie, "CF-Connecting-IP": ip });
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    await deliver(jobId);
    const job = (await (await getJob(jobId, { Cookie: cookie })).json()) as { result: MetaAnalysisJobResult };
    const a = job.result.analyses[0]!;
    const sof = a.summaryOfFindings!;
    const or = Math.exp(a.estimate);
    expect(sof.relativeEffect).toEqual({
      measure: "OR",
      estimate: or,
      ci_lb: Math.exp(a.ci_lb),
      ci_ub: Math.exp(a.ci_ub),
    });
    expect(sof.assumedRiskPer1000).toBeCloseTo(200, 10);
    expect(sof.correspondingRiskPer1000).toBeCloseTo((1000 * 0.2 * or) / (1 - 0.2 + 0.2 * or), 10);
    expect(sof.riskDifferencePer1000!.estimate).toBeCloseTo(sof.correspondingRiskPer1000! - 200, 10);
    expect(["high", "moderate", "low", "very_low"]).toContain(sof.certainty);
    expect(sof.downgrades.find((d) => d.domain === "risk of bias")).toMatchObject({
      levels: expect.any(Number),
      reason: expect.stringContaining("RoB 2"),
    });

    for (const bad of [{ assumedControlRisk: 150 }, { assumedControlRisk: "0.2" }]) {
      const refused = await post(
        "enhanced",
        { ...body, summaryOfFindings: bad },
        { Cookie: cookie, "CF-Connecting-IP": ip },
      );
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({
        error: "INVALID_INPUT",
        message: expect.stringContaining("summaryOfFindings.assumedControlRisk"),
      });
    }
  });

  it("a failing job retries, then on the last attempt says why; the use is given back", async () => {
    expectConsoleError();
    const ip = uniqueIp();
    const { cookie, userId } = await register(ip);
    // The row and the reserved use as POST /enhanced leaves them, without a queue message (the
    // pool's own consumer would run the job with the offline model before this test's attempts).
    const period = new Date().toISOString().slice(0, 7);
    await env.DB.prepare("INSERT INTO ai_usage (user_id, period, count) VALUES (?, ?, 1)").bind(userId, period).run();
    const jobId = await insertJob({ studies: STUDIES }, { userId });
    await env.DB.prepare("UPDATE meta_analysis_jobs SET meter = ? WHERE id = ?")
      .bind(JSON.stringify({ kind: "user", userId, period, limited: true }), jobId)
      .run();
    expect(await usageCount(userId)).toBe(1);
    const { app } = getLoadContext(env as never, createExecutionContext());
    const model = {
      model: failingModel("upstream model returned 500", "stream"),
      name: "broken-model",
      provider: "openai" as const,
    };

    await expect(runMetaAnalysisJob(app, jobId, { attempts: 1, isLastAttempt: false }, { model })).rejects.toThrow(
      "upstream model returned 500",
    );
    expect(await jobRow(jobId)).toMatchObject({ status: "queued", attempts: 1 });
    const queued = (await (await getJob(jobId, { Cookie: cookie })).json()) as Record<string, unknown>;
    // Back in the queue: the page says so, and why.
    expect(queued).toMatchObject({
      status: "queued",
      stage: "queued",
      progress: 0,
      stageDetail: expect.stringContaining("Attempt 1 failed"),
    });
    expect(queued.error).toBeUndefined();

    await expect(runMetaAnalysisJob(app, jobId, { attempts: 4, isLastAttempt: true }, { model })).rejects.toThrow();
    const failed = (await (await getJob(jobId, { Cookie: cookie })).json()) as {
      status: string;
      error: string;
      result?: unknown;
    };
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe(
      "Failed to generate meta-analysis. Please try again. The analysis stopped after 4 attempts: upstream model returned 500",
    );
    expect(failed.result).toBeUndefined();
    expect(await usageCount(userId)).toBe(0);
  });

  it("with a language model: grounded extraction per study, narrative rephrased with only computed numbers", async () => {
    const ip = uniqueIp();
    const { userId } = await register(ip);
    const jobId = await insertJob({ studies: STUDIES.slice(0, 3) }, { userId });
    const nulls = {
      estimate: null,
      lower: null,
      upper: null,
      mean1: null,
      sd1: null,
      mean2: null,
      sd2: null,
      se: null,
      estimateScale: null,
      seOfLog: null,
      time1: null,
      time2: null,
      oe: null,
      variance: null,
      comparison: null,
      timepoint: null,
      isPooledEstimate: false,
    };
    const arms: Record<string, [string, number, number, number, number]> = {
      t1: ["12/100 vs 20/98", 12, 100, 20, 98],
      t2: ["57 of 411 patients given drug A and 73 of 411", 57, 411, 73, 411],
      t3: ["30/200 vs 35/190", 30, 200, 35, 190],
    };
    const model = textModel((prompt) => {
      if (prompt.includes("Rewrite each field")) {
        const fields = JSON.parse(prompt.slice(prompt.indexOf("{"))) as Record<string, unknown>;
        return JSON.stringify({ ...fields, executiveSummary: `In plain words: ${String(fields.executiveSummary)}` });
      }
      const study = STUDIES.find((s) => prompt.includes(s.abstract))!;
      const [quote, events1, n1, events2, n2] = arms[study.id]!;
      return JSON.stringify({
        design: "RCT",
        totalN: n1 + n2,
        effects: [
          {
            ...nulls,
            outcome: "Death from any cause",
            measure: "RR",
            kind: "counts",
            events1,
            n1,
            events2,
            n2,
            quote,
            source: "abstract",
          },
          // Not in the text: dropped by grounding.
          {
            ...nulls,
            events1: null,
            n1: null,
            events2: null,
            n2: null,
            outcome: "stroke",
            measure: "OR",
            kind: "estimate-ci",
            estimate: 0.5,
            lower: 0.3,
            upper: 0.9,
            quote: "OR 0.5 (0.3-0.9)",
            source: "abstract",
          },
        ],
      });
    });
    const { app } = getLoadContext(env as never, createExecutionContext());
    await runMetaAnalysisJob(
      app,
      jobId,
      { attempts: 1, isLastAttempt: false },
      { model: { model, name: "mock-gpt", provider: "openai" } },
    );
    const row = await jobRow(jobId);
    expect(row).toMatchObject({ status: "done", progress: 100 });
    const result = JSON.parse(row!.result!) as MetaAnalysisJobResult;
    expect(result.model).toBe("mock-gpt");
    expect(result.extracted.map((r) => [r.studyId, r.outcome, r.extractedBy])).toEqual([
      ["t1", "Death from any cause", "mock-gpt"],
      ["t2", "Death from any cause", "mock-gpt"],
      ["t3", "Death from any cause", "mock-gpt"],
    ]);
    expect(result.analyses[0]!.estimate).toBeCloseTo(-0.27303629, 6);
    expect(result.narrative).toMatchObject({
      executiveSummary: expect.stringMatching(/^In plain words: /),
      generatedBy: expect.stringContaining("mock-gpt"),
    });
  });

  it("the job row goes through its stages as the work happens: extracting study by study, pooling, writing, done", async () => {
    const { userId } = await register(uniqueIp());
    const jobId = await insertJob({ studies: STUDIES }, { userId });
    const writes: Record<string, unknown>[] = [];
    const { app } = getLoadContext(env as never, createExecutionContext());
    const watched = { ...app, db: createDb(recordingD1(env.DB, "meta_analysis_jobs", writes)) };
    await runMetaAnalysisJob(watched, jobId, { attempts: 1, isLastAttempt: false }, { model: null });

    const stages = writes.map((w) => w.stage).filter((stage, i, all) => stage !== undefined && stage !== all[i - 1]);
    expect(stages).toEqual(["extracting", "pooling", "writing", "done"]);
    const extracting = writes.filter((w) => w.stage === "extracting" && w.stage_detail);
    expect(extracting.map((w) => [w.progress, w.stage_detail])).toEqual([
      [5, "0 of 4 studies read"],
      [21, "1 of 4 studies read"],
      [38, "2 of 4 studies read"],
      [54, "3 of 4 studies read"],
      [70, "4 of 4 studies read"],
    ]);
    expect(writes.find((w) => w.stage === "pooling")).toMatchObject({
      progress: 70,
      stage_detail: "3 data rows, REML with Hartung–Knapp",
    });
    expect(writes.find((w) => w.stage === "writing")).toMatchObject({ progress: 85, stage_detail: "1 pooled outcome" });
    const percents = writes.map((w) => w.progress).filter((p): p is number => typeof p === "number");
    expect(percents).toEqual([...percents].sort((a, b) => a - b));

    const job = (await (await getJob(jobId, { Cookie: (await register(uniqueIp())).cookie })).json()) as {
      error?: string;
    };
    expect(job.error).toBe("NOT_FOUND");
    const row = await env.DB.prepare(
      "SELECT status, stage, stage_detail, progress FROM meta_analysis_jobs WHERE id = ?",
    )
      .bind(jobId)
      .first();
    expect(row).toEqual({ status: "done", stage: "done", stage_detail: null, progress: 100 });
  });

  it("through the queue handler: a bad job is retried with backoff, and acked as failed on the last attempt", async () => {
    const jobId = await insertJob({ studies: "not a list" });
    const first = await deliver(jobId, 1);
    expect(first.retryMessages).toHaveLength(1);
    expect(first.explicitAcks).toEqual([]);
    expect(await jobRow(jobId)).toMatchObject({ status: "queued", attempts: 1 });
    const last = await deliver(jobId, 4);
    expect(last.retryMessages).toEqual([]);
    expect(last.explicitAcks).toHaveLength(1);
    expect(await jobRow(jobId)).toMatchObject({
      status: "failed",
      error:
        "Failed to generate meta-analysis. Please try again. The analysis stopped after 4 attempts: the stored request is not a valid meta-analysis request",
    });
  });
});

describe("isolation and gating", () => {
  it("another user's job and unknown ids are 404 NOT_FOUND; guests see only their device's jobs", async () => {
    const ipA = uniqueIp();
    const a = await register(ipA);
    const b = await register(uniqueIp());
    const res = await post("enhanced", { studies: STUDIES }, { Cookie: a.cookie, "CF-Connecting-IP": ipA });
    const { jobId } = (await res.json()) as { jobId: string };
    expect((await getJob(jobId, { Cookie: a.cookie })).status).toBe(200);
    for (const headers of [{ Cookie: b.cookie }, {}] as Record<string, string>[]) {
      const other = await getJob(jobId, headers);
      expect(other.status).toBe(404);
      expect(await other.json()).toMatchObject({ error: "NOT_FOUND" });
    }
    expect((await getJob(crypto.randomUUID(), { Cookie: a.cookie })).status).toBe(404);
    expect((await getJob("../../etc", { Cookie: a.cookie })).status).toBe(404);

    // Guest: the device cookie set by the POST owns the job; another device does not.
    const guestIp = uniqueIp();
    const guest = await post("enhanced", { studies: STUDIES }, { "CF-Connecting-IP": guestIp });
    expect(guest.status).toBe(202);
    const device = guest.headers.get("Set-Cookie")!.split(";")[0]!;
    expect(device).toMatch(/^mm_device=/);
    const guestJob = ((await guest.json()) as { jobId: string }).jobId;
    expect((await getJob(guestJob, { Cookie: device })).status).toBe(200);
    expect((await getJob(guestJob, { Cookie: a.cookie })).status).toBe(404);
    const otherGuest = await post("enhanced", { studies: STUDIES }, { "CF-Connecting-IP": uniqueIp() });
    const otherDevice = otherGuest.headers.get("Set-Cookie")!.split(";")[0]!;
    expect((await getJob(guestJob, { Cookie: otherDevice })).status).toBe(404);
  });

  it("guests get 5 meta-analyses per 24 h (metaAnalysis counter), then 403 Trial Limit Reached", async () => {
    const ip = uniqueIp();
    let cookie = "";
    for (let i = 0; i < 5; i++) {
      const res = await post(
        "enhanced",
        { studies: STUDIES },
        { "CF-Connecting-IP": ip, ...(cookie ? { Cookie: cookie } : {}) },
      );
      expect(res.status).toBe(202);
      cookie ||= res.headers.get("Set-Cookie")!.split(";")[0]!;
    }
    const refused = await post("enhanced", { studies: STUDIES }, { "CF-Connecting-IP": ip, Cookie: cookie });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: "LIMIT_REACHED",
      guestFeature: "metaAnalysis",
      message: "Trial Limit Reached",
    });
    const usage = (await (
      await SELF.fetch(`${BASE}/api/guest-usage`, { headers: { Cookie: cookie, "CF-Connecting-IP": ip } })
    ).json()) as { usage: Record<string, number> };
    expect(usage.usage.metaAnalysis).toBe(5);
  });

  it("a Free user at the monthly limit gets 403 LIMIT_REACHED and no job row", async () => {
    const ip = uniqueIp();
    const { cookie, userId } = await register(ip);
    await env.DB.prepare("INSERT INTO ai_usage (user_id, period, count) VALUES (?, ?, 20)")
      .bind(userId, new Date().toISOString().slice(0, 7))
      .run();
    const res = await post("enhanced", { studies: STUDIES }, { Cookie: cookie, "CF-Connecting-IP": ip });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: "LIMIT_REACHED", feature: "ai_summaries", limit: 20, used: 20 });
    const rows = await env.DB.prepare("SELECT id FROM meta_analysis_jobs WHERE user_id = ?").bind(userId).all();
    expect(rows.results).toEqual([]);
  });
});

describe("job creation leaves nothing half-written", () => {
  it("a queue that refuses the message: 503, no row, the use given back", async () => {
    expectConsoleError();
    const ip = uniqueIp();
    const { userId } = await register(ip);
    const user = (await env.DB.prepare("SELECT * FROM users WHERE id = ?").bind(userId).first()) as Record<
      string,
      unknown
    >;
    const { app } = getLoadContext(env as never, createExecutionContext());
    const broken = {
      ...app,
      bindings: {
        ...app.bindings,
        JOBS: {
          send: async () => {
            throw new Error("queue down");
          },
        } as unknown as Queue<unknown>,
      },
    };
    const request = new Request(`${BASE}/api/meta-analysis/enhanced`, {
      method: "POST",
      headers: { "CF-Connecting-IP": ip },
    });
    const userRow = { id: userId, plan: "free", email: String(user.email) } as unknown as UserRow;
    const error = await createMetaAnalysisJob(broken, { user: userRow, request }, { studies: STUDIES }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "QUEUE_UNAVAILABLE", status: 503 });
    expect(
      (await env.DB.prepare("SELECT id FROM meta_analysis_jobs WHERE user_id = ?").bind(userId).all()).results,
    ).toEqual([]);
    expect(await usageCount(userId)).toBe(0);
  });

  it("extract with a model refuses a guest with no meta-analysis use left, without counting", async () => {
    const ip = uniqueIp();
    let cookie = "";
    for (let i = 0; i < 5; i++) {
      const res = await post(
        "enhanced",
        { studies: STUDIES },
        { "CF-Connecting-IP": ip, ...(cookie ? { Cookie: cookie } : {}) },
      );
      cookie ||= res.headers.get("Set-Cookie")!.split(";")[0]!;
    }
    const { app } = getLoadContext(env as never, createExecutionContext());
    const request = new Request(`${BASE}/api/meta-analysis/extract`, {
      headers: { Cookie: cookie, "CF-Connecting-IP": ip },
    });
    await expect(assertMetaAnalysisAvailable(app, { user: null, request })).rejects.toMatchObject({
      code: "LIMIT_REACHED",
      status: 403,
    });
    const fresh = new Request(`${BASE}/api/meta-analysis/extract`, { headers: { "CF-Connecting-IP": uniqueIp() } });
    await expect(assertMetaAnalysisAvailable(app, { user: null, request: fresh })).resolves.toBeUndefined();
  });
});

describe("POST /api/meta-analysis/extract", () => {
  it("returns extracted rows with quotes and excluded studies, synchronously", async () => {
    const res = await post("extract", { studies: STUDIES });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      extracted: MetaAnalysisJobResult["extracted"];
      excluded: unknown[];
      model: string;
    };
    expect(body.extracted.map((r) => [r.studyId, r.outcome, r.data])).toEqual([
      ["t1", "mortality", { kind: "counts", events1: 12, n1: 100, events2: 20, n2: 98 }],
      ["t2", "mortality", { kind: "counts", events1: 57, n1: 411, events2: 73, n2: 411 }],
      ["t3", "mortality", { kind: "counts", events1: 30, n1: 200, events2: 35, n2: 190 }],
    ]);
    expect(body.excluded).toHaveLength(1);
    expect(body.model).toMatch(/offline-rules/);
    expect((await post("extract", { studies: [STUDIES[0]] })).status).toBe(400);
  });

  it.skipIf(!hasWorkerFixtures)(
    hasWorkerFixtures ? "real PubMed abstracts (aspirin trial 23121403)" : MISSING_WORKER_FIXTURES,
    async () => {
      const s = normalisePubmedXml(workerFixtureReader("pubmed/efetch_pubmed_23121403_POST.xml")!).studies[0]!;
      const t = normalisePubmedXml(workerFixtureReader("pubmed/efetch_pubmed_29915538_POST.xml")!).studies[0]!;
      const res = await post("extract", {
        studies: [
          { id: s.sourceId, title: s.title, abstract: s.abstract },
          { id: t.sourceId, title: t.title, abstract: t.abstract },
        ],
      });
      const body = (await res.json()) as { extracted: MetaAnalysisJobResult["extracted"] };
      const hr = body.extracted.find((r) => r.reportedMeasure === "HR")!;
      expect(hr.data).toEqual({ kind: "estimate-ci", estimate: 0.74, lower: 0.52, upper: 1.05 });
      expect(s.abstract!.slice(hr.quotes[0]!.start, hr.quotes[0]!.end)).toBe(hr.quotes[0]!.quote);
    },
  );
});
