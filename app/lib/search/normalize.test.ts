import { describe, expect, it } from "vitest";
import {
  classifyStudyType,
  decodeEntities,
  normaliseDoi,
  normaliseTitleKey,
  stripMarkup,
  toIsoDate,
} from "./normalize";

describe("decodeEntities", () => {
  it("decodes named, decimal and hex references and keeps unknown names", () => {
    expect(decodeEntities("P &lt; 0.001 &amp; Universit&#xe0; &#233;t&eacute; 40 g kg&#x207b;&#xb9;")).toBe(
      "P < 0.001 & Università été 40 g kg⁻¹",
    );
    expect(decodeEntities("&notanentity; &#xZZ;")).toBe("&notanentity; &#xZZ;");
  });
});

describe("stripMarkup", () => {
  it("drops the JATS Abstract title and unwraps jats:p paragraphs", () => {
    expect(
      stripMarkup(
        "<jats:title>Abstract</jats:title><jats:p>Feline foamy virus (FFV) is a <jats:italic>retrovirus</jats:italic>.</jats:p>\n<jats:p>Second.</jats:p>",
      ),
    ).toBe("Feline foamy virus (FFV) is a retrovirus. Second.");
  });

  it("turns HTML section headings into 'Heading: ' prefixes (Europe PMC <h4>)", () => {
    expect(stripMarkup("<h4>Purpose</h4>This study aimed to analyse.<h4>Methods</h4>Data were collected.")).toBe(
      "Purpose: This study aimed to analyse. Methods: Data were collected.",
    );
  });

  it("removes inline tags without inserting spaces and decodes entities after stripping", () => {
    expect(stripMarkup("I<sup>2</sup> test, <i>P</i> &lt; 0.001, kg/m<sup>2</sup>")).toBe("I2 test, P < 0.001, kg/m2");
  });

  it("keeps comparison operators that are not tags", () => {
    expect(stripMarkup("p<0.05 and a < b, n>10")).toBe("p<0.05 and a < b, n>10");
  });

  it("flattens MathML prescripts into linear text", () => {
    const math =
      'inhaled <mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML">\n <mml:mrow><mml:mmultiscripts><mml:mrow><mml:mi>He</mml:mi></mml:mrow><mml:mprescripts/><mml:none/><mml:mrow><mml:mn>3</mml:mn></mml:mrow></mml:mmultiscripts><mml:mtext> </mml:mtext><mml:mi>MRI</mml:mi></mml:mrow>\n</mml:math> ventilation';
    expect(stripMarkup(math)).toBe("inhaled 3He MRI ventilation");
    expect(stripMarkup("<math><mfrac><mi>a</mi><mi>b</mi></mfrac></math>")).toBe("a/b");
  });

  it("collapses whitespace and tolerates non-strings", () => {
    expect(stripMarkup("  Enzyme kinetics from the\n                     perspective  ")).toBe(
      "Enzyme kinetics from the perspective",
    );
    expect(stripMarkup(undefined as unknown as string)).toBe("");
  });
});

describe("normaliseDoi", () => {
  it("strips resolver prefixes and lower-cases", () => {
    expect(normaliseDoi("https://doi.org/10.1056/NEJMoa1210384")).toBe("10.1056/nejmoa1210384");
    expect(normaliseDoi("http://dx.doi.org/10.1038/s41598-020-58350-7")).toBe("10.1038/s41598-020-58350-7");
    expect(normaliseDoi("doi: 10.1117/1.JMI.5.2.026002")).toBe("10.1117/1.jmi.5.2.026002");
    expect(normaliseDoi("10.48550%2Farxiv.2312.07559")).toBe("10.48550/arxiv.2312.07559");
  });

  it("returns null for non-DOIs", () => {
    expect(normaliseDoi("")).toBeNull();
    expect(normaliseDoi(null)).toBeNull();
    expect(normaliseDoi("S0011-2240(01)92328-4")).toBeNull();
  });
});

describe("normaliseTitleKey", () => {
  it("ignores case, markup, punctuation and diacritics", () => {
    expect(normaliseTitleKey("Pharmacokinetics, biodistribution and cell uptake of antisense oligonucleotides.")).toBe(
      normaliseTitleKey("PHARMACOKINETICS — Biodistribution and <i>cell</i> uptake of antisense oligonucleotides"),
    );
    expect(normaliseTitleKey("Tomás Eloy Martínez e as (des)memórias")).toBe("tomas eloy martinez e as des memorias");
    expect(normaliseTitleKey("A sharp Balian–Low principle")).toBe("a sharp balian low principle");
    expect(normaliseTitleKey("Ελληνικά — Δοκιμή 2")).toBe("ελληνικα δοκιμη 2");
    expect(normaliseTitleKey("癌症研究：综述")).toBe("癌症研究 综述");
    expect(normaliseTitleKey("...")).toBe("");
  });
});

