import { describe, expect, it } from "vitest";
import { hasSharedFixtures, MISSING_FIXTURES_MESSAGE, readFixture } from "../../../tests/fixtures";
import {
  citeExtractive,
  extractCitations,
  flagUnsupportedNumbers,
  formatNumberedSource,
  groundText,
  numberSourceSentences,
  parseNumberedSource,
  type Citation,
  type SourceSentence,
} from "./grounding";
import { summarizeExtractive } from "./extractive";

const SOURCE = [
  "BACKGROUND: Statins lower cholesterol, but their effect on frailty in older adults is unclear.",
  "METHODS: We randomly assigned 1,204 adults to atorvastatin 20 mg or placebo for 2 years.",
  "RESULTS: Frailty scores rose by 0.75 points with placebo vs. 0.41 points with atorvastatin (mean difference -0.34; 95% CI -0.52 to -0.16; p < 0.001).",
  "Muscle symptoms occurred in 6.2% vs. 5.9% of participants (p = 0.81).",
  "CONCLUSIONS: Atorvastatin slowed the rise in frailty over 2 years without more muscle symptoms.",
].join(" ");

/** Every citation quotes its source exactly at [start, end). */
function expectExactQuotes(source: string, citations: Citation[]) {
  for (const c of citations) {
    expect(source.slice(c.start, c.end)).toBe(c.quote);
    expect(c.quote.length).toBeGreaterThan(0);
  }
}

describe("numberSourceSentences / formatNumberedSource", () => {
  it("numbers sentences S1… with exact offsets and formats one per line", () => {
    const sentences = numberSourceSentences(SOURCE);
    expect(sentences.map((s) => s.id)).toEqual(["S1", "S2", "S3", "S4", "S5"]);
    for (const s of sentences) expect(SOURCE.slice(s.start, s.end)).toBe(s.text);
    const formatted = formatNumberedSource(sentences);
    expect(formatted.split("\n")).toHaveLength(5);
    expect(formatted.split("\n")[1]).toBe(
      "[S2] We randomly assigned 1,204 adults to atorvastatin 20 mg or placebo for 2 years.",
    );
    expect(parseNumberedSource(formatted)).toEqual(sentences.map(({ id, text }) => ({ id, text })));
    expect(parseNumberedSource("plain text")).toBeNull();
  });

  it("keeps a sentence with an inner line break on one line", () => {
    const sentences = numberSourceSentences("Blood pressure fell\nby 5 mmHg in the trial. It was safe.");
    expect(formatNumberedSource(sentences)).toBe("[S1] Blood pressure fell by 5 mmHg in the trial.\n[S2] It was safe.");
  });
});

describe("extractCitations", () => {
  const sentences = numberSourceSentences(SOURCE);

  it.each([
    [
      "single markers",
      "Frailty rose less with atorvastatin [S3]. It was safe [S4].",
      "Frailty rose less with atorvastatin. It was safe.",
      ["S3", "S4"],
    ],
    ["a list", "Adults took atorvastatin [S2, S3].", "Adults took atorvastatin.", ["S2", "S3"]],
    ["a semicolon list", "Adults took atorvastatin [S2; S5].", "Adults took atorvastatin.", ["S2", "S5"]],
    ["a range with a hyphen", "Findings [S3-S5] held.", "Findings held.", ["S3", "S4", "S5"]],
    ["a range with an en dash and short end", "Findings held [S2–4].", "Findings held.", ["S2", "S3", "S4"]],
    ["lower case and spaces", "It worked [ s1 ,s5 ].", "It worked.", ["S1", "S5"]],
    ["a marker glued between words", "a[S1]b", "a b", ["S1"]],
    ["adjacent markers", "It worked [S1][S2].", "It worked.", ["S1", "S2"]],
    ["a marker at the start", "[S1] Statins were tested.", "Statins were tested.", ["S1"]],
  ])("parses %s", (_name, raw, text, ids) => {
    const result = extractCitations(raw, sentences);
    expect(result.text).toBe(text);
    expect(result.citations.map((c) => c.id)).toEqual(ids);
    expectExactQuotes(SOURCE, result.citations);
  });

  it("drops unknown ids but removes their markers", () => {
    const result = extractCitations("A claim [S9]. Another [S2, S42].", sentences);
    expect(result.text).toBe("A claim. Another.");
    expect(result.citations.map((c) => c.id)).toEqual(["S2"]);
  });

  it("anchors each citation where its markers stood, once per id", () => {
    const result = extractCitations("First claim [S3]. Second claim [S4]. Third [S3].", sentences);
    const s3 = result.citations.find((c) => c.id === "S3")!;
    expect(result.citations).toHaveLength(2);
    expect(s3.anchors!.map((a) => result.text.slice(0, a))).toEqual([
      "First claim",
      "First claim. Second claim. Third",
    ]);
  });

  it("leaves brackets that are not markers alone", () => {
    const result = extractCitations("Dose [20 mg] and ref [1] stay.", sentences);
    expect(result).toEqual({ text: "Dose [20 mg] and ref [1] stay.", citations: [] });
  });
});

