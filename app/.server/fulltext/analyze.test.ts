import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream, streamText } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { expectConsoleError } from "../../../tests/setup/fail-on-console-error";
import { FRAMING_OPEN, MARKUP_CLOSE, UNVERIFIED_OPEN } from "../ai/grounding";
import { groundFullTextAnalysis, type FullTextAnalysisResult } from "./analysis-grounding";
import { ANALYSIS_SECTIONS, buildFullTextPrompt, parseFullTextSource } from "./analysis-prompt";
import { streamFullTextAnalysis } from "./analyze";
import {
  extractiveAnalysis,
  formatExtractiveAnalysis,
  isQuotable,
  OFFLINE_ANALYSIS_NOTE,
  OFFLINE_NOTHING_FOUND,
} from "./extractive-analysis";
import { createOfflineFullTextModel } from "./offline-fulltext-model";
import { detectSections, headingKind, isAbstractLabel, prepareFullText } from "./prepare-text";
import { budgetFullText, OMISSION_MARK } from "./text-budget";
import { extractPdfText } from "./fetch";

const PDF_DIR = fileURLToPath(new URL("../../../../shared/pdfs/", import.meta.url));
const hasPdfs = existsSync(`${PDF_DIR}provenance.json`);
const pdfSuite = hasPdfs ? describe : describe.skip;
const MISSING_PDFS = `skipped: real PDFs not found at ${PDF_DIR} (../shared/pdfs lives outside the repo)`;

/** A small paper as PDF.js extracts one: wrapped lines, a running head, page numbers, headings. */
const PAPER = [
  "Journal of Tests 2024;12:1-9",
  "Vitamin D and falls in older adults: a randomised controlled trial",
  "ABSTRACT",
  "Objective",
  "To determine whether vitamin D supplementation prevents falls in",
  "adults aged 70 years or older.",
  "Design",
  "Double-blind randomised controlled trial in 12 general practices.",
  "Participants",
  "1,204 community-dwelling adults aged 70 years or older were enrolled",
  "and randomised to vitamin D or placebo.",
  "Interventions",
  "Participants received vitamin D3 at 2000 IU daily or a matching placebo for",
  "two years.",
  "Results",
  "Falls occurred in 31% of the vitamin D group and 36% of the placebo group",
  "(rate ratio 0.86, 95% confidence interval 0.74 to 0.99; P=0.04).",
  "Serious adverse events were similar between groups (12% v 13%) and hyper-",
  "calcaemia occurred in two participants.",
  "Conclusions",
  "Daily vitamin D modestly reduced falls in older adults without more serious",
  "adverse events.",
  "1",
  "Journal of Tests 2024;12:1-9",
  "Introduction",
  "Falls are a leading cause of injury in older adults, and vitamin D deficiency is",
  "common in this population. Previous trials of vitamin D for falls reported",
  "inconsistent results, and the dose needed remains uncertain.",
  "Methods",
  "We recruited adults from general practices and randomly assigned them to the",
  "intervention or placebo with computer-generated blocks. The primary outcome was",
  "the rate of falls over two years, recorded with monthly calendars.",
  "2",
  "Journal of Tests 2024;12:1-9",
  "Discussion",
  "Vitamin D reduced the rate of falls by a modest amount in this trial of older",
  "adults. A limitation of this study is that falls were self reported, which may",
  "have introduced recall bias. The hypercalcaemia cases were mild and resolved.",
  "References",
  "1. Smith J, Jones K. Vitamin D and falls. BMJ 2010;340:c123.",
  "2. Brown A et al. (2015) Falls in older people. Lancet 2015;385:100-10.",
  "3",
  "Journal of Tests 2024;12:1-9",
].join("\n");

const squash = (s: string) => s.replace(/[\s-]+/g, "");

/**
 * Whether the words of `sentence` occur in `raw` in order (ignoring spacing and hyphens): the
 * check against the PDF's own text, which the analysed text differs from only by unwrapped
 * lines, joined hyphenation and removed running heads.
 */
function wordsInOrder(sentence: string, raw: string): boolean {
  const hay = squash(raw);
  let from = 0;
  for (const word of sentence.split(/\s+/).map(squash).filter(Boolean)) {
    const at = hay.indexOf(word, from);
    if (at < 0) return false;
    from = at + word.length;
  }
  return true;
}

