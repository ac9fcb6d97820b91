import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ExtractedStudyData } from "~/lib/meta-analysis/types";
import { fixtureSuiteName, hasSharedFixtures, readFixture } from "../../../tests/fixtures";
import { extractPdfText } from "../fulltext/fetch";
import { normaliseEuropePmcSearch } from "../search/providers/europepmc";
import { normalisePubmedXml } from "../search/providers/pubmed";
import {
  classifyDesign,
  extractByRules,
  extractStudyByRules,
  findEffectData,
  NO_DATA_REASON,
  NO_TEXT_REASON,
  UNCERTAIN_OUTCOME,
  type MetaStudyInput,
} from "./extract-rules";
import { groupRows } from "../meta-analysis/group";

/** Every quote slices back out of the text it names. */
function expectGrounded(study: MetaStudyInput, rows: readonly ExtractedStudyData[]) {
  for (const row of rows) {
    for (const q of row.quotes) {
      const source = q.source === "abstract" ? study.abstract! : study.fullTextAnalysis!;
      expect(source.slice(q.start, q.end)).toBe(q.quote);
    }
  }
}

function rowsOf(study: MetaStudyInput) {
  const { rows, excluded } = extractStudyByRules(study, 0);
  expectGrounded(study, rows);
  return { rows, excluded };
}

const simple = (abstract: string): MetaStudyInput => ({ id: "s1", title: "A randomised controlled trial", abstract });

