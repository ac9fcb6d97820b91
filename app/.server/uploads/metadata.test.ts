import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { extractPdfDocument } from "../fulltext/fetch";
import { detectMetadata, joinBrokenDoi, type DetectedMetadata } from "./metadata";

/** The real PDFs (../shared/pdfs next to the repository); never copied into the project. */
const PDF_DIR = fileURLToPath(new URL("../../../../shared/pdfs/", import.meta.url));
const hasPdfs = existsSync(`${PDF_DIR}provenance.json`);
const MISSING_PDFS = `skipped: real PDFs not found at ${PDF_DIR} (../shared/pdfs lives outside the repo)`;

/** Expected facts, from provenance.json and the papers' own first pages. */
const EXPECTED: Record<
  string,
  Partial<DetectedMetadata> & { firstAuthor: string; authorCount: number; abstractStart: RegExp }
> = {
  "basic_diabetologia2024_kcnj11_mutation.pdf": {
    title: "A loss-of-function mutation in KCNJ11 causing sulfonylurea-sensitive diabetes in early adult life",
    doi: "10.1007/s00125-024-06103-w",
    journal: "Diabetologia",
    publicationDate: "2024-02-17",
    studyType: "Research Article",
    firstAuthor: "Natascia Vedovato",
    authorCount: 6,
    abstractStart: /^Aims\/hypothesis The ATP-sensitive potassium/,
  },
  "cohort_intpsychogeriatr2014_life_events_dementia.pdf": {
    title: "Stressful life events are not associated with the development of dementia",
    doi: "10.1017/s1041610213001804",
    journal: "International Psychogeriatrics",
    publicationDate: "2014",
    studyType: "Observational Study",
    firstAuthor: "Anna Sundström",
    authorCount: 4,
    abstractStart: /^Background: The impact of stressful life events/,
  },
  "ma_frontneurol2018_vitamin_d_parkinsons.pdf": {
    title: "Association Between Serum Vitamin D Levels and Parkinson’s Disease: A Systematic Review and Meta-Analysis",
    doi: "10.3389/fneur.2018.00909",
    journal: "Frontiers in Neurology",
    publicationDate: "2018-11-12",
    studyType: "Meta-Analysis",
    firstAuthor: "Xiaoyue Luo",
    authorCount: 6,
    abstractStart: /^Background: Vitamin D is an important secosteroid/,
  },
  "ma_nutrients2018_protein_exercise_frailty.pdf": {
    title:
      "Effects of Protein Supplementation Combined with Exercise Intervention on Frailty Indices, Body Composition, and Physical Function in Frail Older Adults",
    doi: "10.3390/nu10121916",
    journal: "Nutrients",
    publicationDate: "2018-12-04",
    studyType: "Meta-Analysis",
    firstAuthor: "Chun-De Liao",
    authorCount: 7,
    abstractStart: /^Aging poses a high risk of lean mass loss/,
  },
  "ma_wjso2019_tea_coffee_brain_cancer.pdf": {
    title: "Association between tea and coffee consumption and brain cancer risk: an updated meta-analysis",
    doi: "10.1186/s12957-019-1591-y",
    journal: "World Journal of Surgical Oncology",
    publicationDate: "2019",
    studyType: "Meta-Analysis",
    firstAuthor: "Yang Song",
    authorCount: 4,
    abstractStart: /^Background: Previous studies had demonstrated/,
  },
  "qual_rehabresprac2010_heart_failure_programmes.pdf": {
    title: "Patient Experiences of Structured Heart Failure Programmes",
    doi: "10.1155/2010/157939",
    journal: "Rehabilitation Research and Practice",
    publicationDate: "2010",
    studyType: "Research Article",
    firstAuthor: "Nuala E. Tully",
    authorCount: 4,
    abstractStart: /^Objectives\. Patient experiences of structured heart failure/,
  },
  "rct_bmj2015_physical_activity_smoking_cessation_pregnancy.pdf": {
    title: "Physical activity for smoking cessation in pregnancy: randomised controlled trial",
    doi: "10.1136/bmj.h2145",
    journal: "BMJ",
    publicationDate: "2015",
    studyType: "Clinical Trial",
    firstAuthor: "Michael Ussher",
    authorCount: 11,
    abstractStart: /^Objective: To determine the effectiveness of a physical activity intervention/,
  },
  "rct_lancetrespmed2014_stopadvisor_smoking.pdf": {
    title:
      "Internet-based intervention for smoking cessation (StopAdvisor) in people with low and high socioeconomic status: a randomised controlled trial",
    doi: "10.1016/s2213-2600(14)70195-x",
    publicationDate: "2014",
    studyType: "Clinical Trial",
    firstAuthor: "Jamie Brown",
    authorCount: 8,
    abstractStart: /^Background Internet-based interventions for smoking cessation/,
  },
};

