import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { NoObjectGeneratedError, simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { fixtureSuiteName, hasSharedFixtures, readFixture } from "../../../tests/fixtures";
import { normaliseEuropePmcSearch } from "../search/providers/europepmc";
import { normalisePubmedXml } from "../search/providers/pubmed";
import {
  COMBINED_FAILED_MESSAGE,
  generateCombinedSummary,
  streamCombinedSummary,
  type CombinedResult,
  type CombinedStreamLine,
} from "./combined";
import { combineOffline, OFFLINE_GENERATED_BY, offlineSnapshots, offlineStrengthOfEvidence } from "./combined-offline";
import { buildCombinedPrompt } from "./combined-prompt";
import { NoStudyContentError, studySources, type CombinedStudyInput } from "./combined-sources";
import { renderCombinedText } from "./combined-text";
import {
  COMBINED_SECTIONS,
  CombinedSummaryModelSchema,
  CombinedSummarySchema,
  type CombinedSummary,
  type CombinedSummaryModelOutput,
} from "~/lib/combined-summary";
import { createOfflineModel } from "./offline-model";
import { OFFLINE_MODEL_NAME } from "./registry";

const usage = {
  inputTokens: { total: 400, noCache: 400, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 300, text: 300, reasoning: 0 },
};

const STATIN: CombinedStudyInput = {
  id: 1,
  title: "Atorvastatin and frailty in older adults",
  abstract:
    "BACKGROUND: The effect of statins on frailty is unclear. METHODS: We randomly assigned 1,204 adults to atorvastatin 20 mg daily or placebo for 2 years. The primary outcome was the change in frailty index. RESULTS: Frailty rose less with atorvastatin (mean difference -0.34; 95% CI -0.52 to -0.16; p < 0.001). Muscle symptoms occurred in 6.2% vs. 5.9% (p = 0.81). CONCLUSIONS: Atorvastatin slowed frailty without more adverse events.",
};
const WALKING: CombinedStudyInput = {
  id: "pmid:2",
  title: "Walking and frailty: a prospective cohort study",
  abstract:
    "We followed 3,400 women aged 70 years for a median follow-up of 6 years. Walking at least 30 minutes a day was associated with lower frailty (hazard ratio 0.72, 95% CI 0.61 to 0.85). Residual confounding is a limitation. Further trials are needed.",
};
const NO_ABSTRACT: CombinedStudyInput = { id: 3, title: "Frailty in the community: an editorial", abstract: null };

const sourceText = (studies: readonly CombinedStudyInput[]) => studySources(studies).map((s) => s.text);

function allStrings(summary: CombinedSummary): string[] {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  for (const section of COMBINED_SECTIONS) walk(summary[section]);
  return out;
}

/** Every “…” quote and every "Study n: sentence" of the executive summary is copied from a source. */
function expectQuotesFromSources(summary: CombinedSummary, texts: readonly string[]) {
  for (const s of allStrings(summary)) {
    for (const m of s.matchAll(/“([^”]+)”/g)) {
      const quote = m[1]!;
      expect(
        texts.some((t) => t.includes(quote) || t.toLowerCase().includes(quote)),
        quote,
      ).toBe(true);
    }
  }
}

function expectKnownCitations(summary: CombinedSummary, studies: readonly CombinedStudyInput[]) {
  const ids = new Set(studySources(studies).flatMap((s) => s.sentences.map((x) => x.id)));
  for (const section of COMBINED_SECTIONS)
    for (const id of summary.citations[section]) expect(ids.has(id), id).toBe(true);
}

async function readLines(response: Response): Promise<CombinedStreamLine[]> {
  const text = await response.text();
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as CombinedStreamLine);
}

