import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hasSharedFixtures, MISSING_FIXTURES_MESSAGE, readFixture, SHARED_FIXTURES_DIR } from "../../../tests/fixtures";
import { normalisePubmedXml } from "../search/providers/pubmed";
import type { NormalisedStudy } from "../search/types";
import {
  detectFormat,
  ImportParseError,
  NO_TITLE,
  parseCsv,
  parseReferenceFile,
  parseRis,
  type ImportedRecord,
} from "./parse";

/** PubMed records from the shared efetch recordings (real XML), read at test time. */
function pubmedStudies(): NormalisedStudy[] {
  const files = readdirSync(`${SHARED_FIXTURES_DIR}/pubmed`).filter(
    (f) => f.startsWith("efetch_") && f.endsWith(".xml"),
  );
  const seen = new Set<string>();
  return files
    .flatMap((f) => normalisePubmedXml(readFixture(`pubmed/${f}`)).studies)
    .filter((s) => !seen.has(s.sourceId) && seen.add(s.sourceId));
}

const surname = (display: string) => display.split(" ").slice(0, -1).join(" ") || display;
const initials = (display: string) => display.split(" ").at(-1) ?? "";
const year = (s: NormalisedStudy) => (s.publicationDate ? Number(s.publicationDate.slice(0, 4)) : null);

/** MEDLINE display lines: a tag padded to 4, "- ", the value wrapped at 80 columns with 6-space continuations. */
function medline(tag: string, value: string): string {
  const words = value.split(/\s+/);
  const lines: string[] = [];
  let line = `${tag.padEnd(4)}- `;
  for (const w of words) {
    if (line.length + w.length + 1 > 80 && line.trim().length > 6) {
      lines.push(line.trimEnd());
      line = "      ";
    }
    line += `${w} `;
  }
  lines.push(line.trimEnd());
  return lines.join("\n");
}

/** As PubMed's "Send to → Citation manager" (.nbib) writes it. */
function toNbib(studies: NormalisedStudy[]): string {
  return studies
    .map((s) =>
      [
        `PMID- ${s.pmid}`,
        "OWN - NLM",
        medline("TI", s.title),
        s.abstract ? medline("AB", s.abstract) : null,
        ...s.authors.flatMap((a) => [`FAU - ${surname(a)}, ${initials(a)}`, `AU  - ${a}`]),
        s.publicationDate ? `DP  - ${s.publicationDate.slice(0, 4)} Jan` : null,
        s.journal ? medline("JT", s.journal) : null,
        s.doi ? `LID - ${s.doi} [doi]` : null,
        s.doi ? `AID - ${s.doi} [doi]` : null,
        "SO  - source line",
      ]
        .filter((l) => l !== null)
        .join("\n"),
    )
    .join("\n\n");
}

/** As EndNote / Zotero write RIS. */
function toRis(studies: NormalisedStudy[]): string {
  return studies
    .map((s) =>
      [
        "TY  - JOUR",
        `TI  - ${s.title}`,
        ...s.authors.map((a) => `AU  - ${surname(a)}, ${initials(a)}`),
        s.publicationDate ? `PY  - ${s.publicationDate.slice(0, 4)}` : null,
        s.journal ? `T2  - ${s.journal}` : null,
        s.abstract ? `AB  - ${s.abstract}` : null,
        s.doi ? `DO  - ${s.doi}` : null,
        s.pmid ? `AN  - ${s.pmid}` : null,
        s.pmid ? `UR  - https://pubmed.ncbi.nlm.nih.gov/${s.pmid}/` : null,
        "ER  - ",
      ]
        .filter((l) => l !== null)
        .join("\r\n"),
    )
    .join("\r\n\r\n");
}

