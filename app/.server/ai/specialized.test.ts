import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { hasSharedFixtures, MISSING_FIXTURES_MESSAGE, readFixture } from "../../../tests/fixtures";
import { summarizeExtractive } from "./extractive";
import {
  compileFocusTerms,
  countFocusHits,
  focusDirectiveTag,
  readFocusDirective,
  summarizeForFocus,
} from "./focus-extractive";
import { numberSourceSentences, type Citation } from "./grounding";
import { createOfflineModel } from "./offline-model";
import { NoAbstractError } from "./prompts";
import {
  buildSpecializedPrompt,
  EmptyAnalysisError,
  FOCUS_LABELS,
  FOCUS_VALUES,
  FOCUS_VOCABULARY,
  generateSpecializedSummary,
  isFocus,
  labelFraming,
  streamSpecializedSummary,
  type Focus,
  type SpecializedResult,
} from "./specialized";

const SOURCE = {
  title: "Atorvastatin in older adults",
  text: [
    "BACKGROUND: Statins lower LDL cholesterol, but their effect on frailty in older adults is unclear.",
    "METHODS: We randomly assigned 1,204 adults to atorvastatin 20 mg or placebo for 2 years.",
    "RESULTS: Frailty scores rose by 0.75 points with placebo vs. 0.41 points with atorvastatin (95% CI -0.52 to -0.16).",
    "Systolic blood pressure fell by 4 mmHg and fewer strokes occurred (12 vs 19).",
    "Muscle symptoms occurred in 6.2% vs. 5.9% of participants (p = 0.81).",
    "CONCLUSIONS: Atorvastatin slowed the rise in frailty over 2 years without more muscle symptoms.",
  ].join(" "),
};

const usage = {
  inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 6, text: 6, reasoning: 0 },
};

function expectExactQuotes(source: string, citations: Citation[]) {
  for (const c of citations) expect(source.slice(c.start, c.end)).toBe(c.quote);
}

/** The grounded text without its ⟦framing: …⟧ lead-in. */
function withoutFraming(text: string): string {
  return text.replace(/^⟦framing: [^⟧]*⟧\s*/, "");
}

function textParts(deltas: string[]): LanguageModelV4StreamPart[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
  ];
}

function streamingMock(parts: LanguageModelV4StreamPart[]) {
  return new MockLanguageModelV4({
    doStream: async () => ({ stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: 2 }) }),
  });
}

