import { describe, expect, it } from "vitest";
import { jobResult } from "../../tests/meta-analysis-result";
import {
  extractData,
  JOB_STAGE_LABELS,
  JobFailedError,
  MetaApiError,
  pollJob,
  snapshotStage,
  startJob,
} from "./meta-analysis-job-client";

type Call = { url: string; init?: RequestInit };

function fakeFetch(responses: (Response | Error)[]) {
  const calls: Call[] = [];
  const impl = (async (url: string, init?: RequestInit) => {
    calls.push({ url, init });
    const next = responses.shift();
    if (!next) throw new Error("no more responses");
    if (next instanceof Error) throw next;
    return next;
  }) as unknown as typeof fetch;
  return { impl, calls };
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

describe("meta-analysis job client", () => {
  it("polls until done, reporting progress, and returns the result", async () => {
    const { impl, calls } = fakeFetch([
      json({ status: "queued", progress: 0 }),
      json({ status: "running", progress: 140 }),
      json({ status: "done", progress: 100, result: jobResult }),
    ]);
    const seen: number[] = [];
    const result = await pollJob("job 1", { fetchImpl: impl, intervalMs: 1, onProgress: (s) => seen.push(s.progress) });
    expect(result.analyses[0]!.k).toBe(5);
    expect(seen).toEqual([0, 100, 100]);
    expect(calls[0]!.url).toBe("/api/meta-analysis/jobs/job%201");
    expect(calls[0]!.init?.credentials).toBe("include");
  });

  it("throws the server's reason when the job failed", async () => {
    const { impl } = fakeFetch([json({ status: "failed", progress: 40, error: "No outcome had two studies" })]);
    await expect(pollJob("j", { fetchImpl: impl, intervalMs: 1 })).rejects.toEqual(
      new JobFailedError("No outcome had two studies"),
    );
  });

  it("retries network errors a few times, then gives up", async () => {
    const { impl } = fakeFetch([new TypeError("offline"), json({ status: "done", progress: 100, result: jobResult })]);
    await expect(pollJob("j", { fetchImpl: impl, intervalMs: 1 })).resolves.toEqual(jobResult);
    const down = fakeFetch(Array.from({ length: 5 }, () => new TypeError("offline")));
    await expect(pollJob("j", { fetchImpl: down.impl, intervalMs: 1 })).rejects.toThrow("offline");
  });

  it("stops when aborted", async () => {
    const controller = new AbortController();
    const { impl } = fakeFetch([json({ status: "running", progress: 10 }), json({ status: "running", progress: 20 })]);
    const promise = pollJob("j", { fetchImpl: impl, intervalMs: 50, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("left the page")), 10);
    await expect(promise).rejects.toThrow("left the page");
  });

  it("classifies 403s for the upgrade prompt and keeps 400 messages", async () => {
    const limit = fakeFetch([
      json(
        { error: "LIMIT_REACHED", message: "You've used all 20 free AI analyses this month", feature: "ai_summaries" },
        403,
      ),
    ]);
    const err = await startJob({ studies: [], method: "REML", test: "knha" }, { fetchImpl: limit.impl }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MetaApiError);
    expect((err as MetaApiError).ai.kind).toBe("limit");
    const bad = fakeFetch([
      json({ error: "TOO_FEW_STUDIES", message: "Please select at least 2 studies for meta-analysis" }, 400),
    ]);
    const err2 = (await extractData([], { fetchImpl: bad.impl }).catch((e: unknown) => e)) as MetaApiError;
    expect(err2.ai.status).toBe(400);
    expect(err2.message).toBe("Please select at least 2 studies for meta-analysis");
  });

  it("posts the job with the reviewed data and PRISMA counts", async () => {
    const { impl, calls } = fakeFetch([json({ jobId: "abc" }, 202)]);
    const id = await startJob(
      {
        studies: [{ id: "1", title: "t", abstract: "a" }],
        method: "DL",
        test: "z",
        data: jobResult.extracted,
        prisma: { identified: { pubmed: 3 }, duplicatesRemoved: 0, screened: 3 },
      },
      { fetchImpl: impl },
    );
    expect(id).toBe("abc");
    expect(calls[0]!.url).toBe("/api/meta-analysis/enhanced");
    const body = JSON.parse(String(calls[0]!.init!.body)) as Record<string, unknown>;
    expect(body.method).toBe("DL");
    expect(body.test).toBe("z");
    expect((body.data as unknown[]).length).toBe(5);
    expect(body.prisma).toEqual({ identified: { pubmed: 3 }, duplicatesRemoved: 0, screened: 3 });
  });
});

describe("snapshotStage", () => {
  it("uses the server's stage, else derives it from the status", () => {
    expect(snapshotStage({ status: "running", stage: "pooling" })).toBe("pooling");
    expect(snapshotStage({ status: "running" })).toBe("extracting");
    expect(snapshotStage({ status: "queued" })).toBe("queued");
    expect(JOB_STAGE_LABELS.writing).toBe("Writing the report…");
  });
});