/** A valid model answer that cites one unknown id and states one number no source has. */
function modelAnswer(): CombinedSummaryModelOutput {
  const citations = Object.fromEntries(
    COMBINED_SECTIONS.map((s) => [s, [] as string[]]),
  ) as CombinedSummaryModelOutput["citations"];
  citations.executiveSummary = ["T1.S4", "T2.S3", "T9.S9"];
  citations.quantitativeFindings = ["t1.s4"];
  return {
    executiveSummary:
      "Study 1 found atorvastatin slowed frailty (mean difference -0.34) and Study 2 linked walking to 42% less frailty [T2.S3].",
    quantitativeFindings: {
      pooledEffectSize: "Not pooled: the studies report a mean difference of -0.34 and a hazard ratio of 0.72.",
      statisticalHeterogeneity: "Not reported in the abstracts.",
      sampleSizeTotal: "4,604 participants across 2 of 2 studies.",
      keyOutcomes: [
        "Study 1: frailty index (mean difference -0.34; 95% CI -0.52 to -0.16)",
        "Study 2: frailty (hazard ratio 0.72)",
      ],
    },
    studyCharacteristics: {
      designQuality: "One randomised trial and one cohort study.",
      populationSummary: "Older adults.",
      interventionDetails: "Atorvastatin 20 mg daily; walking.",
      followUpPeriods: "2 years; 6 years.",
    },
    commonThemes: ["Frailty in older adults"],
    clinicalRecommendations: {
      evidenceBasedGuidance: "Low-certainty support.",
      implementationConsiderations: "Not reported in the abstracts.",
      patientSelection: "Older adults.",
      dosageAndTiming: "Atorvastatin 20 mg daily.",
    },
    safetyProfile: {
      adverseEvents: "Muscle symptoms 6.2% vs. 5.9%.",
      riskBenefitRatio: "Favourable.",
      contraindications: "None reported.",
    },
    conflictsAndHeterogeneity: "None.",
    gradeAssessment: "Moderate.",
    studyQuality: "Mixed.",
    clinicalImplications: "Consider walking.",
    limitationsAndBiases: "Confounding in Study 2.",
    futureResearchPriorities: ["Trials of walking"],
    strengthOfEvidence: "moderate",
    citations,
  };
}

function streamingModel(text: string, pieces = 12, error?: Error) {
  const size = Math.ceil(text.length / pieces);
  const deltas: string[] = [];
  for (let i = 0; i < text.length; i += size) deltas.push(text.slice(i, i + size));
  const parts: LanguageModelV4StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t", delta })),
    ...(error
      ? [{ type: "error", error } as LanguageModelV4StreamPart]
      : [
          { type: "text-end", id: "t" } as LanguageModelV4StreamPart,
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage } as LanguageModelV4StreamPart,
        ]),
  ];
  return new MockLanguageModelV4({
    doStream: async () => ({ stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: 1 }) }),
  });
}

describe("CombinedSummarySchema", () => {
  it("is strict-mode friendly: only strings, string arrays, objects and one enum, all required", () => {
    const json = JSON.stringify(CombinedSummaryModelSchema.toJSONSchema());
    expect(json).not.toMatch(/"(?:minimum|maximum|minItems|maxItems|minLength|maxLength)"/);
    expect(json).not.toContain('"number"');
    const schema = CombinedSummaryModelSchema.toJSONSchema() as {
      required: string[];
      properties: Record<string, unknown>;
    };
    expect(schema.required.sort()).toEqual(Object.keys(schema.properties).sort());
  });
});

describe("buildCombinedPrompt", () => {
  it("numbers every study's sentences T1.S1… and notes studies without an abstract", () => {
    const { system, prompt, sources } = buildCombinedPrompt([STATIN, WALKING, NO_ABSTRACT]);
    expect(system).toContain("Never pool effects yourself");
    expect(prompt).toContain("<source>");
    expect(prompt).toContain("[T1] Study 1");
    expect(prompt).toContain("[T1.S1] Atorvastatin and frailty in older adults");
    expect(prompt).toContain("[T1.S3] We randomly assigned 1,204 adults");
    expect(prompt).toContain("[T3] Study 3 | no abstract available: title only");
    expect(prompt).toMatch(/- Study 1: design: randomised controlled trial \(T1\.S\d+\); sample size: "1,204 adults"/);
    expect(sources.map((s) => s.ref)).toEqual(["T1", "T2", "T3"]);
    for (const s of sources)
      for (const sentence of s.sentences) expect(s.text.slice(sentence.start, sentence.end)).toBe(sentence.text);
  });
});

describe("offlineStrengthOfEvidence", () => {
  it.each([
    [["rct", "rct"], "moderate"],
    [["meta-analysis"], "moderate"],
    [["rct", "rct", "rct", "rct"], "high"],
    [["meta-analysis", "rct", "rct", "cohort"], "high"],
    [["meta-analysis", "rct", "cohort", "cohort", "cohort", "cohort"], "moderate"],
    [["rct", "cohort"], "low"],
    [[null, "cross-sectional"], "low"],
  ] as const)("%j → %s", (designs, level) => {
    expect(offlineStrengthOfEvidence(designs)).toBe(level);
  });
});