describe("extractStudyByRules: written forms", () => {
  it.each([
    ["Stroke: RR 0.75 (95% CI 0.60 to 0.93).", "RR", { estimate: 0.75, lower: 0.6, upper: 0.93 }],
    ["Readmission was more likely (OR = 1.8; 95% CI, 1.2–2.6).", "OR", { estimate: 1.8, lower: 1.2, upper: 2.6 }],
    ["Death was less frequent (HR 0.82 (95% CI 0.70–0.96)).", "RR", { estimate: 0.82, lower: 0.7, upper: 0.96 }],
    ["The relative risk of stroke was 0.75 (95% CI 0.60 to 0.93).", "RR", { estimate: 0.75, lower: 0.6, upper: 0.93 }],
    ["Pain fell (mean difference -2.1, 95% CI -3.0 to -1.2).", "MD", { estimate: -2.1, lower: -3, upper: -1.2 }],
    ["Pain fell (mean difference −2.1, 95% CI −3.0 to −1.2).", "MD", { estimate: -2.1, lower: -3, upper: -1.2 }],
    ["Depression improved (Hedges' g = 0.45, 95% CI 0.20 to 0.70).", "SMD", { estimate: 0.45, lower: 0.2, upper: 0.7 }],
    [
      "Death was less frequent with drug A (HR 0.82 (0.70–0.96); p = 0.01).",
      "RR",
      { estimate: 0.82, lower: 0.7, upper: 0.96 },
    ],
    ["Readmission rose (OR 1.8, 95% CI 1.2, 2.6, P = 0.003).", "OR", { estimate: 1.8, lower: 1.2, upper: 2.6 }],
    ["Weight fell (MD −2.1 kg, 95% CI −3.0 – −1.2).", "MD", { estimate: -2.1, lower: -3, upper: -1.2 }],
    ["Fracture risk was lower (RR 0·75, 95% CI 0·60—0·93).", "RR", { estimate: 0.75, lower: 0.6, upper: 0.93 }],
    [
      "Falls decreased (risk difference −5.2%, 95% CI −8.1% to −2.3%).",
      "RD",
      { estimate: -0.052, lower: -0.081, upper: -0.023 },
    ],
  ])("%s", (text, measure, numbers) => {
    const { rows } = rowsOf(simple(text));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.measure).toBe(measure);
    expect(rows[0]!.data).toEqual({ kind: "estimate-ci", ...numbers });
  });

  it("HR keeps reportedMeasure HR (pooled as a log ratio, never with RRs)", () => {
    const { rows } = rowsOf(simple("Death was less frequent (HR 0.82 (95% CI 0.70–0.96))."));
    expect(rows[0]).toMatchObject({ measure: "RR", reportedMeasure: "HR", outcome: "death", isPooledEstimate: false });
  });

  it("events/totals per arm: '12/100 vs 20/98' and '12 of 100 … and 20 of 98'", () => {
    const a = rowsOf(simple("Mortality was 12/100 vs 20/98 (p = 0.04).")).rows;
    expect(a[0]).toMatchObject({
      outcome: "mortality",
      measure: "RR",
      totalN: 198,
      data: { kind: "counts", events1: 12, n1: 100, events2: 20, n2: 98 },
    });
    expect(a[0]!.quotes[0]!.quote).toBe("12/100 vs 20/98");
    const b = rowsOf(simple("Relapse occurred in 12 of 100 patients given the drug and 20 of 98 given placebo.")).rows;
    expect(b[0]).toMatchObject({
      outcome: "relapse",
      data: { kind: "counts", events1: 12, n1: 100, events2: 20, n2: 98 },
    });
  });

  it("mean ± SD (n) per arm", () => {
    const { rows } = rowsOf(simple("Pain score was 5.2 ± 1.1 (n = 30) vs 6.0 ± 1.3 (n = 28)."));
    expect(rows[0]).toMatchObject({
      outcome: "pain score",
      measure: "MD",
      totalN: 58,
      data: { kind: "means", mean1: 5.2, sd1: 1.1, n1: 30, mean2: 6, sd2: 1.3, n2: 28 },
    });
  });

  // Issue 26 round 11 (sentence-se): the arm reader decides the spread by the sentence's own notation.
  it("mean ± SE (n) per arm gives no mean/SD row: an SE is not an SD", () => {
    const { rows } = rowsOf(simple("Pain score (mean ± SE) was 5.2 ± 1.1 (n = 30) vs 6.0 ± 1.3 (n = 28)."));
    expect(rows.filter((r) => r.data.kind === "means")).toEqual([]);
  });

  // Issue 26 round 15 (report-se): a notation declared once for the text decides an unlabelled "±".
  it("mean ± SEM declared once for the text: an unlabelled a ± b (n) per arm gives no mean/SD row", () => {
    const sentence = "Pain score was 5.2 ± 1.1 (n = 30) vs 6.0 ± 1.3 (n = 28).";
    const declared = rowsOf(simple(`Data are presented as mean ± SEM. ${sentence}`)).rows;
    expect(declared.filter((r) => r.data.kind === "means")).toEqual([]);
    const sd = rowsOf(simple(`Data are presented as mean ± SD. ${sentence}`)).rows;
    expect(sd[0]).toMatchObject({ data: { kind: "means", mean1: 5.2, sd1: 1.1 } });
  });

  it("a 90% interval is not used (escalc's CI recovery assumes 95%)", () => {
    const { rows, excluded } = rowsOf(simple("Stroke: RR 0.75 (90% CI 0.62 to 0.91)."));
    expect(rows).toEqual([]);
    expect(excluded?.reason).toBe(NO_DATA_REASON);
  });

  it("studies without numbers or text are excluded with the reason", () => {
    const result = extractByRules([
      { id: 7, title: "Qualitative interviews", abstract: "Participants described their experience of care." },
      { title: "No abstract", abstract: "   " },
    ]);
    expect(result.extracted).toEqual([]);
    expect(result.excluded).toEqual([
      { studyId: "7", title: "Qualitative interviews", reason: NO_DATA_REASON },
      { studyId: "study-2", title: "No abstract", reason: NO_TEXT_REASON },
    ]);
  });
});

describe("classifyDesign", () => {
  it("classifies designs for GRADE", () => {
    expect(classifyDesign("Aspirin after VTE: a randomized controlled trial", "")).toBe("RCT");
    expect(classifyDesign("Coffee and glioma", "We conducted a prospective cohort study of 1,234 women.")).toBe(
      "cohort",
    );
    expect(classifyDesign("Tea and brain cancer: a meta-analysis", "")).toBe("meta-analysis");
    expect(classifyDesign("Notes", "Nothing here.")).toBeNull();
  });
});

function pubmedStudy(file: string): MetaStudyInput {
  const study = normalisePubmedXml(readFixture(`pubmed/${file}`)).studies[0]!;
  return { id: study.sourceId, title: study.title, abstract: study.abstract! };
}

