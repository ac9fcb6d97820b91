import { describe, expect, it } from "vitest";
import { buildScreeningCorpus, rankScreening, type ScreeningLabel } from "./index.ts";

const statins = [
  "Statin therapy lowers cardiovascular events in older adults",
  "Atorvastatin and cardiovascular mortality: a randomised trial of statin therapy",
  "Statin treatment for primary prevention of cardiovascular disease",
  "Rosuvastatin statin therapy and cardiovascular outcomes in diabetes",
  "High-intensity statin therapy after myocardial infarction",
];
const backPain = [
  "Exercise therapy for chronic low back pain",
  "Yoga compared with exercise for low back pain in adults",
  "Physiotherapy and exercise programmes for back pain",
  "Back pain in children and adolescents: exercise at school",
  "Spinal manipulation versus exercise for chronic back pain",
];
const records = [...statins, ...backPain].map((title, i) => ({
  id: `r${i}`,
  title,
  abstract:
    i < 5
      ? "Patients received statins; cholesterol and cardiovascular events were recorded."
      : "Participants with back pain did exercise; pain scores were recorded.",
}));
const corpus = buildScreeningCorpus(records);
const topic = (id: string) => (Number(id.slice(1)) < 5 ? "statin" : "back");

describe("rankScreening, prior mode", () => {
  it("ranks by similarity to the question and explains with the matched terms", () => {
    const result = rankScreening(corpus, new Map(), { question: "Does statin therapy prevent cardiovascular events?" });
    expect(result.mode).toBe("prior");
    expect(result.estimatedRelevantRemaining).toBeNull();
    expect(result.ranked).toHaveLength(10);
    expect(result.ranked.slice(0, 5).map((r) => topic(r.id))).toEqual(Array(5).fill("statin"));
    expect(result.ranked[0].terms.some((t) => t.includes("statin") || t.includes("cardiovascular"))).toBe(true);
    expect(result.ranked[0].score).toBeGreaterThan(result.ranked[9].score);
  });

  it("uses inclusion criteria but not exclusion lines", () => {
    const base = rankScreening(corpus, new Map(), { criteria: ["Adults with low back pain"] });
    const withExclusion = rankScreening(corpus, new Map(), {
      criteria: ["Adults with low back pain", "Exclude: children and adolescents at school"],
    });
    expect(withExclusion.ranked.map((r) => [r.id, r.score])).toEqual(base.ranked.map((r) => [r.id, r.score]));
    const withInclusion = rankScreening(corpus, new Map(), {
      criteria: ["Adults with low back pain", "Children and adolescents at school"],
    });
    expect(withInclusion.ranked[0].id).toBe("r8");
  });

  it("ranks by similarity to the included records before any exclusion", () => {
    const result = rankScreening(corpus, new Map([["r6", "include"]]));
    expect(result.mode).toBe("prior");
    expect(result.ranked.map((r) => r.id)).not.toContain("r6");
    expect(result.ranked.slice(0, 4).map((r) => topic(r.id))).toEqual(Array(4).fill("back"));
  });

  it("moves away from the excluded records when nothing else is known", () => {
    const result = rankScreening(corpus, new Map([["r0", "exclude"]]));
    expect(result.ranked.slice(0, 5).map((r) => topic(r.id))).toEqual(Array(5).fill("back"));
  });

  it("keeps the corpus order when there is nothing to rank by", () => {
    expect(rankScreening(corpus, new Map()).ranked.map((r) => r.id)).toEqual(records.map((r) => r.id));
    expect(rankScreening(buildScreeningCorpus([]), new Map()).ranked).toEqual([]);
  });
});