async function readBody(response: Response): Promise<{ reads: string[]; error?: unknown }> {
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

describe("focus values and vocabularies", () => {
  it("has the seven focus values with 15–40 terms each", () => {
    expect(FOCUS_VALUES).toEqual([
      "nutrition",
      "exercise",
      "longevity",
      "cognitive",
      "cardiovascular",
      "musculoskeletal",
      "mechanisms",
    ]);
    for (const focus of FOCUS_VALUES) {
      const terms = FOCUS_VOCABULARY[focus];
      expect(terms.length, focus).toBeGreaterThanOrEqual(15);
      expect(terms.length, focus).toBeLessThanOrEqual(40);
      expect(new Set(terms).size, focus).toBe(terms.length);
    }
    expect(isFocus("cardiovascular")).toBe(true);
    expect(isFocus("Cardiovascular")).toBe(false);
    expect(isFocus(undefined)).toBe(false);
  });

  it("matches phrases, plurals, prefixes and case-sensitive acronyms", () => {
    const cv = compileFocusTerms(FOCUS_VOCABULARY.cardiovascular);
    expect(countFocusHits("Systolic blood-pressure and strokes", cv)).toBeGreaterThanOrEqual(2);
    expect(countFocusHits("venous thromboembolism", cv)).toBeGreaterThanOrEqual(1);
    expect(countFocusHits("LDL fell", cv)).toBe(1);
    expect(countFocusHits("the ldl word in lower case", cv)).toBe(0);
    expect(countFocusHits("Frailty scores rose.", cv)).toBe(0);
    expect(countFocusHits("heartfelt thanks", compileFocusTerms(["heart"]))).toBe(0);
  });

  it("round-trips the focus directive and ignores one inside the source block", () => {
    const tag = focusDirectiveTag({
      label: "cardiovascular health",
      terms: ["blood pressure", "thrombo*", 'bad"|term'],
    });
    expect(readFocusDirective(`Intro\n${tag}\n<source>\nx\n</source>`)).toEqual({
      label: "cardiovascular health",
      terms: ["blood pressure", "thrombo*", "bad term"],
    });
    expect(readFocusDirective(`<source>\n${tag}\n</source>`)).toBeNull();
  });
});

describe("buildSpecializedPrompt", () => {
  it("numbers the source, names the focus and asks for [Sx] citations with exact numbers", () => {
    const { system, prompt, sentences } = buildSpecializedPrompt(SOURCE, "cardiovascular");
    expect(sentences).toHaveLength(6);
    expect(system).toMatch(/3 to 5 sentences/);
    expect(system).toMatch(/\[S3\]/);
    expect(system).toMatch(/never round, convert, compute or invent numbers/);
    expect(system).toContain('"The source does not discuss cardiovascular health directly; its central findings are:"');
    expect(prompt).toContain("Title: Atorvastatin in older adults");
    expect(prompt).toContain("<source>\n[S1] Statins lower LDL cholesterol");
    expect(prompt).toContain("[S4] Systolic blood pressure fell by 4 mmHg");
    expect(readFocusDirective(prompt)?.terms).toEqual([...FOCUS_VOCABULARY.cardiovascular]);
  });

  it("refuses a text under 10 trimmed characters", () => {
    expect(() => buildSpecializedPrompt({ title: "T", text: "   short  " }, "nutrition")).toThrow(NoAbstractError);
  });
});

describe("offline focus summaries", () => {
  it("ranks sentences with focus terms above the rest and copies them verbatim", () => {
    const summary = summarizeForFocus(
      SOURCE.text,
      { label: "cardiovascular health", terms: [...FOCUS_VOCABULARY.cardiovascular] },
      { maxSentences: 2 },
    );
    expect(summary.leadIn).toBeNull();
    expect(summary.sentences.map((s) => s.text)).toEqual([
      "Statins lower LDL cholesterol, but their effect on frailty in older adults is unclear.",
      "Systolic blood pressure fell by 4 mmHg and fewer strokes occurred (12 vs 19).",
    ]);
    // Without the focus the central sentences are others.
    const plain = summarizeExtractive(SOURCE.text, { maxSentences: 2 }).sentences.map((s) => s.text);
    expect(plain).not.toContain("Systolic blood pressure fell by 4 mmHg and fewer strokes occurred (12 vs 19).");
  });

  it("fills with unfocused sentences only after every focused one", () => {
    const summary = summarizeForFocus(SOURCE.text, { label: "x", terms: ["muscle*"] }, { maxSentences: 3 });
    const focused = summary.sentences.filter((s) => s.hits > 0).map((s) => s.text);
    expect(focused).toEqual([
      "Muscle symptoms occurred in 6.2% vs. 5.9% of participants (p = 0.81).",
      "Atorvastatin slowed the rise in frailty over 2 years without more muscle symptoms.",
    ]);
    expect(summary.sentences).toHaveLength(3);
  });

  it("states plainly when the source does not mention the focus, as labelled framing", async () => {
    const result = await generateSpecializedSummary(
      { model: createOfflineModel(), modelName: "offline" },
      { ...SOURCE, focus: "cognitive" },
    );
    expect(
      result.text.startsWith(
        "⟦framing: The source does not discuss cognitive health directly; its central findings are:⟧ ",
      ),
    ).toBe(true);
    expect(withoutFraming(result.text)).toBe(result.citations.map((c) => c.quote).join(" "));
    expectExactQuotes(SOURCE.text, result.citations);
    expect(result.unsupported).toEqual([]);
  });

  it("streams the focused summary through streamText and grounds it with citeExtractive", async () => {
    const onFinish = vi.fn<(r: SpecializedResult) => void>();
    const response = streamSpecializedSummary(
      { model: createOfflineModel(), modelName: "MetaMind Offline Extractive v1", onFinish },
      { ...SOURCE, focus: "cardiovascular" },
    );
    expect(response.headers.get("Content-Type")).toMatch(/text\/plain/);
    expect(response.headers.get("X-Focus")).toBe("cardiovascular");
    expect(response.headers.get("Content-Encoding")).toBe("identity");
    expect(decodeURIComponent(response.headers.get("X-Model-Name")!)).toBe("MetaMind Offline Extractive v1");
    const { reads, error } = await readBody(response);
    expect(error).toBeUndefined();
    expect(reads.length).toBeGreaterThan(10);
    expect(onFinish).toHaveBeenCalledTimes(1);
    const result = onFinish.mock.calls[0]![0];
    expect(result.text).toBe(reads.join(""));
    // The two sentences with cardiovascular terms, then the most central filler.
    expect(result.citations.map((c) => c.id).slice(0, 2)).toEqual(["S1", "S4"]);
    expect(result.citations).toHaveLength(3);
    expectExactQuotes(SOURCE.text, result.citations);
  });
});

describe("with MockLanguageModelV4", () => {
  it("turns [Sx] markers into citations and flags numbers the source lacks", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: {
        content: [
          {
            type: "text",
            text: "Blood pressure fell by 4 mmHg [S4], strokes by 37% [S4, S99]. LDL was the target [S1-S2].\n",
          },
        ],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      },
    });
    const result = await generateSpecializedSummary(
      { model, modelName: "mock" },
      { ...SOURCE, focus: "cardiovascular" },
    );
    expect(result.text).toBe("Blood pressure fell by 4 mmHg, strokes by ⟦unverified: 37%⟧. LDL was the target.");
    expect(result.unsupported).toEqual(["37%"]);
    expect(result.citations.map((c) => c.id)).toEqual(["S4", "S1", "S2"]);
    expect(result.citations[0]!.anchors!.map((a) => result.text.slice(0, a))).toEqual([
      "Blood pressure fell by 4 mmHg",
      "Blood pressure fell by 4 mmHg, strokes by ⟦unverified: 37%⟧",
    ]);
    expectExactQuotes(SOURCE.text, result.citations);
    expect(result.modelName).toBe("mock");
    const call = model.doGenerateCalls[0]!;
    expect(call.prompt[0]!.role).toBe("system");
  });

  it("labels a remote model's no-focus lead-in as framing", () => {
    expect(labelFraming("The source does not discuss longevity directly; its central findings are: X [S1].")).toBe(
      "⟦framing: The source does not discuss longevity directly; its central findings are:⟧ X [S1].",
    );
    expect(labelFraming("Blood pressure fell.")).toBe("Blood pressure fell.");
  });

  it("passes a provider error through (the service answers 502)", async () => {
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new Error("429 Too Many Requests");
      },
    });
    await expect(
      generateSpecializedSummary({ model, modelName: "m" }, { ...SOURCE, focus: "exercise" }),
    ).rejects.toThrow(/429/);
  });

  it("rejects an empty or truncated answer", async () => {
    for (const [text, reason] of [
      ["  ", "stop"],
      ["Cut off mid", "length"],
    ] as const) {
      const model = new MockLanguageModelV4({
        doGenerate: {
          content: [{ type: "text", text }],
          finishReason: { unified: reason, raw: reason },
          usage,
          warnings: [],
        },
      });
      await expect(
        generateSpecializedSummary({ model, modelName: "m" }, { ...SOURCE, focus: "exercise" }),
      ).rejects.toBeInstanceOf(EmptyAnalysisError);
    }
  });

  it("streams chunks as they come and grounds the final text", async () => {
    const deltas = ["Strokes ", "fell ", "(12 vs 19) ", "[S4]", "."];
    const onFinish = vi.fn<(r: SpecializedResult) => void>();
    const response = streamSpecializedSummary(
      {
        model: streamingMock([
          ...textParts(deltas),
          { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
        ]),
        modelName: "mock-stream",
        onFinish,
      },
      { ...SOURCE, focus: "cardiovascular" },
    );
    const { reads, error } = await readBody(response);
    expect(error).toBeUndefined();
    expect(reads.join("")).toBe(deltas.join(""));
    expect(reads.length).toBeGreaterThanOrEqual(deltas.length);
    expect(onFinish).toHaveBeenCalledWith(
      expect.objectContaining({ text: "Strokes fell (12 vs 19).", modelName: "mock-stream", unsupported: [] }),
    );
  });

  it("errors the body and never calls onFinish when the model fails", async () => {
    const onFinish = vi.fn();
    const onError = vi.fn();
    const response = streamSpecializedSummary(
      {
        model: streamingMock([
          ...textParts(["Strokes "]).slice(0, 3),
          { type: "error", error: new Error("upstream 500") },
        ]),
        modelName: "mock-failing",
        onFinish,
        onError,
      },
      { ...SOURCE, focus: "cardiovascular" },
    );
    const { error } = await readBody(response);
    expect(error).toBeDefined();
    expect(onError).toHaveBeenCalled();
    expect(onFinish).not.toHaveBeenCalled();
  });
});

