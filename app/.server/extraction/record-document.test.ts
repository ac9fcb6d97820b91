import { describe, expect, it } from "vitest";
import { documentSentences } from "~/lib/extraction/core";
import { suggestRob2 } from "~/lib/risk-of-bias/suggestions";
import { prefillCharacteristics } from "../reviews/characteristics-rules";
import { recordDocument, studyFacts } from "./service";

/**
 * A review record's best text as one document (extraction service, issue 26 item 0): the study
 * characteristics pre-fill and the RoB 2 suggestions read it instead of calling the parser. Invented texts.
 */
const JATS = `<?xml version="1.0"?><article><front><article-meta><title-group><article-title>Orvatide in gout</article-title></title-group></article-meta></front><body><sec><title>Methods</title><p>We randomised 140 adults with gout in Norway to orvatide (n = 70) or placebo (n = 70).</p><p>Patients were followed up for 6 months.</p></sec></body></article>`;
const RECORD = { title: "Orvatide versus placebo in gout: a randomised trial", abstract: "Orvatide reduced flares." };

describe("recordDocument", () => {
  it("reads Europe PMC JATS into its text, with the record's title as the title part when asked", () => {
    const { document, fallback } = recordDocument({ format: "jats", text: JATS }, RECORD, { withTitle: true });
    expect(fallback).toBeNull();
    expect(document.parts.map((p) => p.kind)).toEqual(["title", "fullText"]);
    expect(document.text.startsWith(`${RECORD.title}\n\n`)).toBe(true);
    expect(document.text).toContain("We randomised 140 adults with gout in Norway");
    expect(document.text).not.toContain("<p>");
  });

  it("keeps a plain text verbatim (RoB 2 quotes are offsets into it)", () => {
    const text = "  Allocation was concealed by sealed envelopes.\n\nOutcome assessors were blinded.";
    const { document } = recordDocument({ format: "text", text }, RECORD);
    expect(document.text).toBe(text);
    expect(document.title).toBe("");
  });

  it("falls back to the record's title and abstract when the JATS cannot be read, and says why", () => {
    const { document, fallback } = recordDocument(
      { format: "jats", text: "<article><body><p>1</p></body><<<" },
      RECORD,
    );
    expect(fallback).toBeTruthy();
    expect(document.text).toBe(`${RECORD.title}\n\n${RECORD.abstract}`);
  });

  it("feeds the characteristics pre-fill through the service's facts, over the document's one sentence list", () => {
    const { document } = recordDocument({ format: "jats", text: JATS }, RECORD, { withTitle: true });
    const facts = studyFacts(document);
    const shared = documentSentences(document).map((s) => document.text.slice(s.start, s.end));
    expect(facts.sentences.map((s) => s.text)).toEqual(shared);
    const out = prefillCharacteristics(document);
    expect(out.design?.value).toBe("RCT");
    expect(out.randomised?.value).toBe("140");
    expect(out.country?.value).toBe("Norway");
    expect(out.followUp?.value).toBe("6 months");
    for (const v of Object.values(out)) expect(document.text.includes(v.quote)).toBe(true);
  });

  it("gives the RoB 2 suggestions the document's sentence list, with offsets into the document's text", () => {
    const text =
      "Allocation was concealed with sealed opaque envelopes.\n\nOf the 140 randomised, 138 were analysed at 6 months.";
    const { document } = recordDocument({ format: "text", text }, RECORD);
    const s = suggestRob2(document.text, "assignment", documentSentences(document));
    const attrition = s["3.1"]?.[0];
    expect(attrition?.cue).toBe("138 of 140");
    expect(document.text.slice(attrition!.start, attrition!.end)).toBe(attrition!.sentence);
    expect(suggestRob2(text, "assignment")).toEqual(s);
  });
});
