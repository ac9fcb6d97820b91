import { Cite, plugins } from "@citation-js/core";
import "@citation-js/plugin-csl";
import "@citation-js/plugin-bibtex";
import "@citation-js/plugin-ris";
import { parse as parseName } from "@citation-js/name";
import apaStyle from "./styles/apa.csl?raw";
import chicagoStyle from "./styles/chicago-author-date.csl?raw";
import mlaStyle from "./styles/modern-language-association.csl?raw";

/**
 * Citations and citation-manager exports through citation-js with the official CSL styles
 * (app/.server/citations/styles, from the CSL styles repository, CC BY-SA 3.0):
 * APA 7th edition, MLA 9th edition and Chicago 17th edition author-date (docs/decisions/0006).
 */

/** The fields of a study a citation needs (SPEC §3 Study, any subset). */
export interface CitableStudy {
  id: number | string;
  title: string;
  authors: readonly string[];
  journal?: string | null;
  publicationDate?: string | null;
  doi?: string | null;
  pmid?: string | null;
  pmcid?: string | null;
  abstract?: string | null;
  url?: string | null;
}

/** A CSL-JSON item (the subset we fill). */
export interface CslItem {
  id: string;
  type: "article-journal";
  title: string;
  author?: { family?: string; given?: string; literal?: string }[];
  "container-title"?: string;
  issued?: { "date-parts": number[][] };
  DOI?: string;
  PMID?: string;
  PMCID?: string;
  URL?: string;
  abstract?: string;
}

const STYLE_NAMES = { apa: "metamind-apa", mla: "metamind-mla", chicago: "metamind-chicago" } as const;
export type CitationStyle = keyof typeof STYLE_NAMES;

let registered = false;
function ensureStyles(): void {
  if (registered) return;
  const config = plugins.config.get("@csl") as { templates: { add(name: string, xml: string): void } };
  config.templates.add(STYLE_NAMES.apa, apaStyle);
  config.templates.add(STYLE_NAMES.mla, mlaStyle);
  config.templates.add(STYLE_NAMES.chicago, chicagoStyle);
  registered = true;
}

/**
 * One author string as stored by the providers to a CSL name:
 * "Family, Given" (comma), "Lu D" / "Smith JA" (PubMed and Europe PMC: family then 1–3
 * capital initials) and "Given [particle] Family" (Crossref, DOAJ, CORE, Semantic Scholar; parsed by
 * @citation-js/name, which knows particles such as "van"). A single word is kept as a literal.
 */
export function toCslName(raw: string): NonNullable<CslItem["author"]>[number] {
  const name = raw.trim().replace(/\s+/g, " ");
  // A group author keeps its name whole; a tail after a comma is its address ("…, Bethesda, MD").
  if (isCollectiveName(name)) return { literal: name.split(",")[0]!.trim() };
  const initials = /^(.+?) ([A-Z]{1,3})$/.exec(name);
  if (initials && !name.includes(",")) {
    return { family: initials[1], given: initials[2].split("").join(". ") + "." };
  }
  if (!name.includes(" ") && !name.includes(",")) return { literal: name };
  const parsed = parseName(name);
  if (!parsed.family) return { literal: name };
  // A particle ("van", "de") is kept as part of the family name, so every format (BibTeX, RIS,
  // the three styles) prints and re-imports the same surname.
  const particle = parsed["non-dropping-particle"] ?? parsed["dropping-particle"];
  const out: NonNullable<CslItem["author"]>[number] = {
    family: particle ? `${particle} ${parsed.family}` : parsed.family,
  };
  if (parsed.given) out.given = parsed.given;
  return out;
}

const COLLECTIVE_WORDS =
  /\b(group|groups|network|consortium|collaboration|collaborative|committee|society|association|institute|institutes|council|investigators|team|university|organization|organisation|foundation|federation|department|centre|center|program|programme|initiative|task force|working party|study)\b/i;

/**
 * True for a group author ("RECOVERY Collaborative Group", "Eunice Kennedy Shriver National
 * Institute …"): a name (before any comma) with a collective word or more than five words, kept
 * whole as a literal.
 */
export function isCollectiveName(name: string): boolean {
  // "Family, Given" is judged by the part before the comma ("… Units Network, Bethesda" is a group).
  const head = name.split(",")[0]!.trim();
  return COLLECTIVE_WORDS.test(head) || head.split(" ").length > 5;
}

/** "2021-03-04", "2021-03", "2021" or text starting with a year → CSL date parts; else undefined. */
export function toDateParts(date: string | null | undefined): number[] | undefined {
  if (!date) return undefined;
  const m = /^(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?/.exec(date.trim());
  if (!m) return undefined;
  const parts = [Number(m[1])];
  if (m[2] && Number(m[2]) >= 1 && Number(m[2]) <= 12) {
    parts.push(Number(m[2]));
    if (m[3] && Number(m[3]) >= 1 && Number(m[3]) <= 31) parts.push(Number(m[3]));
  }
  return parts;
}

/** Whitespace (newlines included) collapsed to single spaces, trimmed. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A study as a CSL-JSON journal article (the item every format below is produced from). */
export function toCslItem(study: CitableStudy): CslItem {
  const item: CslItem = { id: `metamind-${study.id}`, type: "article-journal", title: oneLine(study.title) };
  const authors = study.authors.map((a) => a.trim()).filter(Boolean);
  if (authors.length) item.author = authors.map(toCslName);
  if (study.journal?.trim()) item["container-title"] = oneLine(study.journal);
  const parts = toDateParts(study.publicationDate);
  if (parts) item.issued = { "date-parts": [parts] };
  if (study.doi?.trim()) item.DOI = study.doi.trim();
  if (study.pmid?.trim()) item.PMID = study.pmid.trim();
  if (study.pmcid?.trim()) item.PMCID = study.pmcid.trim();
  if (study.url?.trim()) item.URL = study.url.trim();
  if (study.abstract?.trim()) item.abstract = oneLine(study.abstract);
  return item;
}

/** One formatted bibliography entry (plain text, no trailing newline) in the given style. */
export function formatCitation(item: CslItem, style: CitationStyle): string {
  ensureStyles();
  return new Cite(item).format("bibliography", { format: "text", template: STYLE_NAMES[style], lang: "en-US" }).trim();
}

/** SPEC §3 Citations: {apa, mla, chicago} for one study. */
export function citationsFor(study: CitableStudy): { apa: string; mla: string; chicago: string } {
  const item = toCslItem(study);
  return {
    apa: formatCitation(item, "apa"),
    mla: formatCitation(item, "mla"),
    chicago: formatCitation(item, "chicago"),
  };
}

/**
 * citation-js hard-wraps RIS values at 70 characters (inserting a bare newline, even inside a
 * word). Reference managers read such a continuation line as a new paragraph or drop it, so the
 * wraps are undone: a line that does not start with a tag is joined to the line before it.
 * Values never contain newlines of their own (see {@link toCslItem}), so the join is exact.
 */
export function unwrapRis(ris: string): string {
  const out: string[] = [];
  for (const line of ris.split("\n")) {
    if (out.length && line !== "" && !/^[A-Z][A-Z0-9] {2}-( |$)/.test(line)) out[out.length - 1] += line;
    else out.push(line);
  }
  return out.join("\n");
}

/** RIS (JOUR records) for CSL items, one line per value, as Zotero, EndNote and Mendeley import it. */
export function formatRis(items: readonly object[]): string {
  return unwrapRis(new Cite(items).format("ris", { format: "text" }));
}
