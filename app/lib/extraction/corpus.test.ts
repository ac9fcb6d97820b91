import { describe, expect, it } from "vitest";
import { loadCorpus, readAnnotations } from "../../../tests/extraction-corpus/load";

const corpus = await loadCorpus();

describe("extraction corpus annotations", () => {
  it("has at least 60 abstracts and 200 hand-annotated effects, each fully described", () => {
    const docs = readAnnotations();
    expect(docs.filter((d) => d.kind === "abstract").length).toBeGreaterThanOrEqual(60);
    const effects = docs.flatMap((d) => d.effects);
    expect(effects.length).toBeGreaterThanOrEqual(200);
    for (const e of effects) {
      expect(e.end - e.start).toBe(e.quote.length);
      expect(e.outcome.length).toBeGreaterThan(0);
      expect(e.family).toMatch(
        /^(?:ratio|difference|smd|regression|correlation|proportion|diagnostic|named-once|typographic|other)$/,
      );
    }
  });
});

describe.skipIf(!corpus.available)(
  corpus.available ? "extraction corpus texts" : `extraction corpus texts — ${corpus.available ? "" : corpus.reason}`,
  () => {
    it("every quote sits at its offsets in the text read from ../shared", () => {
      // loadCorpus throws on any mismatch; this checks it found every document.
      expect(corpus.available && corpus.documents.length).toBe(readAnnotations().length);
    });
  },
);