const tex = (v: string) => v.replace(/([\\{}&%$#_])/g, "\\$1").replace(/~/g, "\\textasciitilde{}");

/** As Zotero's Better BibTeX exports. */
function toBibtex(studies: NormalisedStudy[]): string {
  return studies
    .map((s, i) =>
      [
        `@article{ref${i},`,
        `  title = {${tex(s.title)}},`,
        `  author = {${s.authors.map((a) => `${tex(surname(a))}, ${tex(initials(a))}`).join(" and ")}},`,
        s.publicationDate ? `  year = {${s.publicationDate.slice(0, 4)}},` : null,
        s.journal ? `  journal = {${tex(s.journal)}},` : null,
        s.doi ? `  doi = {${s.doi}},` : null,
        s.pmid ? `  pmid = {${s.pmid}},` : null,
        s.abstract ? `  abstract = {${tex(s.abstract)}},` : null,
        "}",
      ]
        .filter((l) => l !== null)
        .join("\n"),
    )
    .join("\n\n");
}

const squash = (v: string | null | undefined) => (v ?? "").replace(/\s+/g, " ").trim();

function expectRoundTrip(studies: NormalisedStudy[], parsed: ImportedRecord[]) {
  expect(parsed).toHaveLength(studies.length);
  studies.forEach((s, i) => {
    const p = parsed[i]!;
    expect(squash(p.title)).toBe(squash(s.title));
    expect(squash(p.abstract)).toBe(squash(s.abstract));
    expect(p.year).toBe(year(s));
    expect(p.doi).toBe(s.doi);
    expect(squash(p.journal)).toBe(squash(s.journal));
    expect(p.authors.map((a) => a.split(",")[0]!.trim())).toEqual(s.authors.map(surname));
  });
}

describe.skipIf(!hasSharedFixtures())("import round trips on PubMed records", () => {
  it("NBIB (PubMed format) keeps title, authors, year, DOI, abstract, journal and PMID", () => {
    const studies = pubmedStudies();
    expect(studies.length).toBeGreaterThanOrEqual(5);
    const parsed = parseReferenceFile("nbib", toNbib(studies));
    expectRoundTrip(studies, parsed);
    expect(parsed.map((p) => p.pmid)).toEqual(studies.map((s) => s.pmid));
  });

  it("RIS (EndNote/Zotero) keeps the same fields and the PMID", () => {
    const studies = pubmedStudies();
    const parsed = parseReferenceFile("ris", toRis(studies));
    expectRoundTrip(studies, parsed);
    expect(parsed.map((p) => p.pmid)).toEqual(studies.map((s) => s.pmid));
  });

  it("BibTeX (Zotero) keeps the same fields", () => {
    const studies = pubmedStudies();
    expectRoundTrip(studies, parseReferenceFile("bibtex", toBibtex(studies)));
  });
});
if (!hasSharedFixtures()) it.skip(MISSING_FIXTURES_MESSAGE, () => {});

describe("reference file parsing", () => {
  it("detects formats from the extension, the format field and RIS content in .txt", () => {
    expect(detectFormat("a.RIS", null, "")).toBe("ris");
    expect(detectFormat("pubmed-export.nbib", null, "PMID- 1")).toBe("nbib");
    expect(detectFormat("pubmed.txt", null, "PMID- 1")).toBe("nbib");
    expect(detectFormat("endnote.txt", null, "TY  - JOUR")).toBe("ris");
    expect(detectFormat("x.bib", null, "")).toBe("bibtex");
    expect(detectFormat("rayyan.csv", null, "")).toBe("csv");
    expect(detectFormat("x.dat", "medline", "")).toBe("nbib");
    expect(detectFormat("x.dat", null, "")).toBeNull();
    expect(detectFormat("x.ris", "docx", "")).toBeNull();
  });

  it("reads Covidence and Rayyan CSV columns", () => {
    const covidence = parseCsv(
      'Title,Authors,Abstract,Published Year,Journal,DOI,Accession Number\n"Trial A","Smith J, Doe A","Abs A",2019,Lancet,https://doi.org/10.1000/ABC,31234567\n',
    );
    expect(covidence[0]).toMatchObject({
      title: "Trial A",
      authors: ["Smith J", "Doe A"],
      year: 2019,
      journal: "Lancet",
      doi: "10.1000/abc",
      pmid: "31234567",
    });
    const rayyan = parseCsv(
      'key,title,authors,journal,year,pubmed_id,abstract,doi\n1,"Trial B","Lee, K and Kim, H",BMJ,2021,,"Abs B",\n',
    );
    expect(rayyan[0]).toMatchObject({
      title: "Trial B",
      authors: ["Lee, K", "Kim, H"],
      year: 2021,
      journal: "BMJ",
      pmid: null,
      doi: null,
    });
  });

  it.each([
    ["ris", "TY  - JOUR\nTI  - ok\nER  - \nAU  - outside\n", 4],
    ["ris", "hello\n", 1],
    ["ris", "TY  - JOUR\nTI  - no end\n", 3],
    ["ris", "TY  - JOUR\nTI  - a\nTY  - JOUR\nER  - \n", 3],
    ["nbib", "PMID- 1\nTI  - fine\n\n      stray continuation\n", 4],
    ["nbib", "PMID- 1\nTI  - fine\nnot a tag line\n", 3],
    ["csv", "name,abstract\nx,y\n", 1],
    ["csv", 'title,abstract\nok,1\n"unclosed,2\n', 3],
    ["bibtex", "@article{a, title={x}}\n\n@article{b,\n  title = {broken\n", 5],
  ] as const)("%s: a malformed file names line %s", (format, text, line) => {
    let error: unknown;
    try {
      parseReferenceFile(format, text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ImportParseError);
    expect((error as ImportParseError).line).toBe(line);
    expect((error as ImportParseError).message).toMatch(/^Line \d+: /);
  });
});

describe("records without a title (issue 27)", () => {
  it.each([
    [
      "ris",
      "TY  - JOUR\nTI  - First\nER  - \n\nTY  - JOUR\nAU  - Smith, J\nDO  - 10.1000/untitled\nER  - \n\nTY  - JOUR\nTI  - Third\nER  - \n",
      5,
    ],
    ["nbib", "PMID- 1\nTI  - First\n\nPMID- 2\nAB  - an abstract without a title\n\nPMID- 3\nTI  - Third\n", 4],
    ["bibtex", "@article{a, title={First}}\n\n@article{b,\n  year = {2020}\n}\n@article{c, title={Third}}\n", 3],
    ["csv", 'title,abstract\nFirst,"a\nwrapped abstract"\n,no title here\nThird,x\n', 4],
  ] as const)("%s: the untitled record is read as '[No title]' with a warning at line %s", (format, text, line) => {
    const warnings: { line: number; message: string }[] = [];
    const records = parseReferenceFile(format, text, warnings);
    expect(records.map((r) => r.title)).toEqual(["First", NO_TITLE, "Third"]);
    expect(warnings).toEqual([{ line, message: expect.stringMatching(/no title; imported as '\[No title\]'/) }]);
  });

  it("keeps the untitled record's identifiers (de-duplication can still use them)", () => {
    const [, untitled] = parseRis(
      "TY  - JOUR\nTI  - First\nER  - \nTY  - JOUR\nDO  - https://doi.org/10.1000/ABC\nAN  - 123456\nER  - \n",
    );
    expect(untitled).toMatchObject({ title: NO_TITLE, doi: "10.1000/abc", pmid: "123456" });
  });

  it("CSV: a row with too few or too many fields is read with a warning, not refused", () => {
    const warnings: { line: number; message: string }[] = [];
    const records = parseCsv("title,abstract,doi\nA,x,10.1000/a\n\nB only\nC,y,10.1000/c,extra\n", warnings);
    expect(records.map((r) => [r.title, r.doi])).toEqual([
      ["A", "10.1000/a"],
      ["B only", null],
      ["C", "10.1000/c"],
    ]);
    expect(warnings.map((w) => w.line)).toEqual([4, 5]);
    expect(warnings[0]!.message).toMatch(/Too few fields/);
  });

  it("CSV: a header without rows or without a title column still refuses the file", () => {
    expect(() => parseCsv("title,abstract\n")).toThrow(/Line 2: no records/);
    expect(() => parseCsv("name,abstract\nx,y\n")).toThrow(/Line 1: .*no 'title' column/);
  });
});