function europePmcStudy(file: string, sourceId: string): MetaStudyInput {
  const study = normaliseEuropePmcSearch(JSON.parse(readFixture(`europepmc/${file}`)) as unknown).studies.find(
    (s) => s.sourceId === `MED/${sourceId}`,
  );
  if (!study?.abstract) throw new Error(`fixture ${file} has no abstract for ${sourceId}`);
  return { id: sourceId, title: study.title, abstract: study.abstract };
}

describe.skipIf(!hasSharedFixtures())(fixtureSuiteName("on real abstracts"), () => {
  it("low-dose aspirin (PubMed 23121403): arm counts with placebo named first, hazard ratios, RCT", () => {
    const study = pubmedStudy("efetch_pubmed_23121403_POST.xml");
    const { rows } = rowsOf(study);
    expect(rows.every((r) => r.design === "RCT")).toBe(true);
    // "Venous thromboembolism recurred in 73 of 411 patients assigned to placebo and in 57 of 411
    // assigned to aspirin": arm 1 is aspirin, so the arms are swapped.
    expect(rows[0]).toMatchObject({
      outcome: "venous thromboembolism",
      measure: "RR",
      totalN: 822,
      data: { kind: "counts", events1: 57, n1: 411, events2: 73, n2: 411 },
    });
    expect(rows[0]!.quotes[0]!.quote).toBe("73 of 411 patients assigned to placebo and in 57 of 411");
    expect(rows[1]).toMatchObject({
      outcome: "recurrence of venous thromboembolism",
      measure: "RR",
      reportedMeasure: "HR",
      comparison: "aspirin",
      isPooledEstimate: false,
      data: { kind: "estimate-ci", estimate: 0.74, lower: 0.52, upper: 1.05 },
    });
    expect(rows[1]!.quotes[0]!.quote).toBe(
      "hazard ratio with aspirin, 0.74; 95% confidence interval [CI], 0.52 to 1.05",
    );
    const all = findEffectData(study.abstract!)
      .filter((f) => f.data.kind === "estimate-ci")
      .map((f) => f.data);
    expect(all).toEqual([
      { kind: "estimate-ci", estimate: 0.74, lower: 0.52, upper: 1.05 },
      { kind: "estimate-ci", estimate: 0.66, lower: 0.48, upper: 0.92 },
      { kind: "estimate-ci", estimate: 0.67, lower: 0.49, upper: 0.91 },
    ]);
  });

  it("once-weekly semaglutide meta-analysis (PubMed 29915538): WMDs by outcome", () => {
    const study = pubmedStudy("efetch_pubmed_29915538_POST.xml");
    const { rows } = rowsOf(study);
    const byOutcome = Object.fromEntries(rows.map((r) => [r.outcome, r]));
    expect(rows.every((r) => r.isPooledEstimate && r.comparison === "semaglutide vs other therapies")).toBe(true);
    expect(byOutcome["glycosylated hemoglobin"]).toMatchObject({
      measure: "MD",
      design: "meta-analysis",
      data: { estimate: -0.93, lower: -1.24, upper: -0.62 },
    });
    expect(byOutcome["fasting plasma glucose"]?.data).toEqual({
      kind: "estimate-ci",
      estimate: -1.15,
      lower: -1.67,
      upper: -0.63,
    });
    expect(byOutcome["body weight"]?.data).toEqual({
      kind: "estimate-ci",
      estimate: -3.47,
      lower: -3.96,
      upper: -2.98,
    });
    expect(byOutcome["systolic blood pressure"]?.data).toEqual({
      kind: "estimate-ci",
      estimate: -2.55,
      lower: -3.22,
      upper: -1.88,
    });
    // The abstract prints "WMD: -2.21, 95% CI: 1.54 to 2.88" for pulse rate (a sign typo): kept as
    // written, and the analysis reports that its CI does not contain the estimate.
    expect(byOutcome["pulse rate"]?.data).toEqual({ kind: "estimate-ci", estimate: -2.21, lower: 1.54, upper: 2.88 });
  });

  it("favipiravir Cochrane review (Europe PMC 38314855): risk ratios with outcomes", () => {
    const study = europePmcStudy("search_core_COVID-19_pageSize25.json", "38314855");
    const { rows } = rowsOf(study);
    const ventilation = rows.find((r) => r.outcome === "progression to invasive mechanical ventilation");
    expect(ventilation).toMatchObject({
      measure: "RR",
      data: { kind: "estimate-ci", estimate: 0.86, lower: 0.68, upper: 1.09 },
    });
    expect(rows.find((r) => r.outcome === "adverse events")?.data).toEqual({
      kind: "estimate-ci",
      estimate: 1.27,
      lower: 1.05,
      upper: 1.54,
    });
    expect(rows.find((r) => r.outcome === "time to clinical improvement")).toMatchObject({
      reportedMeasure: "HR",
      isPooledEstimate: true,
    });
    expect(rows.map((r) => r.outcome)).not.toContain("primary outcome");
  });

  it("COVID-19 vaccination and cerebrovascular disease (Europe PMC 38727032): cohort HRs", () => {
    const study = europePmcStudy("search_core_COVID-19_pageSize25.json", "38727032");
    const { rows } = rowsOf(study);
    expect(rows.find((r) => r.outcome === "cerebral infarction")).toMatchObject({
      reportedMeasure: "HR",
      design: "cohort",
      data: { kind: "estimate-ci", estimate: 0.62, lower: 0.48, upper: 0.79 },
    });
  });

  it("second-hand smoke and bladder cancer (Europe PMC 40536077): pooled RR of bladder cancer", () => {
    const { rows } = rowsOf(europePmcStudy("search_core_cancer_json.json", "40536077"));
    expect(rows[0]).toMatchObject({
      outcome: "bladder cancer",
      measure: "RR",
      data: { estimate: 1.16, lower: 0.95, upper: 1.43 },
    });
  });
});