describe("combineOffline", () => {
  it("builds a schema-valid, grounded summary that never pools", () => {
    const studies = [STATIN, WALKING, NO_ABSTRACT];
    const summary = combineOffline(studies);
    expect(() => CombinedSummarySchema.parse(summary)).not.toThrow();
    expect(summary.generatedBy).toBe(OFFLINE_GENERATED_BY);
    expect(summary.generatedBy).toContain("offline extractive model");
    expect(summary.quantitativeFindings.pooledEffectSize).toMatch(
      /^Not pooled: MetaMind pools effects only in a meta-analysis; reported effects: /,
    );
    expect(summary.quantitativeFindings.pooledEffectSize).toContain(
      "“mean difference -0.34; 95% CI -0.52 to -0.16; p < 0.001”",
    );
    expect(summary.quantitativeFindings.pooledEffectSize).toContain("“hazard ratio 0.72, 95% CI 0.61 to 0.85”");
    expect(summary.quantitativeFindings.sampleSizeTotal).toMatch(
      /^4,604: the sum of the sample sizes reported by 2 of 3 studies/,
    );
    expect(summary.studyCharacteristics.designQuality).toContain(
      "1 randomised controlled trial (Study 1) and 1 cohort study (Study 2)",
    );
    expect(summary.studyCharacteristics.followUpPeriods).toContain("“for 2 years”");
    expect(summary.limitationsAndBiases).toContain("Study 3 has no abstract");
    expect(summary.strengthOfEvidence).toBe("low");
    expect(summary.gradeAssessment).toContain("Not a formal GRADE rating");
    expect(summary.executiveSummary).toMatch(
      /^This offline summary quotes 3 studies: 1 randomised controlled trial, 1 cohort study and 1 study without a stated design\.\nStudy 1: .+\nStudy 2: [^\n]+$/,
    );
    // Issue 16: themes are phrases with their role, the studies named by title.
    expect(summary.commonThemes[0]).toBe(
      "Frailty (outcome): in 3 of 3 studies — “Atorvastatin and frailty in older adults”; “Walking and frailty: a prospective cohort study”; “Frailty in the community: an editorial”",
    );
    expect(summary.futureResearchPriorities).toEqual(["Study 2: “Further trials are needed.”"]);
    expect(summary.unsupportedNumbers).toEqual([]);
    expectQuotesFromSources(summary, sourceText(studies));
    expectKnownCitations(summary, studies);
    expect(summary.citations.executiveSummary.length).toBeGreaterThan(0);
    expect(summary.citations.quantitativeFindings).toContain("T1.S5");
  });

  it("says 'not reported' plainly when the abstracts report nothing quantitative", () => {
    const summary = combineOffline([
      { title: "A note", abstract: "Clinicians discussed frailty at length. Opinions varied widely." },
    ]);
    expect(summary.quantitativeFindings.pooledEffectSize).toMatch(
      /^Not pooled: .*none of the abstract reports an effect estimate/,
    );
    expect(summary.quantitativeFindings.sampleSizeTotal).toBe(
      "Not reported: none of the abstract states a sample size.",
    );
    expect(summary.strengthOfEvidence).toBe("low");
    expect(() => CombinedSummarySchema.parse(summary)).not.toThrow();
  });

  it("refuses a set without any abstract", () => {
    expect(() => combineOffline([NO_ABSTRACT, { title: "Another title", abstract: "  short " }])).toThrow(
      NoStudyContentError,
    );
  });

  it("renders plain text with headings, sources and the study list", () => {
    const summary = combineOffline([STATIN, WALKING]);
    const text = renderCombinedText(summary, studySources([STATIN, WALKING]));
    expect(text).toMatch(/^Combined Research Summary of 2 studies\nGenerated by: MetaMind Offline Extractive v1/);
    for (const heading of [
      "Executive summary",
      "Quantitative findings",
      "Pooled effect size: Not pooled",
      "Key outcomes:",
      "Safety profile",
      "Future research priorities",
    ]) {
      expect(text).toContain(heading);
    }
    expect(text).toContain("\nStudy 2: Walking and frailty: a prospective cohort study");
    // Issue 16: sources are named by study title, never as bare sentence ids.
    expect(text).toMatch(/\nSources: “Atorvastatin and frailty in older adults” \(sentences? \d+/);
    expect(text).not.toMatch(/\bT\d+\.S\d+\b/);
  });

  it("grows section by section in its snapshots, ending with the whole summary", () => {
    const summary = combineOffline([STATIN, WALKING]);
    const snapshots = offlineSnapshots(summary);
    expect(snapshots.length).toBeGreaterThan(COMBINED_SECTIONS.length);
    expect(snapshots[0]).toEqual({ generatedBy: summary.generatedBy, citations: {} });
    const executive = snapshots.map((s) => s.executiveSummary).filter((t): t is string => typeof t === "string");
    expect(executive.length).toBeGreaterThan(2);
    for (let i = 1; i < executive.length; i++) expect(executive[i]!.startsWith(executive[i - 1]!)).toBe(true);
    expect(snapshots[snapshots.length - 1]).toEqual(summary);
  });
});

describe.skipIf(!hasSharedFixtures())(fixtureSuiteName("combineOffline on real abstracts"), () => {
  const pubmed = (file: string) =>
    normalisePubmedXml(readFixture(`pubmed/${file}`)).studies.map((s) => ({
      id: s.sourceId,
      title: s.title,
      abstract: s.abstract,
    }));
  const epmc = (file: string) =>
    normaliseEuropePmcSearch(JSON.parse(readFixture(`europepmc/${file}`)) as unknown).studies.map((s) => ({
      id: s.sourceId,
      title: s.title,
      abstract: s.abstract,
    }));

  it("aspirin trial + semaglutide meta-analysis: schema-valid, moderate, quoted effects, summed sample", () => {
    const studies = [...pubmed("efetch_pubmed_23121403_POST.xml"), ...pubmed("efetch_pubmed_29915538_POST.xml")];
    const summary = CombinedSummarySchema.parse(combineOffline(studies));
    expect(summary.strengthOfEvidence).toBe("moderate");
    expect(summary.quantitativeFindings.sampleSizeTotal).toContain(
      "10,595: the sum of the sample sizes reported by 2 of 2 studies",
    );
    expect(summary.quantitativeFindings.pooledEffectSize).toContain(
      "Study 1: “hazard ratio with aspirin, 0.74; 95% confidence interval [CI], 0.52 to 1.05; P=0.09”",
    );
    expect(summary.quantitativeFindings.pooledEffectSize).toContain(
      "Study 2 (a meta-analysis): “WMD: -0.93%, 95% CI: -1.24 to -0.62, P < 0.001”",
    );
    expect(summary.quantitativeFindings.keyOutcomes).toContain(
      "Study 1, primary outcome: “a recurrence of venous thromboembolism”",
    );
    expect(summary.studyCharacteristics.followUpPeriods).toContain("“follow-up period of 37.2 months”");
    expect(summary.safetyProfile.riskBenefitRatio).toContain("improved net clinical benefit");
    expectQuotesFromSources(summary, sourceText(studies));
    expectKnownCitations(summary, studies);
  });

  it("up to 50 mixed real abstracts: always schema-valid and quoted from the sources", () => {
    const studies = [...epmc("search_core_COVID-19_pageSize25.json"), ...epmc("search_core_cancer_json.json")].slice(
      0,
      50,
    );
    expect(studies.length).toBeGreaterThanOrEqual(40);
    const summary = CombinedSummarySchema.parse(combineOffline(studies));
    expectQuotesFromSources(summary, sourceText(studies));
    expectKnownCitations(summary, studies);
    expect(summary.executiveSummary.match(/Study \d+: /g)!.length).toBeLessThanOrEqual(8);
    for (let i = 0; i < 10; i++) CombinedSummarySchema.parse(combineOffline(studies.slice(i * 4, i * 4 + 3)));
  });
});

describe("generateCombinedSummary with a mock model", () => {
  const deps = (model: MockLanguageModelV4, onFinish = vi.fn()) => ({
    model,
    modelName: "mock-model (OpenAI)",
    provider: "openai" as const,
    onFinish,
  });

  it("parses the JSON object, grounds it and calls onFinish once", async () => {
    const onFinish = vi.fn();
    const model = streamingModel(JSON.stringify(modelAnswer()));
    const result = await generateCombinedSummary(deps(model, onFinish), [STATIN, WALKING]);
    expect(onFinish).toHaveBeenCalledTimes(1);
    expect(onFinish).toHaveBeenCalledWith(result);
    const summary = CombinedSummarySchema.parse(result.combinedSummary);
    expect(result).toMatchObject({ studiesAnalyzed: 2, model: "mock-model (OpenAI)", notes: [] });
    expect(summary.generatedBy).toBe("mock-model (OpenAI)");
    // "42%" is in no source: marked; "Study 1"/"Study 2" labels and copied numbers are not.
    expect(summary.executiveSummary).toBe(
      "Study 1 found atorvastatin slowed frailty (mean difference -0.34) and Study 2 linked walking to ⟦unverified: 42%⟧ less frailty.",
    );
    expect(summary.quantitativeFindings.sampleSizeTotal).toBe("4,604 participants across 2 of 2 studies.");
    expect(summary.unsupportedNumbers).toEqual(["42%"]);
    // Unknown ids are dropped, ids are normalised, and the inline marker became a citation.
    expect(summary.citations.executiveSummary).toEqual(["T1.S4", "T2.S3"]);
    expect(summary.citations.quantitativeFindings).toEqual(["T1.S4"]);
    expect(result.citationSources["T2.S3"]).toMatchObject({ study: 2, studyId: "pmid:2" });
    expect(result.citationSources["T2.S3"]!.quote).toContain("hazard ratio 0.72");
    expect(result.combinedText).toContain("42% [not found in the sources]");
    const call = model.doStreamCalls[0]!;
    expect(call.responseFormat).toMatchObject({ type: "json", name: "combined_summary" });
  });

  it("rejects a model error with that error", async () => {
    const failing = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error("429 Too Many Requests");
      },
    });
    const onFinish = vi.fn();
    await expect(generateCombinedSummary({ ...deps(failing, onFinish) }, [STATIN])).rejects.toThrow(
      "429 Too Many Requests",
    );
    expect(onFinish).not.toHaveBeenCalled();
  });

  it("rejects malformed JSON with NoObjectGeneratedError and never calls onFinish", async () => {
    const onFinish = vi.fn();
    await expect(
      generateCombinedSummary(deps(streamingModel('{"executiveSummary": "cut off'), onFinish), [STATIN]),
    ).rejects.toSatisfy((e) => NoObjectGeneratedError.isInstance(e));
    const wrongShape = JSON.stringify({ ...modelAnswer(), strengthOfEvidence: "very high" });
    await expect(generateCombinedSummary(deps(streamingModel(wrongShape), onFinish), [STATIN])).rejects.toSatisfy((e) =>
      NoObjectGeneratedError.isInstance(e),
    );
    expect(onFinish).not.toHaveBeenCalled();
  });

  it("strips ```json fences from OpenAI-compatible models", async () => {
    const model = streamingModel("```json\n" + JSON.stringify(modelAnswer()) + "\n```");
    const result = await generateCombinedSummary({ ...deps(model), provider: "openai-compatible" }, [STATIN, WALKING]);
    expect(result.combinedSummary.strengthOfEvidence).toBe("moderate");
  });

  it("uses the offline combiner for the offline provider, whatever the model would say", async () => {
    const result = await generateCombinedSummary(
      { model: createOfflineModel(), modelName: OFFLINE_MODEL_NAME, provider: "offline" },
      [STATIN, WALKING],
    );
    expect(result.combinedSummary).toEqual(combineOffline([STATIN, WALKING]));
    expect(result.model).toBe(OFFLINE_MODEL_NAME);
  });

  it("refuses before calling the model when no study has an abstract", async () => {
    const model = streamingModel(JSON.stringify(modelAnswer()));
    await expect(generateCombinedSummary(deps(model), [NO_ABSTRACT])).rejects.toThrow(NoStudyContentError);
    expect(model.doStreamCalls).toHaveLength(0);
  });
});

