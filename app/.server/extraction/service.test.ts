import { describe, expect, it, vi } from "vitest";
import { extractArms } from "~/lib/arms";
import { extractStudyFacts } from "~/lib/extraction/facts";
import { failingModel, textModel } from "../../../tests/mocks/meta-models";
import { extractStudyByRules } from "./extract-rules";
import {
  documentOf,
  extractArmData,
  extractStudies,
  OFFLINE_META_MODEL,
  reportedEstimate,
  studyFacts,
} from "./service";

const REPORT = [
  "We randomised 202 adults to quetorin (n = 101) or placebo (n = 101).",
  "Remission occurred in 40% of quetorin patients; 21 patients on placebo remitted.",
  "Remission was more frequent with quetorin (RR 1.95, 95% CI 1.24 to 3.06).",
].join("\n\n");
const QUESTION = { intervention: "quetorin", comparator: "placebo", outcome: "remission" };
const STUDIES = [
  {
    id: "a",
    title: "Quetorin RCT",
    abstract: "Remission: 41/101 vs 21/101 (RR 1.95, 95% CI 1.24 to 3.06).",
    fullTextAnalysis: "Response was 55/101 vs 30/101 (OR 2.80, 95% CI 1.57 to 5.00).",
  },
  { id: "b", title: "No numbers", abstract: "We describe a protocol." },
];

describe("extraction service: source → document → rules → model fill → edits", () => {
  it("offline, gives each study the rows the rules give on its document (abstract and full-text parts)", async () => {
    const out = await extractStudies({ model: null }, STUDIES);
    expect(out.model).toBe(OFFLINE_META_MODEL);
    const expected = STUDIES.flatMap((s, i) => extractStudyByRules(s, i).rows);
    expect(out.extracted).toEqual(expected);
    expect(out.extracted.length).toBeGreaterThanOrEqual(3);
    expect(new Set(out.extracted.map((r) => r.quotes[0]!.source))).toEqual(new Set(["abstract", "fullText"]));
    // Quote offsets are into the part the quote was read from.
    for (const row of out.extracted) {
      const study = STUDIES.find((s) => s.id === row.studyId)!;
      const q = row.quotes[0]!;
      expect((q.source === "abstract" ? study.abstract : study.fullTextAnalysis)!.slice(q.start, q.end)).toBe(q.quote);
    }
    expect(out.excluded.map((e) => e.studyId)).toEqual(["b"]);
  });

  it("throws the model's error when the model fails for every study, so a queued job retries", async () => {
    const model = { model: failingModel("boom"), name: "m", provider: "openai" as const };
    await expect(extractStudies({ model }, STUDIES.slice(0, 1))).rejects.toThrow("boom");
  });

  it("reads a report's arms and its own reported estimate from one document", () => {
    const document = documentOf({ kind: "report", format: "text", text: REPORT, title: "Quetorin RCT" });
    expect(reportedEstimate(document, "remission")).toMatchObject({
      measure: "RR",
      estimate: 1.95,
      lower: 1.24,
      upper: 3.06,
    });
    expect(reportedEstimate(document, "mortality")).toBeNull();
  });

  it("rejects a report that cannot be parsed with 400 INVALID_REPORT", () => {
    expect(() => documentOf({ kind: "report", format: "jats", text: "<article><body><p>1</p></body><<<" })).toThrow(
      expect.objectContaining({ status: 400, code: "INVALID_REPORT" }),
    );
  });

  it("offline arms equal the rules; stored edits are applied with their audit", async () => {
    const document = documentOf({ kind: "report", format: "text", text: REPORT });
    const rules = extractArms(document, QUESTION);
    const plain = await extractArmData({}, { document, question: QUESTION });
    expect(plain.result).toEqual(rules);
    expect(plain.use).toBeNull();
    const edited = await extractArmData(
      {},
      {
        document,
        question: QUESTION,
        edits: [
          {
            arm: "intervention",
            field: "events",
            oldValue: null,
            newValue: 41,
            who: "a@b.c",
            when: "2026-11-26T00:00:00.000Z",
          },
        ],
      },
    );
    expect(edited.result.intervention.events).toBe(41);
    expect(edited.audit).toHaveLength(1);
    expect(edited.rules).toEqual(rules);
  });

  it("with a model, reserves one use only for a gap, commits it after a grounded fill, releases it and answers 502 on failure", async () => {
    const document = documentOf({ kind: "report", format: "text", text: REPORT });
    const use = () => ({ headers: new Headers(), commit: vi.fn(async () => {}), release: vi.fn(async () => {}) });
    const answer = {
      outcomeType: "binary",
      intervention: {
        events: 40,
        groupSize: 101,
        mean: null,
        sd: null,
        quote: "Remission occurred in 40% of quetorin patients",
      },
      comparator: { events: 21, groupSize: 101, mean: null, sd: null, quote: "21 patients on placebo remitted" },
    };
    const ok = use();
    const filled = await extractArmData(
      {
        model: { model: textModel(JSON.stringify(answer)), provider: "openai", name: "gpt-test" },
        reserve: async () => ok,
      },
      { document, question: QUESTION },
    );
    expect(filled.result.comparator.events).toBe(21);
    expect(filled.result.extractor).toBe("rules+gpt-test");
    expect(ok.commit).toHaveBeenCalledTimes(1);
    expect(filled.rules.extractor).toBe("rules");
    const bad = use();
    await expect(
      extractArmData(
        { model: { model: failingModel("down"), provider: "openai", name: "gpt-test" }, reserve: async () => bad },
        { document, question: QUESTION },
      ),
    ).rejects.toMatchObject({ status: 502, code: "AI_FAILED" });
    expect(bad.release).toHaveBeenCalledTimes(1);
    expect(bad.commit).not.toHaveBeenCalled();
  });

  it("gives the combined summaries the same facts as before from their joined title + abstract", () => {
    const text = `Quetorin RCT\n\n${STUDIES[0]!.abstract}`;
    expect(studyFacts({ text, titleEnd: 12 })).toEqual(extractStudyFacts(text, { titleEnd: 12 }));
    expect(studyFacts({ kind: "study", title: "Quetorin RCT", abstract: STUDIES[0]!.abstract })).toEqual(
      extractStudyFacts(text, { titleEnd: 12 }),
    );
  });
});