const PDF_DIR = fileURLToPath(new URL("../../../../shared/pdfs/", import.meta.url));
const hasPdfs = existsSync(`${PDF_DIR}rct_lancetrespmed2014_stopadvisor_smoking.pdf`);

describe.skipIf(!hasPdfs)(hasPdfs ? "on real PDFs' text" : `on real PDFs' text — skipped: ${PDF_DIR} not found`, () => {
  const read = async (name: string) => (await extractPdfText(new Uint8Array(readFileSync(`${PDF_DIR}${name}`)))).text;

  it("StopAdvisor trial (Lancet Respir Med 2014): arm counts '… of 1233 vs … of 1238' and RR 1·06", async () => {
    const text = await read("rct_lancetrespmed2014_stopadvisor_smoking.pdf");
    const study: MetaStudyInput = { id: "stopadvisor", title: "StopAdvisor", fullTextAnalysis: text };
    const { rows } = rowsOf(study);
    expect(rows.every((r) => r.design === "RCT" && r.quotes[0]!.source === "fullText")).toBe(true);
    expect(rows.find((r) => r.data.kind === "estimate-ci" && r.data.estimate === 1.06)?.data).toEqual({
      kind: "estimate-ci",
      estimate: 1.06,
      lower: 0.89,
      upper: 1.27,
    });
    const counts = findEffectData(text).filter((f) => f.data.kind === "counts");
    for (const f of counts) expect(text.slice(f.quote.start, f.quote.end)).toMatch(/^\d/);
    expect(counts.map((f) => f.data)).toContainEqual({
      kind: "counts",
      events1: 147,
      n1: 1233,
      events2: 156,
      n2: 1238,
    });
    expect(counts.map((f) => f.data)).toContainEqual({ kind: "counts", events1: 90, n1: 1088, events2: 64, n2: 1054 });
  });

  it("tea, coffee and brain cancer (World J Surg Oncol 2019): RR = 0.760 for glioma", async () => {
    const text = await read("ma_wjso2019_tea_coffee_brain_cancer.pdf");
    const { rows } = rowsOf({
      id: "tea",
      title: "Tea and coffee and brain cancer: a meta-analysis",
      fullTextAnalysis: text,
    });
    expect(rows.find((r) => r.outcome === "glioma")?.data).toEqual({
      kind: "estimate-ci",
      estimate: 0.76,
      lower: 0.548,
      upper: 0.972,
    });
    expect(rows[0]!.design).toBe("meta-analysis");
  });
});

