import Papa from "papaparse";
import { Cite } from "@citation-js/core";
import { citationsFor, formatRis, toCslItem, type CitableStudy } from "../citations/csl";
import { sanitizeReportHtml } from "../library/sanitize";
import type { ExportOptions, ExportStudy } from "./types";
import { withUserHtmlCsp } from "~/lib/user-html";

/**
 * The rows of an export: bibliographic fields always; identifiers and provenance with
 * includeMetadata; the abstract with includeAbstracts; the AI summary with includeSummaries; the
 * APA citation with includeCitations. Absent values are empty strings (CSV) or omitted (JSON).
 */
export function exportRecord(study: ExportStudy, options: ExportOptions): Record<string, string | number | string[]> {
  const out: Record<string, string | number | string[]> = {
    title: study.title,
    authors: study.authors,
    journal: study.journal ?? "",
    publicationDate: study.publicationDate ?? "",
  };
  if (options.includeMetadata) {
    out.doi = study.doi ?? "";
    out.pmid = study.pmid ?? "";
    out.source = study.source ?? "";
    out.studyType = study.studyType ?? "";
    out.citationCount = study.citationCount ?? "";
    out.impactFactor = study.impactFactor ?? "";
    out.url = study.url ?? (study.doi ? `https://doi.org/${study.doi}` : "");
    out.openAccessUrl = study.openAccessUrl ?? "";
  }
  if (options.includeAbstracts) out.abstract = study.abstract ?? "";
  if (options.includeSummaries) out.aiSummary = study.aiSummary ?? "";
  if (options.includeCitations) out.citation = citationsFor(toCitable(study)).apa;
  return out;
}

/** The fields citation-js needs, from an export study. */
export function toCitable(study: ExportStudy, withAbstract = false): CitableStudy {
  return {
    id: study.id,
    title: study.title,
    authors: study.authors,
    journal: study.journal,
    publicationDate: study.publicationDate,
    doi: study.doi,
    pmid: study.pmid,
    pmcid: study.pmcid,
    url: study.url,
    abstract: withAbstract ? study.abstract : null,
  };
}

/**
 * CSV via papaparse: one header row, every field quoted, authors joined with "; ", and cells
 * starting with = + - @ prefixed with ' (spreadsheet formula injection).
 */
export function toCsv(studies: readonly ExportStudy[], options: ExportOptions): string {
  const rows = studies.map((s) => {
    const r = exportRecord(s, options);
    return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Array.isArray(v) ? v.join("; ") : v]));
  });
  return Papa.unparse(rows, { quotes: true, escapeFormulae: true, newline: "\r\n" });
}

/** JSON: {exportedAt, count, options, studies}. */
export function toJson(studies: readonly ExportStudy[], options: ExportOptions, now: Date): string {
  return JSON.stringify(
    {
      exportedAt: now.toISOString(),
      count: studies.length,
      options,
      studies: studies.map((s) => exportRecord(s, options)),
    },
    null,
    2,
  );
}

function esc(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Display labels of exported study fields (HTML and PDF exports). */
export const FIELD_LABELS: Record<string, string> = {
  doi: "DOI",
  pmid: "PMID",
  source: "Database",
  studyType: "Study type",
  citationCount: "Citations",
  impactFactor: "Impact factor",
  url: "Link",
  openAccessUrl: "Open-access copy",
  abstract: "Abstract",
  aiSummary: "AI summary",
  citation: "Citation (APA)",
};

/** A self-contained HTML document of the studies, escaped and then sanitized (report allow-list). */
export function toHtml(studies: readonly ExportStudy[], options: ExportOptions, now: Date): string {
  const items = studies
    .map((s) => {
      const r = exportRecord(s, options);
      const head = [r.journal, r.publicationDate].filter(Boolean).map(String).map(esc).join(" · ");
      const fields = Object.entries(r)
        .filter(([k, v]) => !["title", "authors", "journal", "publicationDate"].includes(k) && v !== "")
        .map(([k, v]) => {
          const value = String(v);
          const body = /^https?:\/\//.test(value) ? `<a href="${esc(value)}">${esc(value)}</a>` : esc(value);
          return `<dt>${esc(FIELD_LABELS[k] ?? k)}</dt><dd>${body}</dd>`;
        })
        .join("");
      return `<article><h2>${esc(s.title)}</h2><p class="authors">${esc(s.authors.join(", "))}</p>${head ? `<p class="meta">${head}</p>` : ""}<dl>${fields}</dl></article>`;
    })
    .join("\n");
  const html = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>MetaMind study export</title><style>
body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#0f172a;line-height:1.5}
article{border-bottom:1px solid #e2e8f0;padding:1rem 0}h2{font-size:1.1rem;margin:0 0 .25rem}
.authors{margin:0;color:#334155}.meta{margin:0;color:#64748b;font-size:.9rem}dt{font-weight:600;margin-top:.5rem}dd{margin:0;white-space:pre-line}
@page{size:A4;margin:0.75in}</style></head><body><h1>MetaMind study export</h1><p>${studies.length} studies · exported ${esc(now.toISOString().slice(0, 10))}</p>
${items}</body></html>`;
  return withUserHtmlCsp(sanitizeReportHtml(html));
}

/**
 * CSL items for BibTeX/RIS: abstracts with includeAbstracts and the AI summary as a note with
 * includeSummaries (metadata such as DOI and PMID is always kept: reference managers need it).
 */
function cslItems(studies: readonly ExportStudy[], options: ExportOptions) {
  return studies.map((s) => {
    const item: Record<string, unknown> = { ...toCslItem(toCitable(s, options.includeAbstracts)) };
    if (options.includeSummaries && s.aiSummary) item.note = `AI summary: ${s.aiSummary.replace(/\s+/g, " ").trim()}`;
    return item;
  });
}

/** BibTeX via citation-js (one @article per study). */
export function toBibtexExport(studies: readonly ExportStudy[], options: ExportOptions): string {
  return new Cite(cslItems(studies, options)).format("bibtex", { format: "text" });
}

/** RIS via citation-js (TY JOUR records). */
export function toRisExport(studies: readonly ExportStudy[], options: ExportOptions): string {
  return formatRis(cslItems(studies, options));
}
