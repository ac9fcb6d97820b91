import { describe, expect, it } from "vitest";
import { hasSharedFixtures, MISSING_FIXTURES_MESSAGE, readFixture } from "../../../tests/fixtures";
import { splitSentences, type SentenceSpan } from "~/lib/extraction/core";
import { summarizeExtractive } from "./extractive";

const texts = (spans: SentenceSpan[]) => spans.map((s) => s.text);

function expectExactOffsets(source: string, spans: SentenceSpan[]) {
  for (const s of spans) {
    expect(source.slice(s.start, s.end)).toBe(s.text);
    expect(s.text).toBe(s.text.trim());
    expect(s.text.length).toBeGreaterThan(0);
  }
  for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
}

/** Every decimal in the source lies wholly inside one sentence (no split within a number). */
function expectNumbersIntact(source: string, spans: SentenceSpan[]) {
  for (const m of source.matchAll(/\d+(?:[.,]\d+)+/g)) {
    const from = m.index;
    const to = from + m[0].length;
    expect(
      spans.some((s) => s.start <= from && to <= s.end),
      `number ${m[0]} at ${from}`,
    ).toBe(true);
  }
}

const SYNTHETIC = [
  "BACKGROUND: Statins lower cholesterol, but their effect on frailty in older adults (e.g. those over 75) is unclear.",
  "METHODS: We randomly assigned 1,204 adults to atorvastatin 20 mg or placebo for 2 years; Smith et al. designed the frailty index used here.",
  "RESULTS: Frailty scores rose by 0.75 points with placebo vs. 0.41 points with atorvastatin (mean difference -0.34; 95% CI -0.52 to -0.16; p < 0.001).",
  "Muscle symptoms occurred in 6.2% vs. 5.9% of participants (p = 0.81), i.e. at similar rates (Fig. 2).",
  "Adherence was 87%.",
  "CONCLUSIONS: Atorvastatin slowed the rise in frailty over 2 years without more muscle symptoms.",
  "Longer trials are needed.",
].join(" ");