(hasPdfs ? describe : describe.skip)(
  `detectMetadata on the real articles${hasPdfs ? "" : ` (${MISSING_PDFS})`}`,
  () => {
    const found = new Map<string, DetectedMetadata>();
    beforeAll(async () => {
      for (const name of Object.keys(EXPECTED)) {
        const doc = await extractPdfDocument(new Uint8Array(readFileSync(`${PDF_DIR}${name}`)));
        found.set(name, detectMetadata({ ...doc, fileName: name }));
      }
    }, 60_000);

    it.each(Object.keys(EXPECTED))("%s: title, DOI, journal, date, type, authors and abstract", (name) => {
      const { firstAuthor, authorCount, abstractStart, ...facts } = EXPECTED[name]!;
      const meta = found.get(name)!;
      expect(meta).toMatchObject(facts);
      expect(meta.authors[0]).toBe(firstAuthor);
      expect(meta.authors).toHaveLength(authorCount);
      expect(meta.abstract).toMatch(abstractStart);
      expect(meta.abstract!.length).toBeLessThanOrEqual(4000);
      expect(meta.abstract).not.toMatch(/\bKey ?words\b/i);
    });

    it("every PDF in ../shared/pdfs: the DOI read from the text alone (no dictionary entry) is whole", async () => {
      const names = readdirSync(PDF_DIR).filter((n) => n.endsWith(".pdf"));
      expect(names.length).toBeGreaterThanOrEqual(Object.keys(EXPECTED).length);
      for (const name of names) {
        let doc;
        try {
          doc = await extractPdfDocument(new Uint8Array(readFileSync(`${PDF_DIR}${name}`)), { maxPages: 3 });
        } catch {
          continue; // damaged, encrypted, scanned: no text to read a DOI from
        }
        const meta = detectMetadata({ ...doc, info: { ...doc.info, doi: undefined }, fileName: name });
        if (EXPECTED[name]) expect(meta.doi, name).toBe(EXPECTED[name]!.doi);
        if (meta.doi) expect(meta.doi, name).toMatch(/^10\.\d{4,9}\/\S+[^\s.,;:-]$/);
      }
    }, 60_000);

    it("keeps structured-abstract labels and reads the keyword list", () => {
      expect(found.get("rct_bmj2015_physical_activity_smoking_cessation_pregnancy.pdf")!.abstract).toMatch(
        /\n\nDesign: Parallel group, randomised controlled, multicentre trial\./,
      );
      expect(found.get("ma_wjso2019_tea_coffee_brain_cancer.pdf")!.keywords).toEqual([
        "Coffee",
        "Tea",
        "Brain cancer",
        "Glioma",
        "Meta-analysis",
      ]);
    });
  },
);

describe("detectMetadata without a usable layout or dictionary", () => {
  it("falls back to the dictionary title, then the first line of prose, then the file name", () => {
    const text = "Header\nA trial of walking in adults with hypertension\nSome more text.";
    expect(
      detectMetadata({
        text,
        firstPage: [],
        info: { title: "Walking lowers blood pressure in adults" },
        fileName: "x.pdf",
      }).title,
    ).toBe("Walking lowers blood pressure in adults");
    expect(detectMetadata({ text, firstPage: [], info: { title: "ipg1300180a" }, fileName: "x.pdf" }).title).toBe(
      "A trial of walking in adults with hypertension",
    );
    expect(detectMetadata({ text: "x", firstPage: [], info: {}, fileName: "my paper.pdf" })).toMatchObject({
      title: "my paper",
      authors: [],
      doi: null,
      abstract: null,
      studyType: "Research Article",
    });
  });

  it("joins a DOI broken across a line end, and leaves a DOI that ends a sentence alone", () => {
    const broken = detectMetadata({
      text: "Open Access Research\nTo cite: Smith J. BMJ Open 2016;6:e012335. doi:10.1136/bmjopen-2016-\n012335\nReceived 18 April 2016",
      firstPage: [],
      info: {},
      fileName: "a.pdf",
    });
    expect(broken.doi).toBe("10.1136/bmjopen-2016-012335");
    expect(joinBrokenDoi("https://doi.org/10.1186/s12957-\n019-1591-y")).toBe(
      "https://doi.org/10.1186/s12957-019-1591-y",
    );
    expect(joinBrokenDoi("doi: 10.1007/s00125-024.\n06103-w")).toBe("doi: 10.1007/s00125-024.06103-w");
    const ended = detectMetadata({
      text: "See doi:10.1000/xyz123.\nThe study enrolled 40 adults.",
      firstPage: [],
      info: {},
      fileName: "b.pdf",
    });
    expect(ended.doi).toBe("10.1000/xyz123");
  });

  it("reads authors from the dictionary and a DOI with brackets from the text", () => {
    const meta = detectMetadata({
      text: "Cite as doi:10.1016/S2213-2600(14)70195-X).",
      firstPage: [],
      info: { author: "Jane Q. Smith; John Doe and Ann Lee", creationDate: "D:20190315070838+08'00'" },
      fileName: "a.pdf",
    });
    expect(meta.authors).toEqual(["Jane Q. Smith", "John Doe", "Ann Lee"]);
    expect(meta.doi).toBe("10.1016/s2213-2600(14)70195-x");
    expect(meta.publicationDate).toBe("2019");
  });
});
