import { describe, expect, it } from "vitest";
import type { AiExtraction } from "./extract-ai";
import { extractStudyWithModel, groundingProblem } from "./extract-ai";
import { extractStudies } from "./extract";
import { phraseNarrative } from "./narrative";
import { runMetaAnalysis } from "./run";
import type { CombinedSummary } from "../ai/combined-schema";
import { failingModel, textModel } from "../../../tests/mocks/meta-models";

const ABSTRACT =
  "Venous thromboembolism recurred in 28 of 205 patients given aspirin and 43 of 197 given placebo (hazard ratio, 0.58; 95% CI, 0.36 to 0.93). Major bleeding was rare.";

const nulls = { estimate: null, lower: null, upper: null, events1: null, n1: null, events2: null, n2: null, mean1: null, sd1: null, mean2: null, sd2: null, comparison: null, timepoint: null, isPooledEstimate: false };

function answer(effects: AiExtraction["effects"]): AiExtraction {
  return { design: "RCT", totalN: 402, effects };
}

describe("extractStudyWithModel (grounded)", () => {
  it("keeps rows whose quote and numbers are in the source, with offsets computed here", async () => {
    const model = textModel(
      JSON.stringify(
        answer([
          { ...nulls, outcome: "VTE recurrence", measure: "HR", kind: "estimate-ci", estimate: 0.58, lower: 0.36, upper: 0.93, quote: "hazard ratio, 0.58; 95% CI, 0.36 to 0.93", source: "abstract" },
          { ...nulls, outcome: "VTE recurrence", measure: "RR", kind: "counts", events1: 28, n1: 205, events2: 43, n2: 197, quote: "28 of 205 patients given aspirin and 43 of 197", source: "abstract" },
          // Invented: the quote is not in the text.
          { ...nulls, outcome: "major bleeding", measure: "RR", kind: "counts", events1: 2, n1: 205, events2: 1, n2: 197, quote: "bleeding 2 of 205 vs 1 of 197", source: "abstract" },
          // The quote exists, but the numbers do not appear in it.
          { ...nulls, outcome: "death", measure: "OR", kind: "estimate-ci", estimate: 0.5, lower: 0.2, upper: 0.9, quote: "Major bleeding was rare.", source: "abstract" },
        ]),
      ),
    );
    const { rows, excluded, dropped } = await extractStudyWithModel({ model, modelName: "mock-model" }, { id: 9, title: "Aspirin trial", abstract: ABSTRACT }, 0);
    expect(excluded).toBeNull();
    expect(dropped).toBe(2);
    expect(rows.map((r) => [r.outcome, r.measure, r.reportedMeasure, r.data.kind, r.extractedBy, r.design])).toEqual([
      ["VTE recurrence", "RR", "HR", "estimate-ci", "mock-model", "RCT"],
      ["VTE recurrence", "RR", undefined, "counts", "mock-model", "RCT"],
    ]);
    for (const r of rows) expect(ABSTRACT.slice(r.quotes[0]!.start, r.quotes[0]!.end)).toBe(r.quotes[0]!.quote);
    expect(rows[1]!.totalN).toBe(402);
    expect(rows[0]).toMatchObject({ comparison: null, timepoint: null, isPooledEstimate: false });
  });

  it("a study where nothing survives grounding is excluded with the reason", async () => {
    const model = textModel(JSON.stringify(answer([{ ...nulls, outcome: "x", measure: "RR", kind: "estimate-ci", estimate: 0.5, lower: 0.2, upper: 0.9, quote: "made up", source: "abstract" }])));
    const { excluded } = await extractStudyWithModel({ model, modelName: "m" }, { title: "T", abstract: ABSTRACT }, 3);
    expect(excluded).toEqual({
      studyId: "study-4",
      title: "T",
      reason: "No effect estimate with a confidence interval or arm-level data found in the abstract (1 value the model gave could not be found in the text)",
    });
  });

  it("groundingProblem names why", () => {
    const row = { ...nulls, outcome: "x", measure: "RR" as const, kind: "estimate-ci" as const, estimate: 0.58, lower: 0.36, upper: 0.99, quote: "hazard ratio, 0.58; 95% CI, 0.36 to 0.93", source: "abstract" as const };
    expect(groundingProblem(row, { abstract: ABSTRACT })).toBe("its numbers 0.99 are not in the quote");
    expect(groundingProblem({ ...row, source: "fullText" }, { abstract: ABSTRACT })).toBe("no fullText was given");
  });
});