describe("streamCombinedSummary", () => {
  it("streams grounded partial objects from a model, then the done line after onFinish", async () => {
    const onFinish = vi.fn();
    const answer = JSON.stringify(modelAnswer());
    const response = streamCombinedSummary(
      {
        model: streamingModel(answer, 40),
        modelName: "mock-model",
        provider: "openai",
        onFinish,
        partialIntervalMs: 0,
      },
      [STATIN, WALKING],
    );
    expect(response.headers.get("Content-Type")).toBe("application/x-ndjson; charset=utf-8");
    expect(response.headers.get("Content-Encoding")).toBe("identity");
    expect(response.headers.get("X-Model-Name")).toBe("mock-model");
    const lines = await readLines(response);
    const partials = lines.filter((l) => l.type === "partial");
    expect(partials.length).toBeGreaterThan(5);
    for (const p of partials) expect(p.object.generatedBy).toBe("mock-model");
    expect(lines.map((l) => l.type).slice(-1)).toEqual(["done"]);
    const done = lines[lines.length - 1] as { type: "done" } & CombinedResult;
    expect(CombinedSummarySchema.parse(done.combinedSummary).unsupportedNumbers).toEqual(["42%"]);
    expect(onFinish).toHaveBeenCalledTimes(1);
    // Partial strings are grounded too: a flagged number never appears bare once complete.
    const lastExecutive = partials
      .map((p) => p.object.executiveSummary)
      .filter(Boolean)
      .pop();
    expect(lastExecutive).not.toMatch(/(?<!⟦unverified: )42%/);
  });

  it("ends with an error line, no done line and no onFinish when the model returns malformed JSON", async () => {
    const onFinish = vi.fn();
    const onError = vi.fn();
    const response = streamCombinedSummary(
      {
        model: streamingModel('{"executiveSummary": "Study 1 found', 3),
        modelName: "m",
        provider: "openai",
        onFinish,
        onError,
      },
      [STATIN],
    );
    const lines = await readLines(response);
    expect(lines[lines.length - 1]).toEqual({ type: "error", error: "AI_FAILED", message: COMBINED_FAILED_MESSAGE });
    expect(lines.some((l) => l.type === "done")).toBe(false);
    expect(onFinish).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledTimes(1);
    expect(NoObjectGeneratedError.isInstance(onError.mock.calls[0]![0])).toBe(true);
  });

  it("reports the model's own error when the stream fails mid-way", async () => {
    const onError = vi.fn();
    const response = streamCombinedSummary(
      {
        model: streamingModel(JSON.stringify(modelAnswer()).slice(0, 200), 4, new Error("upstream 500")),
        modelName: "m",
        provider: "openai",
        onFinish: vi.fn(),
        onError,
      },
      [STATIN],
    );
    const lines = await readLines(response);
    expect(lines[lines.length - 1]).toMatchObject({ type: "error", error: "AI_FAILED" });
    expect(String(onError.mock.calls[0]![0])).toContain("upstream 500");
  });

  it("streams the offline summary section by section through the same lines", async () => {
    const onFinish = vi.fn();
    const response = streamCombinedSummary(
      { model: createOfflineModel(), modelName: OFFLINE_MODEL_NAME, provider: "offline", onFinish, offlineDelayMs: 1 },
      [STATIN, WALKING],
    );
    const lines = await readLines(response);
    const expected = combineOffline([STATIN, WALKING]);
    expect(lines.filter((l) => l.type === "partial")).toHaveLength(offlineSnapshots(expected).length);
    const done = lines[lines.length - 1] as { type: "done" } & CombinedResult;
    expect(done).toMatchObject({
      type: "done",
      studiesAnalyzed: 2,
      model: OFFLINE_MODEL_NAME,
      combinedSummary: expected,
    });
    expect(done.combinedText).toBe(renderCombinedText(expected, studySources([STATIN, WALKING])));
    expect(onFinish).toHaveBeenCalledTimes(1);
  });

  it("stops without onFinish when the client goes away", async () => {
    const onFinish = vi.fn();
    const onError = vi.fn();
    const response = streamCombinedSummary(
      {
        model: createOfflineModel(),
        modelName: OFFLINE_MODEL_NAME,
        provider: "offline",
        onFinish,
        onError,
        offlineDelayMs: 20,
      },
      [STATIN, WALKING],
    );
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await new Promise((r) => setTimeout(r, 60));
    expect(onFinish).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it("throws NoStudyContentError before streaming when no study has an abstract", () => {
    expect(() =>
      streamCombinedSummary({ model: createOfflineModel(), modelName: "x", provider: "offline" }, [NO_ABSTRACT]),
    ).toThrow(NoStudyContentError);
  });
});
