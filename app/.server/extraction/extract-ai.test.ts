import { describe, expect, it } from "vitest";
import type { AiExtraction } from "./extract-ai";
import { extractStudyWithModel, groundingProblem } from "./extract-ai";
import { extractStudies } from "./service";
import { extractStudyByRules, UNCERTAIN_OUTCOME } from "./extract-rules";
import { ExtractedRowSchema } from "../meta-analysis/request";
import type { ExtractedStudyData } from "~/lib/meta-analysis/types";
import { phraseNarrative } from "../meta-analysis/narrative";
import { runMetaAnalysis } from "../meta-analysis/run";
import type { CombinedSummary } from "~/lib/combined-summary";
import { failingModel, textModel } from "../../../tests/mocks/meta-models";

const ABSTRACT =
  "Venous thromboembolism recurred in 28 of 205 patients given aspirin and 43 of 197 given placebo (hazard ratio, 0.58; 95% CI, 0.36 to 0.93). Major bleeding was rare.";

const nulls = {
  estimate: null,
  lower: null,
  upper: null,
  events1: null,
  n1: null,
  events2: null,
  n2: null,
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

function answer(effects: AiExtraction["effects"]): AiExtraction {
  return { design: "RCT", totalN: 402, effects };
}

describe("extractStudyWithModel (grounded)", () => {
  it("keeps rows whose quote and numbers are in the source, with offsets computed here", async () => {
    const model = textModel(
      JSON.stringify(
        answer([
          {
            ...nulls,
            outcome: "VTE recurrence",
            measure: "HR",
            kind: "estimate-ci",
            estimate: 0.58,
            lower: 0.36,
            upper: 0.93,
            quote: "hazard ratio, 0.58; 95% CI, 0.36 to 0.93",
            source: "abstract",
          },
          {
            ...nulls,
            outcome: "VTE recurrence",
            measure: "RR",
            kind: "counts",
            events1: 28,
            n1: 205,
            events2: 43,
            n2: 197,
            quote: "28 of 205 patients given aspirin and 43 of 197",
            source: "abstract",
          },
          // Invented: the quote is not in the text.
          {
            ...nulls,
            outcome: "major bleeding",
            measure: "RR",
            kind: "counts",
            events1: 2,
            n1: 205,
            events2: 1,
            n2: 197,
            quote: "bleeding 2 of 205 vs 1 of 197",
            source: "abstract",
          },
          // The quote exists, but the numbers do not appear in it.
          {
            ...nulls,
            outcome: "death",
            measure: "OR",
            kind: "estimate-ci",
            estimate: 0.5,
            lower: 0.2,
            upper: 0.9,
            quote: "Major bleeding was rare.",
            source: "abstract",
          },
        ]),
      ),
    );
    const { rows, excluded, dropped } = await extractStudyWithModel(
      { model, modelName: "mock-model" },
      { id: 9, title: "Aspirin trial", abstract: ABSTRACT },
      0,
    );
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
    const model = textModel(
      JSON.stringify(
        answer([
          {
            ...nulls,
            outcome: "x",
            measure: "RR",
            kind: "estimate-ci",
            estimate: 0.5,
            lower: 0.2,
            upper: 0.9,
            quote: "made up",
            source: "abstract",
          },
        ]),
      ),
    );
    const { excluded } = await extractStudyWithModel({ model, modelName: "m" }, { title: "T", abstract: ABSTRACT }, 3);
    expect(excluded).toEqual({
      studyId: "study-4",
      title: "T",
      reason:
        "No effect estimate with a confidence interval or arm-level data found in the abstract (1 value the model gave could not be found in the text)",
    });
  });

  it("groundingProblem names why", () => {
    const row = {
      ...nulls,
      outcome: "x",
      measure: "RR" as const,
      kind: "estimate-ci" as const,
      estimate: 0.58,
      lower: 0.36,
      upper: 0.99,
      quote: "hazard ratio, 0.58; 95% CI, 0.36 to 0.93",
      source: "abstract" as const,
    };
    expect(groundingProblem(row, { abstract: ABSTRACT })).toBe("its numbers 0.99 are not in the quote");
    expect(groundingProblem({ ...row, source: "fullText" }, { abstract: ABSTRACT })).toBe("no fullText was given");
  });
});

// The new RevMan data types from the model (issue 26 item 6): grounded by the core's quote check and
// mapped to the rows the rules produce for the same text.
describe("extractStudyWithModel: estimate and SE, rates, O − E", () => {
  const TEXT =
    "For major bleeding, the log HR was −0.22 (SE 0.09). Stroke: HR 0.80 (SE 0.09). Wound infection: OR 1.45 (SE of log OR 0.11). " +
    "Depression improved with each session (β = 0.31, SE 0.12). Infections occurred as 12 events in 1,200 person-years with drug A vs 20 events in 1,180 person-years with placebo. " +
    "Overall survival favoured surgery (O − E = −5.2, V = 10.1).";
  const study = { id: 3, title: "A randomised controlled trial", abstract: TEXT };
  const se = { ...nulls, kind: "estimate-se" as const, source: "abstract" as const };

  it("keeps each new kind with its quote and maps it to the rules' rows", async () => {
    const model = textModel(
      JSON.stringify(
        answer([
          {
            ...se,
            outcome: "major bleeding",
            measure: "HR",
            estimate: -0.22,
            se: 0.09,
            estimateScale: "log",
            seOfLog: null,
            quote: "log HR was −0.22 (SE 0.09)",
          },
          {
            ...se,
            outcome: "stroke",
            measure: "HR",
            estimate: 0.8,
            se: 0.09,
            estimateScale: "natural",
            seOfLog: false,
            quote: "HR 0.80 (SE 0.09)",
          },
          {
            ...se,
            outcome: "wound infection",
            measure: "OR",
            estimate: 1.45,
            se: 0.11,
            estimateScale: "natural",
            seOfLog: true,
            quote: "OR 1.45 (SE of log OR 0.11)",
          },
          {
            ...se,
            outcome: "depression",
            measure: "GEN",
            estimate: 0.31,
            se: 0.12,
            estimateScale: "natural",
            quote: "β = 0.31, SE 0.12",
          },
          // The model calls the rate ratio an RR: rates are always an IRR.
          {
            ...nulls,
            kind: "rates",
            outcome: "infections",
            measure: "RR",
            events1: 12,
            time1: 1200,
            events2: 20,
            time2: 1180,
            quote: "12 events in 1,200 person-years with drug A vs 20 events in 1,180 person-years",
            source: "abstract",
          },
          {
            ...nulls,
            kind: "oe-var",
            outcome: "overall survival",
            measure: "HR",
            oe: -5.2,
            variance: 10.1,
            quote: "O − E = −5.2, V = 10.1",
            source: "abstract",
          },
        ]),
      ),
    );
    const { rows, dropped } = await extractStudyWithModel({ model, modelName: "mock-model" }, study, 0);
    expect(dropped).toBe(0);
    expect(rows.map((r) => [r.outcome, r.measure, r.reportedMeasure, r.data, r.outcomeUncertain])).toEqual([
      ["major bleeding", "RR", "HR", { kind: "estimate-se", estimate: -0.22, se: 0.09, scale: "log" }, undefined],
      ["stroke", "RR", "HR", { kind: "estimate-se", estimate: 0.8, se: 0.09 }, UNCERTAIN_OUTCOME.seScale],
      ["wound infection", "OR", undefined, { kind: "estimate-se", estimate: 1.45, se: 0.11 }, undefined],
      ["depression", "GEN", undefined, { kind: "estimate-se", estimate: 0.31, se: 0.12 }, undefined],
      ["infections", "RR", "IRR", { kind: "rates", events1: 12, time1: 1200, events2: 20, time2: 1180 }, undefined],
      ["overall survival", "RR", "HR", { kind: "oe-var", oe: -5.2, v: 10.1 }, undefined],
    ]);
    for (const r of rows) expect(TEXT.slice(r.quotes[0]!.start, r.quotes[0]!.end)).toBe(r.quotes[0]!.quote);
    // The same data as the rules read from the same text (outcome phrases aside).
    const rules = extractStudyByRules(study, 0).rows;
    const key = (r: ExtractedStudyData) => JSON.stringify([r.measure, r.reportedMeasure ?? null, r.data]);
    expect(rows.map(key).sort()).toEqual(rules.map(key).sort());
    // Every row is valid job input.
    for (const r of rows) expect(ExtractedRowSchema.safeParse(r).success).toBe(true);
  });

  it("drops rows whose numbers are not in the quote or whose kind and measure cannot pool", async () => {
    const model = textModel(
      JSON.stringify(
        answer([
          // The SE given is not the one written.
          {
            ...se,
            outcome: "stroke",
            measure: "HR",
            estimate: 0.8,
            se: 0.9,
            estimateScale: "natural",
            seOfLog: false,
            quote: "HR 0.80 (SE 0.09)",
          },
          // Person-time missing: incomplete.
          {
            ...nulls,
            kind: "rates",
            outcome: "infections",
            measure: "IRR",
            events1: 12,
            time1: null,
            events2: 20,
            time2: 1180,
            quote: "12 events in 1,200 person-years with drug A vs 20 events in 1,180 person-years",
            source: "abstract",
          },
          // A natural-scale ratio cannot be negative.
          {
            ...se,
            outcome: "major bleeding",
            measure: "HR",
            estimate: -0.22,
            se: 0.09,
            estimateScale: "natural",
            seOfLog: true,
            quote: "log HR was −0.22 (SE 0.09)",
          },
          // A variance that is not positive.
          {
            ...nulls,
            kind: "oe-var",
            outcome: "overall survival",
            measure: "HR",
            oe: -5.2,
            variance: -10.1,
            quote: "O − E = −5.2, V = 10.1",
            source: "abstract",
          },
        ]),
      ),
    );
    const { rows, dropped } = await extractStudyWithModel({ model, modelName: "m" }, study, 0);
    expect(rows).toEqual([]);
    expect(dropped).toBe(4);
    const row = {
      ...se,
      outcome: "stroke",
      measure: "HR" as const,
      estimate: 0.8,
      se: 0.9,
      estimateScale: "natural" as const,
      seOfLog: false,
      quote: "HR 0.80 (SE 0.09)",
    };
    expect(groundingProblem(row, { abstract: TEXT })).toBe("its numbers 0.9 are not in the quote");
  });
});

describe("extractStudies", () => {
  it("falls back to the rules for a study whose model call fails, but throws when every call fails", async () => {
    const studies = [
      { title: "A", abstract: ABSTRACT },
      { title: "B", abstract: ABSTRACT },
    ];
    await expect(
      extractStudies({ model: { model: failingModel("upstream 500"), name: "m", provider: "openai" } }, studies),
    ).rejects.toThrow("upstream 500");
    let calls = 0;
    const flaky = textModel(() => {
      calls++;
      if (calls === 1) return "not json";
      return JSON.stringify(
        answer([
          {
            ...nulls,
            outcome: "VTE",
            measure: "HR",
            kind: "estimate-ci",
            estimate: 0.58,
            lower: 0.36,
            upper: 0.93,
            quote: "hazard ratio, 0.58; 95% CI, 0.36 to 0.93",
            source: "abstract",
          },
        ]),
      );
    });
    const progress: number[] = [];
    const result = await extractStudies(
      { model: { model: flaky, name: "flaky", provider: "openai" } },
      studies,
      (done) => {
        progress.push(done);
      },
    );
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
        {
          studyId: "a",
          title: "A",
          outcome: "mortality",
          measure: "RR",
          data: { kind: "counts", events1: 12, n1: 100, events2: 20, n2: 98 },
          quotes: [],
          extractedBy: "user",
          design: "RCT",
          totalN: 198,
        },
        {
          studyId: "b",
          title: "B",
          outcome: "mortality",
          measure: "RR",
          data: { kind: "counts", events1: 57, n1: 411, events2: 73, n2: 411 },
          quotes: [],
          extractedBy: "user",
          design: "RCT",
          totalN: 822,
        },
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
