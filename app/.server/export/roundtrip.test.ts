import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Cite, plugins } from "@citation-js/core";
import "@citation-js/plugin-bibtex";
import "@citation-js/plugin-csl";
import "@citation-js/plugin-ris";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { hasSharedFixtures, MISSING_FIXTURES_MESSAGE, readFixture, readJsonFixture } from "../../../tests/fixtures";
import { citationsFor, toCslName } from "../citations/csl";
import { normaliseCrossrefWorks } from "../search/providers/crossref";
import { normaliseEuropePmcSearch } from "../search/providers/europepmc";
import { normalisePubmedXml } from "../search/providers/pubmed";
import type { NormalisedStudy } from "../search/types";
import { toBibtexExport, toCsv, toRisExport } from "./formats";
import type { ExportOptions, ExportStudy } from "./types";

/**
 * Round trips of our exports through an independent reader (citation-js's BibTeX and RIS
 * parsers, papaparse) and our citations against citation-js with the official CSL files read
 * straight from disk, for real records from ../shared/fixtures/providers.
 */

/** The CSL fields read back from a parsed BibTeX/RIS record. */
interface CslOut {
  title?: string;
  author?: { family?: string; literal?: string; "non-dropping-particle"?: string }[];
  issued: { "date-parts": number[][] };
  DOI: string;
  "container-title"?: string;
}

const ALL: ExportOptions = {
  includeMetadata: true,
  includeAbstracts: true,
  includeSummaries: true,
  includeCitations: true,
};

function toExportStudy(s: NormalisedStudy, id: number): ExportStudy {
  return { ...s, id, aiSummary: "Summary: effect 0.42 (95% CI 0.1–0.7)." };
}

function records(): ExportStudy[] {
  const crossref = normaliseCrossrefWorks(
    readJsonFixture("crossref/search_query-ecology_rows30_cursor-page1.json"),
  ).studies;
  const epmc = normaliseEuropePmcSearch(readJsonFixture("europepmc/search_core_COVID-19_pageSize25.json")).studies;
  const pubmed = [
    "pubmed/efetch_pubmed_11748933_11700088.xml",
    "pubmed/efetch_pubmed_22351513_POST.xml",
    "pubmed/efetch_pubmed_23121403_POST.xml",
    "pubmed/efetch_pubmed_29915538_POST.xml",
    "pubmed/efetch_pubmed_29963580_mathml-in-abstract.xml",
  ].flatMap((f) => normalisePubmedXml(readFixture(f)).studies);
  return [...crossref, ...epmc, ...pubmed]
    .filter((s) => s.title && s.authors.length > 0 && s.publicationDate)
    .slice(0, 40)
    .map(toExportStudy);
}

/** Family names as the export wrote them (our CSL names), for comparison with the re-import. */
const families = (s: ExportStudy) =>
  s.authors.map((a) => {
    const n = toCslName(a);
    return n.family ?? n.literal;
  });
/** A re-imported name's surname: BibTeX reads "de Freitas, A." as particle "de" + family "Freitas". */
const surname = (a: { family?: string; literal?: string; "non-dropping-particle"?: string }) =>
  a.family ? [a["non-dropping-particle"], a.family].filter(Boolean).join(" ") : a.literal;
const year = (s: ExportStudy) => Number(s.publicationDate!.slice(0, 4));
const norm = (t: string | undefined) => (t ?? "").replace(/[{}]/g, "").replace(/\s+/g, " ").trim().toLowerCase();