describe("headingKind and isAbstractLabel", () => {
  it.each([
    ["Results", "results"],
    ["2. Methods", "methods"],
    ["IV. DISCUSSION", "discussion"],
    ["COnClusiOn", "conclusion"],
    ["Conclusions:", "conclusion"],
    ["Materials and Methods", "methods"],
    ["References", "references"],
    ["Acknowledgements", "backmatter"],
    ["Competing interests", "backmatter"],
    ["ABSTRACT", "abstract"],
    ["Strengths and limitations of this study", "discussion"],
  ])("%s → %s", (line, kind) => {
    expect(headingKind(line)).toBe(kind);
  });

  it("is null for prose and for structured-abstract labels, which isAbstractLabel recognises", () => {
    expect(headingKind("Results were similar in both groups.")).toBeNull();
    expect(headingKind("Objective")).toBeNull();
    expect(isAbstractLabel("Objective")).toBe(true);
    expect(isAbstractLabel("interventiOns")).toBe(true);
    expect(isAbstractLabel("Main outcome measures")).toBe(true);
    expect(isAbstractLabel("Design was pragmatic.")).toBe(false);
  });
});

describe("prepareFullText", () => {
  const prepared = prepareFullText(PAPER);

  it("joins wrapped lines, puts headings and labels on their own, drops running heads and page numbers", () => {
    expect(prepared).toContain(
      "Objective\n\nTo determine whether vitamin D supplementation prevents falls in adults aged 70 years or older.",
    );
    expect(prepared).toContain(
      "\n\nResults\n\nFalls occurred in 31% of the vitamin D group and 36% of the placebo group (rate ratio 0.86",
    );
    expect(prepared).not.toContain("Journal of Tests");
    expect(prepared).not.toMatch(/\n\d\n/);
  });

  it("joins a word hyphenated across lines without the hyphen when the word occurs elsewhere", () => {
    expect(prepared).toContain("(12% v 13%) and hypercalcaemia occurred");
  });

  it("splits into sections at headings", () => {
    const kinds = detectSections(prepared).map((s) => s.kind);
    expect(kinds).toEqual([
      "front",
      "abstract",
      "results",
      "conclusion",
      "introduction",
      "methods",
      "discussion",
      "references",
    ]);
  });
});

describe("budgetFullText", () => {
  it("always drops the reference list and keeps a text within budget whole", () => {
    const { text, truncated } = budgetFullText(prepareFullText(PAPER));
    expect(truncated).toBe(false);
    expect(text).not.toContain("Smith J, Jones K");
    expect(text).toContain("A limitation of this study");
  });

  it("over budget keeps the abstract and results before the methods, in document order, marking gaps", () => {
    const filler = (word: string) =>
      Array.from({ length: 60 }, (_, i) => `${word} sentence number ${i} adds detail to this part.`).join(" ");
    const long = [
      "Title of a long paper",
      "",
      "Abstract",
      "",
      "The abstract says the key things about the trial.",
      "",
      "Introduction",
      "",
      filler("Background"),
      "",
      "Methods",
      "",
      filler("Method"),
      "",
      "Results",
      "",
      filler("Result"),
      "",
      "Discussion",
      "",
      filler("Discussion"),
      "",
      "References",
      "",
      "1. A reference. 2020;1:1.",
    ].join("\n");
    const { text, truncated } = budgetFullText(prepareFullText(long), 6000);
    expect(truncated).toBe(true);
    expect(text.length).toBeLessThanOrEqual(6000 + 20);
    expect(text).toContain("The abstract says the key things");
    expect(text).toContain("Result sentence number 0");
    expect(text).toContain(OMISSION_MARK);
    expect(text).not.toContain("Method sentence number 59");
    expect(text.indexOf("Result sentence")).toBeLessThan(
      text.indexOf("Discussion sentence") === -1 ? Infinity : text.indexOf("Discussion sentence"),
    );
    expect(text).not.toContain("A reference");
  });
});

