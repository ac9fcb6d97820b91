/**
 * POST /api/meta-analysis/enhanced with the generalised Q estimators (issue 29): GENQ with the
 * inverse standard-error weights of Jackson (2013) runs through the queue and gives metafor's
 * rma(yi, vi, weights = 1/sqrt(vi), method = "GENQ") and leave1out() numbers; a bad weights choice is a 400.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MetaAnalysisJobResult } from "~/lib/meta-analysis/types";
import worker from "../../../workers/app";
import { call, signUp } from "../helpers";

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
];

/** POST /api/meta-analysis/enhanced with `body`, signed in when `cookie` is given. */
function post(body: unknown, cookie?: string) {
  return call("POST", "/api/meta-analysis/enhanced", { cookie, body });
}

async function deliver(jobId: string) {
  const batch = createMessageBatch("metamind-jobs", [
    { id: `msg-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body: { kind: "meta-analysis", jobId } },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env as never, ctx);
  return getQueueResult(batch, ctx);
}

describe("POST /api/meta-analysis/enhanced with GENQ / GENQM", () => {
  it("GENQ with inverse standard-error weights: metafor's pooled result, weights and leave-one-out", async () => {
    const { cookie } = await signUp("free", { prefix: "genq" });
    const res = await post({ studies: STUDIES, method: "GENQ", genqWeights: "inverse-se", test: "z" }, cookie);
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    const outcome = await deliver(jobId);
    expect(outcome.explicitAcks).toHaveLength(1);
    const job = (await (await call("GET", `/api/meta-analysis/jobs/${jobId}`, { cookie })).json()) as {
      status: string;
      result: MetaAnalysisJobResult;
    };
    expect(job.status).toBe("done");
    const a = job.result.analyses[0]!;
    expect([a.method, a.genqWeights, a.test, a.k]).toEqual(["GENQ", "inverse-se", "z", 3]);
    // R: d <- escalc("RR", ai=c(12,57,30), n1i=c(100,411,200), ci=c(20,73,35), n2i=c(98,411,190))
    //    r <- rma(yi, vi, data=d, weights=1/sqrt(vi), method="GENQ", test="z"); leave1out(r)
    expect(a.estimate).toBeCloseTo(-0.2960799092, 8);
    expect(a.se).toBeCloseTo(0.1280066928, 8);
    expect(a.tau2).toBe(0);
    expect(a.ci_lb).toBeCloseTo(-0.5469684169, 8);
    expect(a.weights[0]).toBeCloseTo(21.9727590167, 7);
    expect(a.weights[1]).toBeCloseTo(45.5056196847, 7);
    expect(a.leaveOneOut.map((r) => r.estimate)).toEqual([
      expect.closeTo(-0.2299175665, 8),
      expect.closeTo(-0.3367233203, 8),
      expect.closeTo(-0.3397624577, 8),
    ]);
    // the inverse-variance weights give a different answer (REML/DL pool: −0.2730), so the choice reached the engine
    expect(Math.abs(a.estimate - -0.273036286)).toBeGreaterThan(0.02);
  });

  it("GENQM is accepted; an unknown weights choice is 400 INVALID_INPUT", async () => {
    const ok = await post({ studies: STUDIES, method: "GENQM" });
    expect(ok.status).toBe(202);
    const bad = await post({ studies: STUDIES, method: "GENQ", genqWeights: "sample-size" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe("INVALID_INPUT");
  });
});