// Invented abstracts of the three families whose distinct effects used to collapse into one row
// (issue 26 item 5): every effect reaches the data table, named by its own subject.
describe("extractStudyByRules: every reported effect is a row", () => {
  const outcomesOf = (rows: readonly ExtractedStudyData[]) =>
    rows.map((r) => [r.outcome, r.data.kind === "estimate-ci" ? r.data.estimate : null]);

  it("a list of cytokine SMDs in one sentence: one row per cytokine", () => {
    const { rows } = rowsOf(
      simple(
        "Compared with healthy controls, patients with major depression had higher levels of IL-6 (SMD 0.62, 95% CI 0.41 to 0.83), TNF-α (SMD 0.35, 95% CI 0.12 to 0.58), IL-1β (SMD 0.28, 95% CI 0.05 to 0.51) and CRP (SMD 0.47, 95% CI 0.30 to 0.64).",
      ),
    );
    expect(outcomesOf(rows)).toEqual([
      ["IL-6", 0.62],
      ["TNF-α", 0.35],
      ["IL-1β", 0.28],
      ["CRP", 0.47],
    ]);
    expect(rows.every((r) => r.measure === "SMD" && !r.outcomeUncertain)).toBe(true);
  });

  it("cytokines listed before a 'respectively' list: the k-th name for the k-th SMD", () => {
    const { rows } = rowsOf(
      simple(
        "Serum concentrations of interleukin-6, interleukin-10 and tumour necrosis factor-alpha were elevated in cases (SMD 0.51, 95% CI 0.22 to 0.80; SMD 0.33, 95% CI 0.10 to 0.56; SMD 0.40, 95% CI 0.15 to 0.65, respectively).",
      ),
    );
    expect(outcomesOf(rows)).toEqual([
      ["interleukin-6", 0.51],
      ["interleukin-10", 0.33],
      ["tumour necrosis factor-alpha", 0.4],
    ]);
  });

  it("two adjusted mean differences: both rows, each with its own outcome", () => {
    const { rows } = rowsOf(
      simple(
        "After adjustment for baseline values, the intervention lowered systolic blood pressure (adjusted MD −4.2 mmHg, 95% CI −6.1 to −2.3) and diastolic blood pressure (adjusted MD −2.1 mmHg, 95% CI −3.4 to −0.8).",
      ),
    );
    expect(outcomesOf(rows)).toEqual([
      ["systolic blood pressure", -4.2],
      ["diastolic blood pressure", -2.1],
    ]);
  });

  it("two adjusted mean differences worded only as 'adjusted means': both kept, marked for the reviewer, never pooled", () => {
    const { rows } = rowsOf(
      simple(
        "Adjusted means differed between groups at 12 weeks (MD −1.2, 95% CI −1.9 to −0.5) and at 26 weeks (MD −0.9, 95% CI −1.6 to −0.2).",
      ),
    );
    expect(rows.map((r) => [r.timepoint, r.data])).toEqual([
      ["at 12 weeks", { kind: "estimate-ci", estimate: -1.2, lower: -1.9, upper: -0.5 }],
      ["at 26 weeks", { kind: "estimate-ci", estimate: -0.9, lower: -1.6, upper: -0.2 }],
    ]);
    expect(rows.every((r) => r.outcomeUncertain === UNCERTAIN_OUTCOME.vague)).toBe(true);
    const other = { ...rows[0]!, studyId: "s2", outcomeUncertain: undefined };
    const { groups, single } = groupRows([...rows, other]);
    expect(groups).toEqual([]);
    expect(single.filter((s) => /is uncertain/.test(s.reason))).toHaveLength(2);
  });

  it("five genetic models' ORs: one row per model, named by the outcome and the model", () => {
    const { rows } = rowsOf(
      simple(
        "The MTHFR C677T polymorphism was associated with an increased risk of migraine under the allelic model (OR 1.25, 95% CI 1.10 to 1.42), the dominant model (OR 1.31, 95% CI 1.12 to 1.53), the recessive model (OR 1.52, 95% CI 1.18 to 1.96), the homozygous model (OR 1.61, 95% CI 1.22 to 2.12) and the heterozygous model (OR 1.20, 95% CI 1.02 to 1.41).",
      ),
    );
    expect(outcomesOf(rows)).toEqual([
      ["migraine under the allelic model", 1.25],
      ["migraine under the dominant model", 1.31],
      ["migraine under the recessive model", 1.52],
      ["migraine under the homozygous model", 1.61],
      ["migraine under the heterozygous model", 1.2],
    ]);
    expect(rows.every((r) => !r.outcomeUncertain)).toBe(true);
  });

  it("genetic models with their genotype contrasts: each row keeps its own comparison", () => {
    const { rows } = rowsOf(
      simple(
        "Significant associations with ischaemic stroke were found in the allele model (T vs C: OR = 1.25, 95% CI = 1.10-1.42), homozygote model (TT vs CC: OR = 1.61, 95% CI = 1.22-2.12) and recessive model (TT vs CT+CC: OR = 1.52, 95% CI = 1.18-1.96).",
      ),
    );
    expect(rows.map((r) => [r.outcome, r.comparison])).toEqual([
      ["ischaemic stroke under the allele model", "T vs C"],
      ["ischaemic stroke under the homozygote model", "TT vs CC"],
      ["ischaemic stroke under the recessive model", "TT vs CT+CC"],
    ]);
  });

  it("the same effect stated twice (results and conclusion, abstract and full text) is one row with both quotes", () => {
    const text =
      "Mortality was lower with drug A (RR 0.75, 95% CI 0.60 to 0.93). In conclusion, drug A reduced death (RR 0.75, 95% CI 0.60 to 0.93).";
    const { rows } = rowsOf({ id: "s1", title: "A trial", abstract: text, fullTextAnalysis: `Results. ${text}` });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.quotes.map((q) => q.source)).toEqual(["abstract", "abstract", "fullText", "fullText"]);
  });

  it("two effects worded alike with different numbers: both rows, both marked as sharing a phrase", () => {
    const { rows } = rowsOf(
      simple("Pain was lower (MD −1.0, 95% CI −1.5 to −0.5). Pain was lower (MD −2.0, 95% CI −2.9 to −1.1)."),
    );
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.outcomeUncertain)).toEqual([UNCERTAIN_OUTCOME.shared, UNCERTAIN_OUTCOME.shared]);
  });
});