describe("citeExtractive", () => {
  const sentences = numberSourceSentences(SOURCE);

  it("maps each copied sentence to its source sentence and skips other text", () => {
    const summary = `Lead-in of the model. ${sentences[2]!.text} ${sentences[4]!.text}`;
    const citations = citeExtractive(summary, sentences);
    expect(citations.map((c) => c.id)).toEqual(["S3", "S5"]);
    expectExactQuotes(SOURCE, citations);
    expect(citations[0]!.anchors).toEqual([summary.indexOf(sentences[2]!.text) + sentences[2]!.text.length]);
    expect(citations[1]!.anchors).toEqual([summary.length]);
  });

  it("tolerates collapsed whitespace and ⟦…⟧ markup edges", () => {
    const source = "Blood pressure fell\nby 5 mmHg. It was safe.";
    const numbered = numberSourceSentences(source);
    const citations = citeExtractive("⟦framing: Lead-in:⟧ Blood pressure fell by 5 mmHg.", numbered);
    expect(citations.map((c) => c.quote)).toEqual(["Blood pressure fell\nby 5 mmHg."]);
    expectExactQuotes(source, citations);
  });

  it("does not cite a sentence found only inside a longer word sequence", () => {
    const numbered: SourceSentence[] = [{ id: "S1", text: "It was safe.", start: 0, end: 12 }];
    expect(citeExtractive("Nobody said It was safe.ly", numbered)).toEqual([]);
  });
});

describe("flagUnsupportedNumbers", () => {
  it("keeps numbers found in the source, after normalisation", () => {
    const source = "We enrolled 1,000 adults; 12.5% improved (HR 0.5; 95% CI 0.40–0.93; p<.05) over 2 000 days.";
    const text = "Of 1000 adults, 12.5 % improved (HR .5, 95% CI 0.40 to 0.93, p < 0.05) over 2,000 days.";
    expect(flagUnsupportedNumbers(text, source)).toEqual({ text, unsupported: [] });
  });

  it("marks numbers, percentages and interval bounds that the source lacks", () => {
    const source = "Systolic blood pressure fell by 5 mmHg (95% CI 3 to 7) in 120 adults.";
    const result = flagUnsupportedNumbers(
      "Pressure fell by 5.5 mmHg (95% CI 3 to 8) in 120 adults, a 12% drop.",
      source,
    );
    expect(result.unsupported).toEqual(["5.5", "8", "12%"]);
    expect(result.text).toBe(
      "Pressure fell by ⟦unverified: 5.5⟧ mmHg (95% CI 3 to ⟦unverified: 8⟧) in 120 adults, a ⟦unverified: 12%⟧ drop.",
    );
  });

  it("ignores digits in names, citation markers and existing markup, and does not compare signs", () => {
    const source = "Mean difference −0.34 in adults with COVID-19.";
    const text = "COVID-19 and IL-6 with T2DM [S3, S4-S6] differed by -0.34 ⟦unverified: 7⟧.";
    expect(flagUnsupportedNumbers(text, source)).toEqual({ text, unsupported: [] });
  });

  it("does not read a digit glued to letters as the first group of a thousands-grouped number", () => {
    // Regression: "D3 2000" was read as the grouped "3 200" plus 0, so 2000 was flagged.
    const source = "Participants took vitamin D3 2000 IU daily; 25(OH)D rose in 1,204 of 2 000 adults.";
    const text = "Vitamin D3 2000 IU daily raised 25(OH)D in 1204 of 2000 adults.";
    expect(flagUnsupportedNumbers(text, source)).toEqual({ text, unsupported: [] });
    // A separator must be followed by exactly three digits: "12,3456" holds 12 and 3456, not 12,345.
    expect(flagUnsupportedNumbers("Doses of 12345 IU.", "Doses of 12,3456 IU.").unsupported).toEqual(["12345"]);
    expect(flagUnsupportedNumbers("Doses of 3456 IU.", "Doses of 12,3456 IU.").unsupported).toEqual([]);
  });

  it("lists a repeated unsupported number once", () => {
    expect(flagUnsupportedNumbers("42 and 42 again.", "no numbers here").unsupported).toEqual(["42"]);
  });
});