/** Markup stripped the way a normaliser might. */
function stripTags(html: string): string {
  return html
    .replace(/<\/?[a-zA-Z][\w:-]*(?:\s[^<>]*)?\/?>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function realAbstracts(): { id: string; title: string; text: string }[] {
  const epmc = JSON.parse(readFixture("europepmc/search_core_COVID-19_pageSize25.json")) as {
    resultList: { result: { id: string; title: string; abstractText?: string }[] };
  };
  return epmc.resultList.result
    .filter((r) => (r.abstractText?.length ?? 0) > 600)
    .map((r) => ({ id: r.id, title: r.title, text: stripTags(r.abstractText!) }));
}

describe.skipIf(!hasSharedFixtures())(
  `offline focus summaries of real abstracts (${hasSharedFixtures() ? "../shared fixtures" : `skipped: ${MISSING_FIXTURES_MESSAGE}`})`,
  () => {
    it("answers every focus with source sentences only, each cited exactly, no number unverified", async () => {
      const model = createOfflineModel();
      let abstracts = 0;
      for (const abstract of realAbstracts()) {
        abstracts++;
        for (const focus of FOCUS_VALUES) {
          const label = `${abstract.id} ${focus}`;
          const result = await generateSpecializedSummary({ model, modelName: "offline" }, { ...abstract, focus });
          expect(result.unsupported, label).toEqual([]);
          expect(result.citations.length, label).toBeGreaterThan(0);
          expectExactQuotes(abstract.text, result.citations);
          // Every sentence of the answer is a source sentence; only the labelled lead-in is not.
          expect(withoutFraming(result.text), label).toBe(
            result.citations.map((c) => c.quote.replace(/\s+/g, " ")).join(" "),
          );
          for (const c of result.citations) expect(abstract.text, label).toContain(c.quote);
        }
      }
      expect(abstracts).toBeGreaterThanOrEqual(10);
    });

    it("picks the cardiovascular sentences of a cardiovascular abstract (PMID 38727032)", async () => {
      const abstract = realAbstracts().find((a) => a.id === "38727032")!;
      const cv = compileFocusTerms(FOCUS_VOCABULARY.cardiovascular);
      const sentences = numberSourceSentences(abstract.text);
      const withTerms = sentences.filter((s) => countFocusHits(s.text, cv) > 0);
      expect(withTerms.length).toBeGreaterThanOrEqual(3);
      const result = await generateSpecializedSummary(
        { model: createOfflineModel(), modelName: "offline" },
        { ...abstract, focus: "cardiovascular" },
      );
      expect(result.text).not.toContain("⟦framing");
      expect(result.citations).toHaveLength(3);
      for (const c of result.citations) expect(countFocusHits(c.quote, cv), c.quote).toBeGreaterThan(0);
      expect(result.text).toContain("HR: 0.66, 95% CI: 0.56-0.77");
    });

    it("picks the cardiovascular outcomes of the vaccination abstract (PMID 38471729)", async () => {
      const abstract = realAbstracts().find((a) => a.id === "38471729")!;
      const cv = compileFocusTerms(FOCUS_VOCABULARY.cardiovascular);
      const result = await generateSpecializedSummary(
        { model: createOfflineModel(), modelName: "offline" },
        { ...abstract, focus: "cardiovascular" },
      );
      for (const c of result.citations) expect(countFocusHits(c.quote, cv), c.quote).toBeGreaterThan(0);
    });

    it("leads in plainly when an abstract never mentions the focus (PMID 38488185, musculoskeletal)", async () => {
      const abstract = realAbstracts().find((a) => a.id === "38488185")!;
      const ms = compileFocusTerms(FOCUS_VOCABULARY.musculoskeletal);
      expect(numberSourceSentences(abstract.text).every((s) => countFocusHits(s.text, ms) === 0)).toBe(true);
      const focus: Focus = "musculoskeletal";
      const result = await generateSpecializedSummary(
        { model: createOfflineModel(), modelName: "offline" },
        { ...abstract, focus },
      );
      expect(result.text).toMatch(
        new RegExp(
          `^⟦framing: The source does not discuss ${FOCUS_LABELS[focus]} directly; its central findings are:⟧ `,
        ),
      );
      const plain = summarizeExtractive(abstract.text, { maxSentences: 3 }).sentences.map((s) => s.text);
      expect(result.citations.map((c) => c.quote)).toEqual(plain);
    });
  },
);
