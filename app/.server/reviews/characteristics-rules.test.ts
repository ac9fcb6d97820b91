import { describe, expect, it } from "vitest";
import { studyDocument } from "~/lib/extraction/core";
import { prefillCharacteristics } from "./characteristics-rules";

const prefill = (title: string, text: string) => prefillCharacteristics(studyDocument({ title, fullText: text }));

const TITLE = "Zelmoxan versus placebo in sepsis: a randomised trial";
const TEXT =
  "Methods: This multicentre trial was conducted in 12 hospitals in Spain and Portugal. We randomised 198 adults with sepsis to zelmoxan (n = 100) or placebo (n = 98) in the intensive care unit. " +
  "Patients were followed up for 12 months. Mortality was 12/100 in the zelmoxan group vs 20/98 in the placebo group. " +
  "Funding: The trial was funded by the National Sepsis Foundation. Conflicts of interest: The authors declare no competing interests.";

describe("prefillCharacteristics", () => {
  const out = prefill(TITLE, TEXT);
  const full = `${TITLE}\n\n${TEXT}`;

  it("fills each built-in column with a value and a verbatim quote", () => {
    expect(out.design?.value).toBe("RCT");
    expect(out.country?.value).toBe("Spain, Portugal");
    expect(out.setting?.value).toBe("Intensive care");
    expect(out.randomised?.value).toBe("198");
    expect(out.population?.value).toBe("adults with sepsis");
    expect(out.intervention?.value).toBe("zelmoxan");
    expect(out.comparator?.value).toBe("placebo");
    expect(out.followUp?.value).toBe("12 months");
    expect(out.funding?.value).toContain("National Sepsis Foundation");
    expect(out.conflicts?.value).toContain("no competing interests");
    for (const v of Object.values(out)) expect(full.includes(v.quote)).toBe(true);
  });

  it("leaves cells blank when the text does not say", () => {
    const none = prefill("", "Mortality was lower with the drug.");
    expect(none).toEqual({});
  });

  it("reads the arms from the title when no sentence names them, and a multinational study", () => {
    const r = prefill(
      "Aspirin versus placebo in stroke",
      "Patients were recruited in France, Germany, Italy and Spain.",
    );
    expect(r.intervention?.value).toBe("Aspirin");
    expect(r.comparator?.value).toBe("placebo");
    expect(r.country?.value).toBe("Multinational");
  });
});

describe("prefillCharacteristics quotes", () => {
  it("quotes the whole sentence of a count or a duration", () => {
    const out = prefill(TITLE, TEXT);
    expect(out.randomised?.quote).toBe(
      "We randomised 198 adults with sepsis to zelmoxan (n = 100) or placebo (n = 98) in the intensive care unit.",
    );
    expect(out.followUp?.quote).toBe("Patients were followed up for 12 months.");
  });
});