describe.skipIf(!hasSharedFixtures())(
  `export round trips (${hasSharedFixtures() ? "real records" : MISSING_FIXTURES_MESSAGE})`,
  () => {
    const studies = hasSharedFixtures() ? records() : [];

    it("has real records from three providers to test with", () => {
      expect(studies.length).toBeGreaterThanOrEqual(20);
    });

    it("BibTeX re-parsed by citation-js gives back title, authors, year, DOI and journal", () => {
      const bib = toBibtexExport(studies, ALL);
      const parsed = new Cite(bib).data as unknown as CslOut[];
      expect(parsed).toHaveLength(studies.length);
      parsed.forEach((item, i) => {
        const s = studies[i];
        expect(norm(item.title)).toBe(norm(s.title));
        expect((item.author ?? []).map(surname)).toEqual(families(s));
        expect(item.issued["date-parts"][0][0]).toBe(year(s));
        if (s.doi) expect(item.DOI.toLowerCase()).toBe(s.doi.toLowerCase());
        if (s.journal) expect(norm(item["container-title"])).toBe(norm(s.journal));
      });
    });

    it("RIS re-parsed by citation-js gives back title, authors, year, DOI and journal", () => {
      const ris = toRisExport(studies, ALL);
      expect(ris.match(/^TY {2}- JOUR/gm)).toHaveLength(studies.length);
      const parsed = new Cite(ris).data as unknown as CslOut[];
      expect(parsed).toHaveLength(studies.length);
      parsed.forEach((item, i) => {
        const s = studies[i];
        expect(norm(item.title)).toBe(norm(s.title));
        expect((item.author ?? []).map(surname)).toEqual(families(s));
        expect(item.issued["date-parts"][0][0]).toBe(year(s));
        if (s.doi) expect(item.DOI.toLowerCase()).toBe(s.doi.toLowerCase());
        if (s.journal) expect(norm(item["container-title"])).toBe(norm(s.journal));
      });
    });

    it("CSV parsed by papaparse gives back every record and field", () => {
      const parsed = Papa.parse<Record<string, string>>(toCsv(studies, ALL), { header: true, skipEmptyLines: true });
      expect(parsed.errors).toEqual([]);
      expect(parsed.data).toHaveLength(studies.length);
      parsed.data.forEach((row, i) => {
        const s = studies[i];
        const unescape = (v: string) => (/^'[=+\-@\t\r]/.test(v) ? v.slice(1) : v);
        expect(unescape(row.title)).toBe(s.title);
        expect(row.authors).toBe(s.authors.join("; "));
        expect(row.doi).toBe(s.doi ?? "");
        expect(unescape(row.abstract)).toBe(s.abstract ?? "");
        expect(row.aiSummary).toBe(s.aiSummary);
        expect(row.citation).toBe(citationsFor(s).apa);
      });
    });

    it("APA, MLA and Chicago equal citation-js with the official CSL files for structured Crossref records", () => {
      const raw = readJsonFixture("crossref/search_query-ecology_rows30_cursor-page1.json") as {
        message: {
          items: {
            DOI: string;
            title?: string[];
            author?: { given?: string; family?: string }[];
            "container-title"?: string[];
            issued?: { "date-parts": number[][] };
          }[];
        };
      };
      const dir = fileURLToPath(new URL("../citations/styles/", import.meta.url));
      const config = plugins.config.get("@csl") as { templates: { add(name: string, xml: string): void } };
      config.templates.add("official-apa", readFileSync(`${dir}apa.csl`, "utf8"));
      config.templates.add("official-mla", readFileSync(`${dir}modern-language-association.csl`, "utf8"));
      config.templates.add("official-chicago", readFileSync(`${dir}chicago-author-date.csl`, "utf8"));
      // Providers give display names ("Shaila Seshia Galvin"); a multi-word surname cannot be told
      // from a middle name in such a string, so records with one are left out of this comparison.
      const items = raw.message.items.filter(
        (it) =>
          it.title?.[0] &&
          it.author?.length &&
          it.author.every((a) => a.family && a.given && !a.family.includes(" ")) &&
          it.issued?.["date-parts"]?.[0]?.[0],
      );
      expect(items.length).toBeGreaterThanOrEqual(5);
      const ours = normaliseCrossrefWorks(raw).studies;
      for (const it of items) {
        const study = ours.find((s) => s.doi === it.DOI.toLowerCase())!;
        // The reference item comes straight from Crossref's structured fields, not from our normaliser.
        const reference = {
          id: "ref",
          type: "article-journal",
          title: study.title,
          author: it.author!.map((a) => ({ family: a.family, given: a.given })),
          "container-title": study.journal ?? undefined,
          issued: { "date-parts": [study.publicationDate!.split("-").map(Number)] },
          DOI: study.doi!,
        };
        const expected = (style: string) =>
          new Cite(reference).format("bibliography", { format: "text", template: style, lang: "en-US" }).trim();
        const got = citationsFor({ ...study, id: 1 });
        expect(got.apa).toBe(expected("official-apa"));
        expect(got.mla).toBe(expected("official-mla"));
        expect(got.chicago).toBe(expected("official-chicago"));
      }
    });
  },
);