describe("buildFullTextPrompt", () => {
  const built = buildFullTextPrompt({ title: "Vitamin D and falls", text: PAPER });

  it("numbers sentences with exact offsets into the analysed text and tags sections and labels", () => {
    for (const s of built.sentences) expect(built.source.slice(s.start, s.end)).toBe(s.text);
    const objective = built.sentences.find((s) => s.text.startsWith("To determine"))!;
    expect(objective).toMatchObject({ section: "abstract", label: "objective" });
    expect(built.sentences.some((s) => /^(?:Objective|Results|Design)$/.test(s.text))).toBe(false);
    expect(built.prompt).toContain("## abstract · objective\n[S");
    expect(built.prompt).toContain("<source>");
    expect(built.system).toContain("### <name>");
    for (const name of ANALYSIS_SECTIONS) expect(built.system).toContain(name);
  });

  it("parseFullTextSource reads the numbered sentences back with their sections", () => {
    const parsed = parseFullTextSource(built.prompt);
    expect(parsed.map((s) => s.id)).toEqual(built.sentences.map((s) => s.id));
    expect(parsed.map((s) => s.section)).toEqual(built.sentences.map((s) => s.section));
    expect(parsed.find((s) => s.text.startsWith("To determine"))!.label).toBe("objective");
  });

  it("throws a RangeError when there is nothing to analyse", () => {
    expect(() => buildFullTextPrompt({ title: "x", text: "Results\n\nReferences" })).toThrow(RangeError);
  });
});

describe("extractiveAnalysis on a synthetic paper", () => {
  const built = buildFullTextPrompt({ title: "Vitamin D and falls", text: PAPER });
  const sections = extractiveAnalysis(built.sentences);
  const byName = Object.fromEntries(sections.map((s) => [s.name, s.sentences.map((x) => x.text).join(" ")]));

  it("fills each section from the right sentences", () => {
    expect(sections.map((s) => s.name)).toEqual([...ANALYSIS_SECTIONS]);
    expect(byName["Objective"]).toMatch(/^To determine whether vitamin D supplementation prevents falls/);
    expect(byName["Design & Population"]).toContain(
      "Double-blind randomised controlled trial in 12 general practices.",
    );
    expect(byName["Interventions / Exposures"]).toContain("Participants received vitamin D3 at 2000 IU daily");
    expect(byName["Outcomes & Effect Sizes"]).toContain(
      "rate ratio 0.86, 95% confidence interval 0.74 to 0.99; P=0.04",
    );
    expect(byName["Adverse Events"]).toContain("Serious adverse events were similar between groups");
    expect(byName["Limitations"]).toContain("A limitation of this study is that falls were self reported");
    expect(byName["Conclusion"]).toContain("Daily vitamin D modestly reduced falls");
  });

  it("uses each sentence once and only sentences of the source", () => {
    const ids = sections.flatMap((s) => s.sentences.map((x) => x.id));
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of sections.flatMap((x) => x.sentences)) expect(built.source).toContain(s.text);
  });

  it("isQuotable rejects references, table rows, fragments and captions", () => {
    expect(isQuotable("Falls occurred in 31% of the vitamin D group and 36% of the placebo group.")).toBe(true);
    expect(isQuotable("Smith J, Jones K. Vitamin D and falls. BMJ 2010;340:c123.")).toBe(false);
    expect(isQuotable("Brown A et al. (2015) Falls in older people were common in the cohort studied here.")).toBe(
      false,
    );
    expect(isQuotable("Table 2 | Outcomes at two years in both groups of the trial population.")).toBe(false);
    expect(isQuotable("30 (8) 25 (6) 1.21 (0.70 to 2.10) 1.37 (0.78 to 2.41) 50 (13) 61 (16) 0.79.")).toBe(false);
    expect(isQuotable("and the rate of falls over two years, recorded with monthly calendars")).toBe(false);
  });
});

