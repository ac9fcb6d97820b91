/**
 * GET /api/meta-analysis/jobs/{jobId}/export?format=r|csv|sof in the Workers runtime: the owner gets
 * the R script, the study CSV and the Summary of Findings CSV as attachments; another user, a guest and unknown ids get 404; a job that
 * has not finished gets 409; another format gets 400.
 */
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, signUp } from "../helpers";
import { runMetaAnalysis } from "~/.server/meta-analysis/run";

const RESULT = runMetaAnalysis({
  studyCount: 3,
  excluded: [],
  model: "offline",
  extracted: [
    {
      studyId: "a",
      title: "Alpha 2012",
      outcome: "stroke",
      measure: "OR",
      data: { kind: "counts", events1: 5, n1: 50, events2: 9, n2: 50 },
      quotes: [],
      extractedBy: "user",
      design: "RCT",
      totalN: 100,
    },
    {
      studyId: "b",
      title: "Beta 2015",
      outcome: "stroke",
      measure: "OR",
      data: { kind: "counts", events1: 7, n1: 60, events2: 12, n2: 61 },
      quotes: [],
      extractedBy: "user",
      design: "RCT",
      totalN: 121,
    },
    {
      studyId: "c",
      title: "Gamma 2019",
      outcome: "stroke",
      measure: "OR",
      data: { kind: "counts", events1: 11, n1: 90, events2: 18, n2: 92 },
      quotes: [],
      extractedBy: "user",
      design: "RCT",
      totalN: 182,
    },
  ],
});

const ASSESSED = runMetaAnalysis(
  { studyCount: 3, excluded: [], model: "offline", extracted: RESULT.extracted },
  {
    grade: {
      riskOfBiasByOutcome: {
        stroke: {
          a: { D1: "low", D2: "low", D3: "low", D4: "low", D5: "some_concerns", overall: "some_concerns" },
          b: { D1: "high", D2: "low", D3: "low", D4: "low", D5: "low", overall: "high" },
        },
      },
    },
  },
);

async function insertJob(userId: string, status: "done" | "running", result: unknown = RESULT): Promise<string> {
  const id = crypto.randomUUID();
  await env.DB.prepare(
    "INSERT INTO meta_analysis_jobs (id, user_id, status, stage, progress, request, result) VALUES (?, ?, ?, ?, ?, '{}', ?)",
  )
    .bind(
      id,
      userId,
      status,
      status === "done" ? "done" : "pooling",
      status === "done" ? 100 : 50,
      status === "done" ? JSON.stringify(result) : null,
    )
    .run();
  return id;
}

const exportUrl = (jobId: string, format: string) => `${BASE}/api/meta-analysis/jobs/${jobId}/export?format=${format}`;

describe("GET /api/meta-analysis/jobs/{jobId}/export", () => {
  it("gives the owner the R script and the study rows as attachments", async () => {
    const { cookie, userId } = await signUp();
    const jobId = await insertJob(userId, "done");
    const r = await SELF.fetch(exportUrl(jobId, "r"), { headers: { Cookie: cookie } });
    expect(r.status).toBe(200);
    expect(r.headers.get("Content-Type")).toBe("text/x-r; charset=utf-8");
    expect(r.headers.get("Content-Disposition")).toBe(
      `attachment; filename="metamind-meta-analysis-${jobId.slice(0, 8)}.R"`,
    );
    const script = await r.text();
    expect(script).toContain(`# Job ${jobId}`);
    expect(script).toContain('fit1 <- rma(yi, vi, data = dat1, method = "REML", test = "knha", slab = study)');
    expect(script).toContain("ai = c(5, 7, 11)");

    const csv = await SELF.fetch(exportUrl(jobId, "csv"), { headers: { Cookie: cookie } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    const lines = (await csv.text()).trim().split("\r\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]!.startsWith("Analysis number,Analysis name,Effect measure,Study,Study ID,Study year")).toBe(true);
    expect(lines[1]).toContain("1,stroke,OR,Alpha 2012,a,2012,counts,5,50,9,50");

    const sof = await SELF.fetch(exportUrl(jobId, "sof"), { headers: { Cookie: cookie } });
    expect(sof.status).toBe(200);
    expect(sof.headers.get("Content-Disposition")).toBe(
      `attachment; filename="metamind-meta-analysis-${jobId.slice(0, 8)}-summary-of-findings.csv"`,
    );
    const sofLines = (await sof.text()).trim().split("\r\n");
    expect(sofLines[0]).toBe(
      "Outcome,No of participants (studies),Certainty of the evidence (GRADE),Relative effect (95% CI),Risk with comparator,Risk difference with intervention (95% CI),Footnotes",
    );
    expect(sofLines).toHaveLength(2);

    const robvis = await SELF.fetch(exportUrl(await insertJob(userId, "done", ASSESSED), "robvis"), {
      headers: { Cookie: cookie },
    });
    expect(robvis.status).toBe(200);
    const w = ASSESSED.analyses[0]!.weights;
    expect((await robvis.text()).split("\r\n")).toEqual([
      "Study,D1,D2,D3,D4,D5,Overall,Weight",
      `Alpha 2012,Low,Low,Low,Low,Some concerns,Some concerns,${w[0]}`,
      `Beta 2015,High,Low,Low,Low,Low,High,${w[1]}`,
      "",
    ]);
    expect(await (await SELF.fetch(exportUrl(jobId, "robvis"), { headers: { Cookie: cookie } })).text()).toBe(
      "Study,D1,D2,D3,D4,D5,Overall,Weight\r\n",
    );
    // Pooled control risk (9 + 12 + 18) / (50 + 61 + 92) = 192 per 1,000.
    expect(sofLines[1]).toMatch(
      /^stroke,403 \(3 studies\),[⊕◯]{4} [A-Za-z ]+,OR 0\.\d\d \(0\.\d\d to \d\.\d\d\),"192 per 1,000",/,
    );
  });

  it("refuses other users, guests, unknown ids (404), unfinished jobs (409) and other formats (400)", async () => {
    const owner = await signUp();
    const other = await signUp();
    const done = await insertJob(owner.userId, "done");
    const running = await insertJob(owner.userId, "running");
    const asOther = await SELF.fetch(exportUrl(done, "r"), { headers: { Cookie: other.cookie } });
    expect(asOther.status).toBe(404);
    expect(await asOther.json()).toMatchObject({ error: "NOT_FOUND" });
    expect((await SELF.fetch(exportUrl(done, "csv"))).status).toBe(404);
    expect((await SELF.fetch(exportUrl(crypto.randomUUID(), "r"), { headers: { Cookie: owner.cookie } })).status).toBe(
      404,
    );
    const notDone = await SELF.fetch(exportUrl(running, "r"), { headers: { Cookie: owner.cookie } });
    expect(notDone.status).toBe(409);
    expect(await notDone.json()).toMatchObject({ error: "JOB_NOT_DONE", status: "running" });
    const badFormat = await SELF.fetch(exportUrl(done, "xlsx"), { headers: { Cookie: owner.cookie } });
    expect(badFormat.status).toBe(400);
    expect(await badFormat.json()).toMatchObject({ error: "INVALID_INPUT" });
    expect(
      (await SELF.fetch(`${BASE}/api/meta-analysis/jobs/${done}/export`, { headers: { Cookie: owner.cookie } })).status,
    ).toBe(400);
  });
});