describe("toIsoDate", () => {
  it("builds YYYY, YYYY-MM and YYYY-MM-DD from parts and month names", () => {
    expect(toIsoDate(2001, "Jun")).toBe("2001-06");
    expect(toIsoDate("1976", "Sep", "28")).toBe("1976-09-28");
    expect(toIsoDate("2019", "November")).toBe("2019-11");
    expect(toIsoDate("2015", "10")).toBe("2015-10");
    expect(toIsoDate(2020, 1, 31)).toBe("2020-01-31");
    expect(toIsoDate("1975")).toBe("1975");
    expect(toIsoDate("2024", "Sept", "5")).toBe("2024-09-05");
  });

  it("parses PubMed MedlineDate ranges and seasons", () => {
    expect(toIsoDate("1998 Dec-1999 Jan")).toBe("1998-12");
    expect(toIsoDate("2001 Nov 5-12")).toBe("2001-11");
    expect(toIsoDate("2000 Spring")).toBe("2000");
    expect(toIsoDate("1998-1999")).toBe("1998");
    expect(toIsoDate("1990", "Spring")).toBe("1990");
  });

  it("accepts ISO strings and drops impossible days", () => {
    expect(toIsoDate("2015-08-22")).toBe("2015-08-22");
    expect(toIsoDate("1957-09-30T08:00:00Z")).toBe("1957-09-30");
    expect(toIsoDate(2021, 2, 30)).toBe("2021-02");
    expect(toIsoDate(2020, 2, 29)).toBe("2020-02-29");
  });

  it("returns null without a plausible year", () => {
    expect(toIsoDate(null)).toBeNull();
    expect(toIsoDate("n.d.")).toBeNull();
    expect(toIsoDate(99)).toBeNull();
  });
});

describe("classifyStudyType", () => {
  it("maps PubMed publication types", () => {
    expect(
      classifyStudyType(["Journal Article", "Multicenter Study", "Randomized Controlled Trial"], "Low-dose aspirin"),
    ).toBe("Clinical Trial");
    expect(classifyStudyType(["Clinical Trial, Phase III"], "x")).toBe("Clinical Trial");
    expect(classifyStudyType(["Meta-Analysis", "Randomized Controlled Trial"], "x")).toBe("Meta-Analysis");
    expect(classifyStudyType(["Systematic Review", "Review"], "x")).toBe("Systematic Review");
    expect(classifyStudyType(["Observational Study"], "x")).toBe("Observational Study");
  });

  it("maps Semantic Scholar and Europe PMC labels", () => {
    expect(classifyStudyType(["JournalArticle", "ClinicalTrial"], "x")).toBe("Clinical Trial");
    expect(classifyStudyType(["MetaAnalysis"], "x")).toBe("Meta-Analysis");
    expect(classifyStudyType(["systematic-review", "review-article"], "x")).toBe("Systematic Review");
  });

  it("does not treat a generic Review label as systematic", () => {
    expect(classifyStudyType(["Review", "JournalArticle"], "Pharmacokinetics of antisense oligonucleotides")).toBe(
      "Research Article",
    );
    expect(
      classifyStudyType(["journal-article"], "Agile response to critical need for clinical trial accessibility"),
    ).toBe("Research Article");
  });

  it("falls back to title keywords, most synthesised design first", () => {
    expect(
      classifyStudyType(
        ["Journal Article"],
        "Efficacy and Safety of Once-Weekly Semaglutide: A Systematic Review and Meta-Analysis of Randomized Controlled Trials.",
      ),
    ).toBe("Meta-Analysis");
    expect(classifyStudyType([], "Delay in Diagnosis of Spinal Muscular Atrophy: A Systematic Literature Review")).toBe(
      "Systematic Review",
    );
    expect(classifyStudyType([], "The Miracle of Microfinance? Evidence from a Randomized Evaluation")).toBe(
      "Clinical Trial",
    );
    expect(classifyStudyType([], "Effect of X: a pilot clinical trial")).toBe("Clinical Trial");
    expect(classifyStudyType([], "Diet and dementia: a prospective cohort")).toBe("Observational Study");
    expect(classifyStudyType([], "A case-control analysis of smoking")).toBe("Observational Study");
    expect(classifyStudyType([], "Cross-sectional survey of nurses")).toBe("Observational Study");
    expect(classifyStudyType([], "Resolutions in factorization categories")).toBe("Research Article");
  });
});