describe("grounding the offline analysis", () => {
  const built = buildFullTextPrompt({ title: "Vitamin D and falls", text: PAPER });
  const raw = formatExtractiveAnalysis(extractiveAnalysis(built.sentences));

  it("labels the note as framing, flags no number, cites every quoted sentence exactly", () => {
    const grounded = groundFullTextAnalysis(raw, built, "offline");
    expect(grounded.text.startsWith(`${FRAMING_OPEN}${OFFLINE_ANALYSIS_NOTE}${MARKUP_CLOSE}`)).toBe(true);
    expect(grounded.unsupported).toEqual([]);
    expect(grounded.text).not.toContain(UNVERIFIED_OPEN);
    const quoted = extractiveAnalysis(built.sentences).flatMap((s) => s.sentences);
    expect(grounded.citations.map((c) => c.id).sort()).toEqual(quoted.map((s) => s.id).sort());
    for (const c of grounded.citations) expect(built.source.slice(c.start, c.end)).toBe(c.quote);
    for (const name of ANALYSIS_SECTIONS) expect(grounded.text).toContain(`### ${name}\n`);
  });

  it("turns a remote model's [Sx] markers into citations and flags numbers not in the paper", () => {
    const s = built.sentences.find((x) => x.text.includes("rate ratio 0.86"))!;
    const text = `### Outcomes & Effect Sizes\nFalls fell (rate ratio 0.86, 95% CI 0.74 to 0.99) [${s.id}], a 42.7% relative drop.`;
    const grounded = groundFullTextAnalysis(text, built, "remote");
    expect(grounded.citations).toEqual([
      expect.objectContaining({ id: s.id, quote: s.text, start: s.start, end: s.end }),
    ]);
    expect(grounded.unsupported).toEqual(["42.7%"]);
    expect(grounded.text).toContain(`${UNVERIFIED_OPEN}42.7%${MARKUP_CLOSE}`);
    expect(grounded.text).not.toContain(`[${s.id}]`);
  });
});

pdfSuite(hasPdfs ? "the offline analysis of real papers" : `offline analysis — ${MISSING_PDFS}`, () => {
  const read = async (name: string) => (await extractPdfText(new Uint8Array(readFileSync(`${PDF_DIR}${name}`)))).text;

  it.each([
    "rct_bmj2015_physical_activity_smoking_cessation_pregnancy.pdf",
    "rct_lancetrespmed2014_stopadvisor_smoking.pdf",
    "ma_nutrients2018_protein_exercise_frailty.pdf",
    "cohort_intpsychogeriatr2014_life_events_dementia.pdf",
    "qual_rehabresprac2010_heart_failure_programmes.pdf",
    "basic_diabetologia2024_kcnj11_mutation.pdf",
  ])("%s: seven sections made only of the paper's own sentences", async (name) => {
    const raw = await read(name);
    const built = buildFullTextPrompt({ title: name, text: raw });
    expect(built.source.length).toBeLessThanOrEqual(60_000 + 100);
    const text = formatExtractiveAnalysis(extractiveAnalysis(parseFullTextSource(built.prompt)));
    const blocks = text.split("\n\n");
    expect(blocks[0]).toBe(OFFLINE_ANALYSIS_NOTE);
    expect(blocks.slice(1).map((b) => b.split("\n")[0])).toEqual(ANALYSIS_SECTIONS.map((n) => `### ${n}`));
    const quoted = extractiveAnalysis(parseFullTextSource(built.prompt)).flatMap((x) => x.sentences);
    expect(quoted.length).toBeGreaterThan(5);
    const analysed = built.source.replace(/\s+/g, " ");
    for (const s of quoted) {
      expect(analysed).toContain(s.text);
      expect(text).toContain(s.text);
      // Against the PDF's own text too, up to line wrapping, hyphenation and running heads.
      expect(wordsInOrder(s.text, raw), s.text).toBe(true);
    }
    // Every line of a section body is made of those sentences (or says nothing was found).
    for (const block of blocks.slice(1)) {
      let body = block.split("\n").slice(1).join("\n");
      if (body === OFFLINE_NOTHING_FOUND) continue;
      for (const s of quoted) body = body.replace(s.text, "");
      expect(body.trim()).toBe("");
    }
  });

  it("finds the BMJ trial's objective, primary result with its CI, harms and conclusion", async () => {
    const built = buildFullTextPrompt({
      title: "BMJ",
      text: await read("rct_bmj2015_physical_activity_smoking_cessation_pregnancy.pdf"),
    });
    const byName = Object.fromEntries(
      extractiveAnalysis(built.sentences).map((s) => [s.name, s.sentences.map((x) => x.text).join(" ")]),
    );
    expect(byName["Objective"]).toBe(
      "To determine the effectiveness of a physical activity intervention for smoking cessation during pregnancy.",
    );
    expect(byName["Design & Population"]).toContain("789 pregnant smokers");
    expect(byName["Outcomes & Effect Sizes"]).toContain("odds ratio 1.21, 95% confidence interval 0.70 to 2.10");
    expect(byName["Adverse Events"]).toMatch(/adverse event/i);
    expect(byName["Conclusion"]).toContain("did not increase cessation rates at end of pregnancy");
  });

  it("reports no effect sizes for the qualitative focus-group study (negative control)", async () => {
    const built = buildFullTextPrompt({
      title: "Q",
      text: await read("qual_rehabresprac2010_heart_failure_programmes.pdf"),
    });
    const outcomes = extractiveAnalysis(built.sentences).find((s) => s.name === "Outcomes & Effect Sizes")!;
    expect(outcomes.sentences).toEqual([]);
    expect(formatExtractiveAnalysis(extractiveAnalysis(built.sentences))).toContain(
      `### Outcomes & Effect Sizes\n${OFFLINE_NOTHING_FOUND}`,
    );
  });

  it("a 30-page meta-analysis is cut to the budget, keeping abstract and results", async () => {
    const raw = await read("ma_nutrients2018_protein_exercise_frailty.pdf");
    const built = buildFullTextPrompt({ title: "MA", text: raw });
    expect(raw.length).toBeGreaterThan(100_000);
    expect(built.truncated).toBe(true);
    expect(built.sentences.some((s) => s.section === "results")).toBe(true);
    expect(built.sentences.some((s) => s.section === "abstract" || s.section === "front")).toBe(true);
  });
});