describe("groundText", () => {
  const sentences = numberSourceSentences(SOURCE);

  it("flags numbers, strips markers and anchors citations in the final text", () => {
    const result = groundText("Frailty rose by 0.41 vs 0.80 points [S3].", sentences, SOURCE);
    expect(result.text).toBe("Frailty rose by 0.41 vs ⟦unverified: 0.80⟧ points.");
    expect(result.unsupported).toEqual(["0.80"]);
    expect(result.citations.map((c) => c.id)).toEqual(["S3"]);
    expect(result.citations[0]!.anchors).toEqual([result.text.length - 1]);
  });

  it("falls back to verbatim copies when the text has no markers", () => {
    const result = groundText(`${sentences[3]!.text} ${sentences[4]!.text}`, sentences, SOURCE);
    expect(result.citations.map((c) => c.id)).toEqual(["S4", "S5"]);
    expect(result.unsupported).toEqual([]);
  });
});

/** Markup stripped the way a normaliser might. */
function stripTags(html: string): string {
  return html
    .replace(/<\/?[a-zA-Z][\w:-]*(?:\s[^<>]*)?\/?>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function realAbstracts(): { id: string; text: string }[] {
  const epmc = JSON.parse(readFixture("europepmc/search_core_COVID-19_pageSize25.json")) as {
    resultList: { result: { id: string; abstractText?: string }[] };
  };
  const out = epmc.resultList.result
    .filter((r) => (r.abstractText?.length ?? 0) > 600)
    .map((r) => ({ id: `europepmc ${r.id}`, text: stripTags(r.abstractText!) }));
  const xml = readFixture("pubmed/efetch_pubmed_23121403_POST.xml");
  const body = /<Abstract>([\s\S]*?)<\/Abstract>/.exec(xml)![1]!;
  const parts = [...body.matchAll(/<AbstractText(?:\s+Label="([^"]*)")?[^>]*>([\s\S]*?)<\/AbstractText>/g)].map(
    ([, label, inner]) => (label ? `${label}: ` : "") + stripTags(inner!),
  );
  out.push({
    id: "pubmed 23121403",
    text: parts.join(" ").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"),
  });
  return out;
}

describe.skipIf(!hasSharedFixtures())(
  `on real abstracts (${hasSharedFixtures() ? "../shared fixtures" : `skipped: ${MISSING_FIXTURES_MESSAGE}`})`,
  () => {
    it("uses at least 10 abstracts", () => {
      expect(realAbstracts().length).toBeGreaterThanOrEqual(10);
    });

    it("cites extractive summaries with exact quotes and flags none of their numbers", () => {
      for (const { id, text } of realAbstracts()) {
        const sentences = numberSourceSentences(text);
        const summary = summarizeExtractive(text, { maxSentences: 3 })
          .sentences.map((s) => s.text)
          .join(" ");
        const grounded = groundText(summary, sentences, text);
        expect(grounded.unsupported, id).toEqual([]);
        expect(grounded.text, id).toBe(summary);
        expect(grounded.citations.length, id).toBe(Math.min(3, sentences.length));
        expectExactQuotes(text, grounded.citations);
      }
    });

    it("detects numbers changed in a real abstract's sentences", () => {
      let checked = 0;
      for (const { id, text } of realAbstracts()) {
        const sentence = numberSourceSentences(text).find((s) => /(?<![\p{L}\d.-])\d+\.\d+/u.test(s.text));
        if (!sentence) continue;
        const original = /(?<![\p{L}\d.-])(\d+)\.(\d+)/u.exec(sentence.text)!;
        // Shift the decimal by one in its last digit: "0.74" → "0.75" (or "0.73" when it ends in 9).
        const last = Number(original[2]!.at(-1));
        const changed = `${original[1]}.${original[2]!.slice(0, -1)}${last === 9 ? 8 : last + 1}`;
        if (text.includes(changed)) continue;
        const tampered = sentence.text.replace(original[0], changed);
        const result = flagUnsupportedNumbers(tampered, text);
        expect(
          result.unsupported.map((t) => t.replace(/\s?%$/, "")),
          id,
        ).toEqual([changed]);
        expect(result.text, id).toContain(`⟦unverified: ${changed}`);
        expect(flagUnsupportedNumbers(sentence.text, text).unsupported, id).toEqual([]);
        checked++;
      }
      expect(checked).toBeGreaterThanOrEqual(3);
    });

    it("finds the aspirin trial's hazard ratio supported and an invented one not", () => {
      const aspirin = realAbstracts().find((a) => a.id === "pubmed 23121403")!.text;
      expect(
        flagUnsupportedNumbers("Aspirin cut recurrence (HR 0.74; 95% CI 0.52 to 1.05).", aspirin).unsupported,
      ).toEqual([]);
      expect(flagUnsupportedNumbers("Aspirin cut recurrence by 26.5% (HR 0.61).", aspirin).unsupported).toEqual([
        "26.5%",
        "0.61",
      ]);
    });
  },
);
