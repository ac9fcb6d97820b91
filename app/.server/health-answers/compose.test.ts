import { describe, expect, it } from "vitest";
import {
  conclusionSentences,
  groundModelAnswer,
  numberStudies,
  pickRelevantStudies,
  plainClaim,
  questionToQuery,
  type CandidateStudy,
} from "./compose";

const study = (id: number, title: string, abstract: string): CandidateStudy => ({
  id,
  title,
  abstract,
  journal: null,
  publicationDate: null,
  pmid: null,
  doi: null,
  url: null,
});

describe("health-answer composition", () => {
  it("turns a question into search keywords", () => {
    expect(questionToQuery("Does creatine improve memory in older adults?")).toBe(
      "creatine improve memory older adults",
    );
    expect(questionToQuery("Why?")).toBe("Why?");
  });

  it("finds conclusion sentences: labelled section, cue, else the last sentence", () => {
    expect(
      conclusionSentences(
        "Methods were applied to many people. CONCLUSIONS: Walking lowered blood pressure in adults.",
      ),
    ).toEqual([expect.stringContaining("Walking lowered blood pressure in adults.")]);
    expect(
      conclusionSentences("We studied 40 people for a year. These findings suggest that sleep improves mood."),
    ).toEqual(["These findings suggest that sleep improves mood."]);
    expect(conclusionSentences("We studied 40 people for a year. Mood was measured weekly by survey.")).toEqual([
      "Mood was measured weekly by survey.",
    ]);
  });

  it("leaves statistics out of the claim text but not out of the quote", () => {
    expect(plainClaim("CONCLUSIONS: Risk fell (HR 0.80; 95% CI 0.70 to 0.91) with exercise.")).toBe(
      "Risk fell with exercise.",
    );
  });

  it("keeps only relevant studies with abstracts", () => {
    const studies = [
      study(
        1,
        "Coffee and sleep",
        "Coffee intake in the evening shortened sleep by forty minutes in healthy adults overall.",
      ),
      study(
        2,
        "Walking and blood pressure",
        "Brisk walking for thirty minutes a day lowered blood pressure in adults with hypertension.",
      ),
      study(3, "Walking", "short"),
    ];
    expect(pickRelevantStudies("Does walking lower blood pressure?", studies).map((s) => s.id)).toEqual([2]);
  });

  it("grounds a model answer: [Sx] markers become study marks and quotes; uncited claims are dropped", () => {
    const studies = [
      study(1, "A", "Walking lowered blood pressure. It was safe."),
      study(2, "B", "Running improved mood in adults."),
    ];
    const source = numberStudies(studies);
    const out = groundModelAnswer(
      "Walking helps blood pressure [S1]. Running may lift mood [S3]. Everyone should jog daily with 99% success.",
      source,
      studies,
    );
    expect(out.text).toBe("Walking helps blood pressure [1]. Running may lift mood [2].");
    expect(out.studies[0]!.quotes).toEqual(["Walking lowered blood pressure."]);
    expect(out.studies[1]!.quotes).toEqual(["Running improved mood in adults."]);
  });
});