describe("extractStudies", () => {
  it("falls back to the rules for a study whose model call fails, but throws when every call fails", async () => {
    const studies = [{ title: "A", abstract: ABSTRACT }, { title: "B", abstract: ABSTRACT }];
    await expect(extractStudies({ model: { model: failingModel("upstream 500"), name: "m", provider: "openai" } }, studies)).rejects.toThrow("upstream 500");
    let calls = 0;
    const flaky = textModel(() => {
      calls++;
      if (calls === 1) return "not json";
      return JSON.stringify(answer([{ ...nulls, outcome: "VTE", measure: "HR", kind: "estimate-ci", estimate: 0.58, lower: 0.36, upper: 0.93, quote: "hazard ratio, 0.58; 95% CI, 0.36 to 0.93", source: "abstract" }]));
    });
    const progress: number[] = [];
    const result = await extractStudies({ model: { model: flaky, name: "flaky", provider: "openai" } }, studies, (done) => {
      progress.push(done);
    });
    expect(progress).toEqual([1, 2]);
    expect(result.extracted.map((r) => [r.studyId, r.extractedBy])).toEqual([
      ["study-1", "offline-rules"],
      ["study-1", "offline-rules"],
      ["study-2", "flaky"],
    ]);
  });
});

describe("phraseNarrative", () => {
  const result = runMetaAnalysis(
    {
      studyCount: 3,
      extracted: [
        { studyId: "a", title: "A", outcome: "mortality", measure: "RR", data: { kind: "counts", events1: 12, n1: 100, events2: 20, n2: 98 }, quotes: [], extractedBy: "user", design: "RCT", totalN: 198 },
        { studyId: "b", title: "B", outcome: "mortality", measure: "RR", data: { kind: "counts", events1: 57, n1: 411, events2: 73, n2: 411 }, quotes: [], extractedBy: "user", design: "RCT", totalN: 822 },
      ],
      excluded: [],
      model: "m",
    },
    {},
  );
  const template = result.narrative as CombinedSummary;
  const { citations: _c, generatedBy: _g, unsupportedNumbers: _u, strengthOfEvidence: _s, ...fields } = template;

  it("keeps the model's wording when it adds no number", async () => {
    const phrased = { ...fields, executiveSummary: `Reworded: ${fields.executiveSummary}` };
    const out = await phraseNarrative({ model: textModel(JSON.stringify(phrased)), modelName: "mock" }, template);
    expect(out.usedModel).toBe(true);
    expect(out.narrative.executiveSummary).toMatch(/^Reworded: /);
    expect(out.narrative.strengthOfEvidence).toBe(template.strengthOfEvidence);
  });

  it("falls back to the template when the model writes a number the analysis does not have", async () => {
    const phrased = { ...fields, executiveSummary: "Mortality fell by 37.5% overall." };
    const out = await phraseNarrative({ model: textModel(JSON.stringify(phrased)), modelName: "mock" }, template);
    expect(out).toMatchObject({ usedModel: false, reason: expect.stringContaining("37.5") });
    expect(out.narrative).toBe(template);
  });

  it("falls back to the template when the model fails", async () => {
    const out = await phraseNarrative({ model: failingModel("timeout"), modelName: "mock" }, template);
    expect(out).toMatchObject({ usedModel: false, reason: "timeout" });
  });
});