describe("splitSentences", () => {
  it("keeps abbreviations, decimals, p-values and CIs inside sentences and drops section labels", () => {
    const spans = splitSentences(SYNTHETIC);
    expectExactOffsets(SYNTHETIC, spans);
    expectNumbersIntact(SYNTHETIC, spans);
    expect(texts(spans)).toEqual([
      "Statins lower cholesterol, but their effect on frailty in older adults (e.g. those over 75) is unclear.",
      "We randomly assigned 1,204 adults to atorvastatin 20 mg or placebo for 2 years; Smith et al. designed the frailty index used here.",
      "Frailty scores rose by 0.75 points with placebo vs. 0.41 points with atorvastatin (mean difference -0.34; 95% CI -0.52 to -0.16; p < 0.001).",
      "Muscle symptoms occurred in 6.2% vs. 5.9% of participants (p = 0.81), i.e. at similar rates (Fig. 2).",
      "Adherence was 87%.",
      "Atorvastatin slowed the rise in frailty over 2 years without more muscle symptoms.",
      "Longer trials are needed.",
    ]);
  });

  it.each([
    [
      "et al. before a name-like word",
      "Jones et al. Reported data were reused. Next one.",
      ["Jones et al. Reported data were reused.", "Next one."],
    ],
    [
      "et al. before a sentence starter",
      "It was shown by Jones et al. The next study differs.",
      ["It was shown by Jones et al.", "The next study differs."],
    ],
    [
      "Fig. and No. before numbers",
      "See Fig. 3 and No. 12 of the series. Done.",
      ["See Fig. 3 and No. 12 of the series.", "Done."],
    ],
    [
      "a CI with an en dash",
      "The ratio was 0.75 (95% CI 0.60–0.93). It held.",
      ["The ratio was 0.75 (95% CI 0.60–0.93).", "It held."],
    ],
    [
      "dotted acronyms",
      "Adults in the U.S. were enrolled. They stayed.",
      ["Adults in the U.S. were enrolled.", "They stayed."],
    ],
    [
      "a capital letter after a lower-case word",
      "Levels of vitamin D. These rose.",
      ["Levels of vitamin D.", "These rose."],
    ],
    [
      "a bracketed number after an abbreviation",
      "Seeds of Acacia bivenosa DC. (102 g) were rich. Fine.",
      ["Seeds of Acacia bivenosa DC. (102 g) were rich.", "Fine."],
    ],
    [
      "a full stop glued to the next sentence",
      "Weights were used, respectively.Fine-Gray models were fitted.",
      ["Weights were used, respectively.", "Fine-Gray models were fitted."],
    ],
    ["question and exclamation marks", "Does it work? Yes! It does.", ["Does it work?", "Yes!", "It does."]],
    [
      "closing quotes and brackets",
      'He said "stop." Then (as planned.) It ended.',
      ['He said "stop."', "Then (as planned.)", "It ended."],
    ],
  ])("handles %s", (_name, source, expected) => {
    const spans = splitSentences(source);
    expectExactOffsets(source, spans);
    expect(texts(spans)).toEqual(expected);
  });

  it("recognises labels in their many spellings", () => {
    const source =
      "Background and aims: A surge occurred. Design, setting, and participants: This was a survey.\n\n" +
      "Methods\nWe sampled 408 adults.\nRESULTS\n9 trials met criteria. Results A total of 12 sites took part. " +
      "Findings were robust p < 0.05 CONCLUSIONS: It works. Conclusion";
    const spans = splitSentences(source);
    expectExactOffsets(source, spans);
    expect(texts(spans)).toEqual([
      "A surge occurred.",
      "This was a survey.",
      "We sampled 408 adults.",
      "9 trials met criteria.",
      "A total of 12 sites took part.",
      "Findings were robust p < 0.05",
      "It works.",
    ]);
  });

  it("does not treat statistics or ordinary colons as labels", () => {
    const source = "HR: 0.66, 95% CI: 0.56-0.77 was seen. Two groups: A and B were compared.";
    expect(texts(splitSentences(source))).toEqual([
      "HR: 0.66, 95% CI: 0.56-0.77 was seen.",
      "Two groups: A and B were compared.",
    ]);
  });

  it("returns nothing for blank input", () => {
    expect(splitSentences("")).toEqual([]);
    expect(splitSentences("  \n ")).toEqual([]);
  });
});

describe("summarizeExtractive", () => {
  it("returns at most maxSentences source sentences in source order with exact offsets", () => {
    const { sentences } = summarizeExtractive(SYNTHETIC, { maxSentences: 3 });
    expect(sentences).toHaveLength(3);
    expectExactOffsets(SYNTHETIC, sentences);
    const all = splitSentences(SYNTHETIC);
    for (const s of sentences) expect(all[s.index]).toEqual({ text: s.text, start: s.start, end: s.end });
    expect(sentences.map((s) => s.index)).toEqual([...sentences.map((s) => s.index)].sort((a, b) => a - b));
  });

  it("favours the quantitative result and the conclusion", () => {
    const picked = texts(summarizeExtractive(SYNTHETIC).sentences);
    expect(picked).toContain(
      "Frailty scores rose by 0.75 points with placebo vs. 0.41 points with atorvastatin (mean difference -0.34; 95% CI -0.52 to -0.16; p < 0.001).",
    );
    expect(picked).toContain("Atorvastatin slowed the rise in frailty over 2 years without more muscle symptoms.");
  });

  it("is deterministic", () => {
    expect(summarizeExtractive(SYNTHETIC, { maxSentences: 4 })).toEqual(
      summarizeExtractive(SYNTHETIC, { maxSentences: 4 }),
    );
  });

  it("returns every sentence of a short source", () => {
    const source = "RESULTS: Mortality fell by 12%. CONCLUSIONS: Treat early.";
    expect(texts(summarizeExtractive(source, { maxSentences: 3 }).sentences)).toEqual([
      "Mortality fell by 12%.",
      "Treat early.",
    ]);
    expect(summarizeExtractive("").sentences).toEqual([]);
  });

  it("rejects a non-positive maxSentences", () => {
    expect(() => summarizeExtractive(SYNTHETIC, { maxSentences: 0 })).toThrow(RangeError);
    expect(() => summarizeExtractive(SYNTHETIC, { maxSentences: 1.5 })).toThrow(RangeError);
  });
});