async function readStream(response: Response): Promise<{ reads: string[]; error?: unknown }> {
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

describe("streamFullTextAnalysis", () => {
  it("streams the offline analysis word by word and hands the grounded result to onFinish", async () => {
    const onFinish = vi.fn<(r: FullTextAnalysisResult) => void>();
    const response = streamFullTextAnalysis(
      { model: createOfflineFullTextModel(), modelName: "Offline Test", onFinish },
      { title: "Vitamin D and falls", text: PAPER },
    );
    expect(response.headers.get("Content-Type")).toMatch(/^text\/plain/);
    expect(response.headers.get("X-Model-Name")).toBe("Offline%20Test");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    expect(response.headers.get("Content-Encoding")).toBe("identity");
    const { reads, error } = await readStream(response);
    expect(error).toBeUndefined();
    const built = buildFullTextPrompt({ title: "Vitamin D and falls", text: PAPER });
    expect(reads.join("")).toBe(formatExtractiveAnalysis(extractiveAnalysis(built.sentences)));
    expect(onFinish).toHaveBeenCalledTimes(1);
    const result = onFinish.mock.calls[0]![0];
    expect(result.modelName).toBe("Offline Test");
    expect(result.citations.length).toBeGreaterThan(5);
    expect(result.text).toContain("### Conclusion\n");
  });

  it("errors the body and never calls onFinish when the model fails mid-stream", async () => {
    expectConsoleError();
    const parts: LanguageModelV4StreamPart[] = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "### Objective\n" },
      { type: "error", error: new Error("upstream 500") },
    ];
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: parts }) }),
    });
    const onFinish = vi.fn();
    const onError = vi.fn((e: unknown) => console.error(e));
    const { error } = await readStream(
      streamFullTextAnalysis({ model, modelName: "m", onFinish, onError }, { title: "T", text: PAPER }),
    );
    expect(error).toBeDefined();
    expect(onFinish).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalled();
  });
});

describe("createOfflineFullTextModel", () => {
  it("emits the first word at once and then one word per delay", async () => {
    const built = buildFullTextPrompt({ title: "T", text: PAPER });
    const result = streamText({ model: createOfflineFullTextModel({ delayMs: 300 }), prompt: built.prompt });
    const times: number[] = [];
    const started = performance.now();
    for await (const _ of result.textStream) {
      times.push(performance.now() - started);
      if (times.length === 6) break;
    }
    // Generous bounds (a loaded 2-core CI machine): the first word comes before one delay has
    // passed, and every later word waits about one delay.
    expect(times[0]!).toBeLessThan(300);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(250);
  });

  it("stops with the abort reason when aborted", async () => {
    const controller = new AbortController();
    const model = createOfflineFullTextModel({ delayMs: 50 });
    const built = buildFullTextPrompt({ title: "T", text: PAPER });
    const { stream } = await model.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: built.prompt }] }],
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    await reader.read();
    const reason = new Error("gone");
    controller.abort(reason);
    await expect(
      (async () => {
        for (;;) {
          const { done } = await reader.read();
          if (done) return;
        }
      })(),
    ).rejects.toBe(reason);
  });
});