describe("rankScreening, active mode", () => {
  const labels = new Map<string, ScreeningLabel>([
    ["r1", "include"],
    ["r7", "exclude"],
    ["unknown-id", "include"],
  ]);

  it("trains on the decisions and ranks records like the includes first", () => {
    const result = rankScreening(corpus, labels, { question: "back pain" });
    expect(result.mode).toBe("active");
    expect(result.ranked).toHaveLength(8);
    expect(result.ranked.slice(0, 4).map((r) => topic(r.id))).toEqual(Array(4).fill("statin"));
    expect(result.ranked[0].terms.length).toBeGreaterThan(0);
    expect(result.ranked[0].terms.length).toBeLessThanOrEqual(5);
    expect(typeof result.estimatedRelevantRemaining).toBe("number");
    expect(result.estimatedRelevantRemaining!).toBeGreaterThanOrEqual(0);
  });

  it("serialises ranked records with their terms (computed on first read)", () => {
    const first = rankScreening(corpus, labels).ranked[0];
    const copy = JSON.parse(JSON.stringify(first));
    expect(copy).toEqual({ id: first.id, score: first.score, terms: first.terms });
    expect(copy.terms.length).toBeGreaterThan(0);
    expect(structuredClone(first).terms).toEqual(first.terms);
  });

  it("explains only with terms of the included record", () => {
    const includedText = `${records[1].title} ${records[1].abstract}`.toLowerCase();
    const ranked = rankScreening(corpus, labels).ranked;
    expect(ranked.some((r) => r.terms.length > 0)).toBe(true);
    for (const record of ranked) for (const term of record.terms) expect(includedText).toContain(term);
  });

  it("never explains a rank with stop words", () => {
    for (const record of rankScreening(corpus, labels).ranked) {
      for (const term of record.terms) expect(["of", "and", "the", "in", "for", "with", "were"]).not.toContain(term);
    }
  });

  it("is deterministic", () => {
    expect(rankScreening(corpus, labels)).toEqual(rankScreening(corpus, labels));
  });

  it("counts consecutive exclusions in decision order", () => {
    const many = new Map<string, ScreeningLabel>([
      ["r0", "include"],
      ["r5", "exclude"],
      ["r6", "exclude"],
      ["r1", "include"],
    ]);
    expect(rankScreening(corpus, many).consecutiveExclusions).toBe(0);
    expect(rankScreening(corpus, many, undefined, ["r0", "r1", "r5", "r6"]).consecutiveExclusions).toBe(2);
    // ids missing from `order` are older decisions
    expect(rankScreening(corpus, many, undefined, ["r5"]).consecutiveExclusions).toBe(1);
  });

  it("keeps only the best `limit` records, in the full ranking's order", () => {
    const full = rankScreening(corpus, labels).ranked.map((r) => [r.id, r.score]);
    for (const limit of [0, 1, 3, 8, 20]) {
      expect(rankScreening(corpus, labels, undefined, undefined, { limit }).ranked.map((r) => [r.id, r.score])).toEqual(
        full.slice(0, limit),
      );
    }
  });

  it("reports the stopping criterion on the decisions in order, and skips the legacy estimate on request", () => {
    const many = new Map<string, ScreeningLabel>([
      ["r0", "include"],
      ["r5", "exclude"],
      ["r6", "exclude"],
    ]);
    const result = rankScreening(corpus, many, undefined, ["r0", "r5", "r6"], {
      estimate: false,
      stopping: { recallTarget: 0.5, confidence: 0.9 },
    });
    expect(result.estimatedRelevantRemaining).toBeNull();
    // One include of 10 records; H0 (recall < 50 %): ≥ 3 relevant, so ≥ 2 among the 9 left after
    // it. The 2 exclusions after it, drawn from those 9: p = P(X = 0) = C(7, 2) / C(9, 2) = 7/12.
    expect(result.stopping).toMatchObject({
      recallTarget: 0.5,
      confidence: 0.9,
      screened: 3,
      relevantFound: 1,
      reached: false,
    });
    expect(result.stopping.pValue).toBeCloseTo(7 / 12, 12);
  });

  it("ranks with each model; the default ensemble adds the NB and SVM scores, each divided by its spread", () => {
    const two = new Map<string, ScreeningLabel>([
      ["r1", "include"],
      ["r3", "include"],
      ["r7", "exclude"],
      ["r8", "exclude"],
    ]);
    const by = (model: "nb" | "svm" | "ensemble") => rankScreening(corpus, two, undefined, undefined, { model }).ranked;
    for (const model of ["nb", "svm", "ensemble"] as const) {
      expect(
        by(model)
          .slice(0, 3)
          .map((r) => topic(r.id)),
      ).toEqual(Array(3).fill("statin"));
    }
    expect(rankScreening(corpus, two).ranked).toEqual(by("ensemble"));
    // The ensemble score is the z-score sum: (nb − mean)/sd + (svm − mean)/sd, up to a constant.
    const z = (ranked: { id: string; score: number }[]) => {
      const xs = ranked.map((r) => r.score);
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length);
      return new Map(ranked.map((r) => [r.id, (r.score - m) / sd]));
    };
    const nb = z(by("nb"));
    const svm = z(by("svm"));
    const ens = z(by("ensemble"));
    const sum = new Map([...nb].map(([id, v]) => [id, v + svm.get(id)!]));
    const zs = z([...sum].map(([id, score]) => ({ id, score })));
    for (const [id, v] of ens) expect(v).toBeCloseTo(zs.get(id)!, 9);
  });
});