// RevMan's data types read from invented reports (issue 26 item 6): the type follows the text.
describe("extractStudyByRules: rates and O − E", () => {
  it("events over person-time per arm are a rate ratio, never a 2×2", () => {
    const { rows } = rowsOf(
      simple(
        "Major bleeding occurred as 12 events in 1,200 person-years with drug A vs 20 events in 1,180 person-years with placebo.",
      ),
    );
    expect(rows.map((r) => [r.outcome, r.measure, r.reportedMeasure, r.data])).toEqual([
      ["major bleeding", "RR", "IRR", { kind: "rates", events1: 12, time1: 1200, events2: 20, time2: 1180 }],
    ]);
  });

  it("'x/t person-months' with the control named first is swapped to intervention first", () => {
    const { rows } = rowsOf(
      simple(
        "Infections: 41/1990 person-months in the placebo group versus 30/2100.5 person-months in the vaccine group.",
      ),
    );
    expect(rows.map((r) => r.data)).toEqual([{ kind: "rates", events1: 30, time1: 2100.5, events2: 41, time2: 1990 }]);
  });

  it("O − E with its variance is a Peto log hazard ratio", () => {
    const { rows } = rowsOf(simple("Overall survival favoured surgery (O − E = −5.2, V = 10.1)."));
    expect(rows.map((r) => [r.measure, r.reportedMeasure, r.data])).toEqual([
      ["RR", "HR", { kind: "oe-var", oe: -5.2, v: 10.1 }],
    ]);
  });
});