/** Markup stripped the way a normaliser might: tags become spaces, whitespace collapsed. */
function stripTags(html: string): string {
  return html
    .replace(/<\/?[a-zA-Z][\w:-]*(?:\s[^<>]*)?\/?>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function decodeXml(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

function realAbstracts(): { id: string; text: string }[] {
  const out: { id: string; text: string }[] = [];
  const epmc = JSON.parse(readFixture("europepmc/search_core_COVID-19_pageSize25.json")) as {
    resultList: { result: { id: string; abstractText?: string }[] };
  };
  for (const r of epmc.resultList.result.filter((r) => (r.abstractText?.length ?? 0) > 800).slice(0, 6)) {
    const html = r.abstractText!;
    out.push({ id: `europepmc ${r.id} (tags stripped)`, text: stripTags(html) });
    out.push({
      id: `europepmc ${r.id} (labels with colons)`,
      text: stripTags(html.replace(/<h4>\s*(.*?)\s*:?\s*<\/h4>/g, " $1: ")),
    });
  }
  for (const file of [
    "efetch_pubmed_23121403_POST.xml",
    "efetch_pubmed_22351513_POST.xml",
    "efetch_pubmed_29915538_POST.xml",
    "efetch_pubmed_11748933_11700088.xml",
  ]) {
    const xml = readFixture(`pubmed/${file}`);
    for (const [, body] of xml.matchAll(/<Abstract>([\s\S]*?)<\/Abstract>/g)) {
      const parts = [...body!.matchAll(/<AbstractText(?:\s+Label="([^"]*)")?[^>]*>([\s\S]*?)<\/AbstractText>/g)].map(
        ([, label, inner]) => (label ? `${label}: ` : "") + stripTags(inner!),
      );
      out.push({ id: `pubmed ${file}`, text: decodeXml(parts.join(" ")) });
    }
  }
  return out;
}

describe.skipIf(!hasSharedFixtures())(
  `on real abstracts (${hasSharedFixtures() ? "../shared fixtures" : `skipped: ${MISSING_FIXTURES_MESSAGE}`})`,
  () => {
    it("uses at least 3 abstracts", () => {
      expect(new Set(realAbstracts().map((a) => a.id.split(" (")[0])).size).toBeGreaterThanOrEqual(3);
    });

    it("splits without cutting numbers and slices back exactly", () => {
      for (const { id, text } of realAbstracts()) {
        const spans = splitSentences(text);
        expect(spans.length, id).toBeGreaterThan(2);
        expectExactOffsets(text, spans);
        expectNumbersIntact(text, spans);
        for (const s of spans) expect(s.text, id).not.toMatch(/^(?:BACKGROUND|METHODS|RESULTS|CONCLUSIONS?):/);
      }
    });

    it("summarises with source sentences only, numbers kept verbatim", () => {
      for (const { id, text } of realAbstracts()) {
        const { sentences } = summarizeExtractive(text, { maxSentences: 3 });
        expect(sentences.length, id).toBe(Math.min(3, splitSentences(text).length));
        expectExactOffsets(text, sentences);
        const summary = sentences.map((s) => s.text).join(" ");
        for (const s of sentences) expect(text.includes(s.text), id).toBe(true);
        for (const n of summary.match(/\d+(?:[.,]\d+)*%?/g) ?? []) expect(text.includes(n), `${id}: ${n}`).toBe(true);
      }
    });

    it("picks the primary result of the aspirin trial (PMID 23121403)", () => {
      const aspirin = realAbstracts().find((a) => a.id.includes("23121403"))!;
      const summary = summarizeExtractive(aspirin.text)
        .sentences.map((s) => s.text)
        .join(" ");
      expect(summary).toContain("hazard ratio with aspirin, 0.74; 95% confidence interval [CI], 0.52 to 1.05; P=0.09");
      expect(summary).not.toContain("Funded by");
    });
  },
);