// Generic inverse variance: an estimate with its standard error (issue 26 item 6), invented sentences.
describe("extractStudyByRules: estimate and SE", () => {
  const seRows = (text: string) => rowsOf(simple(text)).rows.filter((r) => r.data.kind === "estimate-se");

  it("a log hazard ratio with its SE keeps its log scale", () => {
    const rows = seRows("For major bleeding, the log HR was −0.22 (SE 0.09).");
    expect(rows.map((r) => [r.outcome, r.measure, r.reportedMeasure, r.data, r.outcomeUncertain])).toEqual([
      ["major bleeding", "RR", "HR", { kind: "estimate-se", estimate: -0.22, se: 0.09, scale: "log" }, undefined],
    ]);
    expect(rows[0]!.quotes[0]!.quote).toBe("log HR was −0.22 (SE 0.09)");
  });

  it("a regression coefficient β with its SE is a generic effect", () => {
    const rows = seRows("Each additional session improved the depression score (β = 0.31, SE 0.12).");
    expect(rows.map((r) => [r.measure, r.data, r.outcomeUncertain ?? null])).toEqual([
      ["GEN", { kind: "estimate-se", estimate: 0.31, se: 0.12 }, UNCERTAIN_OUTCOME.vague],
    ]);
  });

  it("a mean difference with its standard error, written out", () => {
    const rows = seRows("Systolic blood pressure: MD 2.1 (standard error 0.8) in favour of the diet.");
    expect(rows.map((r) => [r.outcome, r.measure, r.data])).toEqual([
      ["systolic blood pressure", "MD", { kind: "estimate-se", estimate: 2.1, se: 0.8 }],
    ]);
  });

  it("an odds ratio whose SE is stated as that of the log OR is not marked", () => {
    const rows = seRows("Wound infection: OR 1.45 (SE of log OR 0.11).");
    expect(rows.map((r) => [r.measure, r.data, r.outcomeUncertain])).toEqual([
      ["OR", { kind: "estimate-se", estimate: 1.45, se: 0.11 }, undefined],
    ]);
  });

  it("an SE beside a ratio without 'log' is kept, marked for the reviewer, and not pooled automatically", () => {
    const rows = seRows("Stroke: HR 0.80 (SE 0.09).");
    expect(rows.map((r) => [r.outcome, r.measure, r.reportedMeasure, r.data])).toEqual([
      ["stroke", "RR", "HR", { kind: "estimate-se", estimate: 0.8, se: 0.09 }],
    ]);
    expect(rows[0]!.outcomeUncertain).toBe(UNCERTAIN_OUTCOME.seScale);
    const { groups, single } = groupRows(rows);
    expect(groups).toEqual([]);
    expect(single.map((u) => u.reason).join(" ")).toContain("check its scale");
  });

  it("middle-dot decimals and 'ln(OR)' are read by the core's number reader", () => {
    const rows = seRows("Readmission: ln(OR) 0·35 (s.e. 0·14).");
    expect(rows.map((r) => [r.measure, r.data])).toEqual([
      ["OR", { kind: "estimate-se", estimate: 0.35, se: 0.14, scale: "log" }],
    ]);
  });

  it("not effects: a mean with its SE (baseline table, one arm), a correlation coefficient, a coefficient of variation", () => {
    expect(seRows("Mean age was 54.2 years (SE 1.1) and mean HbA1c 7.9% (SE 0.2) at baseline.")).toEqual([]);
    expect(seRows("HbA1c fell to 7.1 (SE 0.2) in the insulin group and to 7.5 (SE 0.2) with placebo.")).toEqual([]);
    expect(seRows("The correlation coefficient was 0.62 (SE 0.05).")).toEqual([]);
    expect(seRows("The coefficient of variation was 12.1 (SE 0.3).")).toEqual([]);
    expect(seRows("Pain or fatigue 3.2 (SE 0.4) did not change.")).toEqual([]);
  });

  it("a negative natural-scale ratio is not a ratio and gives no row", () => {
    expect(seRows("Mortality: HR −0.22 (SE 0.09).")).toEqual([]);
  });
});

describe("arm-level statements read by app/lib/arms", () => {
  it("pairs two arms joined by 'vs.' and keeps each arm's percentage in the quote", () => {
    const { rows } = rowsOf(simple("Nausea occurred in 12/100 (12%) vs. 20/98 (20.4%) patients."));
    expect(rows[0]!.data).toEqual({ kind: "counts", events1: 12, n1: 100, events2: 20, n2: 98 });
    expect(rows[0]!.quotes[0]!.quote).toBe("12/100 (12%) vs. 20/98 (20.4%)");
  });
  it("reads unicode minus means and their group sizes", () => {
    const { rows } = rowsOf(
      simple("Change in weight was \u22122·1 ± 1·5 (n = 40) compared with \u22120·4 ± 1·2 (n = 41)."),
    );
    expect(rows[0]!.data).toEqual({ kind: "means", mean1: -2.1, sd1: 1.5, n1: 40, mean2: -0.4, sd2: 1.2, n2: 41 });
  });
  it("does not pair an arm with an interval or a p-value", () => {
    const { rows } = rowsOf(simple("Mortality was 12/100 vs the control rate (p = 0.04)."));
    expect(rows.filter((r) => r.data.kind === "counts")).toEqual([]);
  });
});
