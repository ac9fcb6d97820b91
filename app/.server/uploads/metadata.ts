/**
 * Bibliographic metadata of an uploaded paper (SPEC §3 Uploaded study: title, authors, journal,
 * publicationDate, abstract, keywords, studyType; plus the DOI), detected from the text PDF.js
 * extracted, the first page's layout (font sizes) and the PDF information dictionary.
 *
 * Rules, in order of trust:
 * - title: the largest type on page 1 that reads as a title (at least 4 words, not a journal
 *   logo), minus a leading article-type label ("Research Article", "Articles", "Review"…); else
 *   the information dictionary's Title when it reads as one; else the first line of prose; else
 *   the file name without ".pdf".
 * - authors: the name list printed right after the title (affiliation digits, *, †, ‡ removed;
 *   separated by commas, "·", ";" or "and"); else the dictionary's Author split the same way.
 * - DOI: the dictionary's custom "doi" entry, else the first "10.nnnn/…" in the first 6,000
 *   characters of text (joined when a line end breaks it), else one in the Subject.
 * - journal: the dictionary's Subject when it is a short name ("Diabetologia, https://doi…" →
 *   "Diabetologia"); else "a section of the journal X"; else a citation line at the top of the
 *   text ("International Psychogeriatrics (2014), 26:1" / "BMJ 2015;350:h2145").
 * - publicationDate: "Published[ online]: 12 November 2018" → "2018-11-12"; else the year of the
 *   citation line; else "© … 2013"; else the dictionary's CreationDate year.
 * - abstract: the paper's Abstract/Summary section (structured labels kept as "Label: text"),
 *   else the first long paragraph starting with an abstract label ("Objectives.", "Background:");
 *   at most 4,000 characters.
 * - studyType: classifyStudyType on the title, then on the abstract when the title says nothing.
 */
import { detectSections, isAbstractLabel, prepareFullText } from "../fulltext/prepare-text";
import type { PdfInfo, PdfTextRun } from "../fulltext/fetch";
import { classifyStudyType, normaliseDoi } from "~/lib/search/normalize";
import type { StudyType } from "../search/types";

/** What {@link detectMetadata} finds. Absent facts are null (lists empty). */
export interface DetectedMetadata {
  title: string;
  authors: string[];
  doi: string | null;
  journal: string | null;
  /** "YYYY-MM-DD" or "YYYY". */
  publicationDate: string | null;
  abstract: string | null;
  keywords: string[];
  studyType: StudyType;
}

/** Longest abstract kept, in characters (cut at a sentence end). */
export const MAX_ABSTRACT_CHARS = 4000;

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** Normalises typographic hyphens and spaces so text from different sources compares. */
function clean(text: string): string {
  return text
    .replace(/[\u2010\u2011\u2012\u2013]/g, "-")
    .replace(/\u00ad/g, "")
    .replace(/[\s\u00a0]+/g, " ")
    .trim();
}

const ARTICLE_LABEL =
  /^(?:original\s+(?:research\s+)?article|research\s+article|research\s+paper|articles?|original\s+research|research|review\s+article|systematic\s+review|review|report|brief\s+report|short\s+communication|clinical\s+trial|meta-analysis|open\s+access|r\s?e\s?s\s?e\s?a\s?r\s?c\s?h)\b[\s:|-]*/i;

/** Drops leading article-type labels ("Research Article Patient …" → "Patient …"). */
function stripArticleLabels(title: string): string {
  let t = title;
  for (let i = 0; i < 3; i++) {
    const m = ARTICLE_LABEL.exec(t);
    if (!m || t.length - m[0].length < 15) break;
    t = t.slice(m[0].length);
  }
  return t.trim();
}

const words = (s: string) => s.split(/\s+/).filter((w) => /\p{L}/u.test(w));

/** Whether a string reads like a paper title (not a file name, logo or code). */
function readsAsTitle(s: string | undefined | null): s is string {
  if (!s) return false;
  const t = clean(s);
  if (t.length < 15 || t.length > 400) return false;
  if (/\.(?:pdf|docx?|txt|tex|dvi|indd)$/i.test(t) || /^[\w-]+\d[\w-]*$/.test(t)) return false;
  return words(t).length >= 4;
}

/** The title set in the largest type on page 1. */
function titleFromLayout(runs: readonly PdfTextRun[]): string | null {
  const sizes = [...new Set(runs.map((r) => r.fontSize))].sort((a, b) => b - a);
  for (const size of sizes.slice(0, 3)) {
    const text = stripArticleLabels(
      clean(
        runs
          .filter((r) => r.fontSize === size)
          .map((r) => r.text)
          .join(" "),
      ),
    );
    if (readsAsTitle(text) && text.length <= 400) return text;
  }
  return null;
}

function firstProseLine(text: string): string | null {
  for (const line of text.split("\n").slice(0, 60)) {
    const l = clean(line);
    if (readsAsTitle(l) && !/https?:|doi|©|copyright|\d{4};/i.test(l)) return l;
  }
  return null;
}

/** A regex matching the title's words in the raw text across line breaks and hyphen variants. */
function titlePattern(title: string): RegExp {
  const parts = title
    .split(/\s+/)
    .slice(0, 30)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/-/g, "[-\u2010\u2011\u2012\u2013]"));
  return new RegExp(parts.join("\\s*"), "gi");
}

/** Whether a piece of an author line is a person's name ("Chun-De Liao", "Adam WA Geraghty", "Nuala E. Tully"). */
function isName(piece: string): boolean {
  const ws = piece.split(/\s+/).filter(Boolean);
  if (ws.length < 2 || ws.length > 5) return false;
  return ws.every((w) => /^(?:\p{Lu}[\p{L}'’-]*\.?|\p{Lu}{1,3}|(?:van|von|de|der|da|di|del|la|le)\b)$/u.test(w));
}

/** Splits an author line into names, dropping affiliation markers; null when it is not one. */
function parseAuthorLine(line: string): string[] | null {
  const stripped = clean(line)
    .replace(/\{et al\.?\}|\bet al\.?/g, "")
    // Detached affiliation markers ("Liao 1,2,† ,", "Luo 1,"), then attached ones ("Song1*",
    // "Sundström,1 Michael").
    .replace(/\s[\d*†‡§¶#]+(?:,[\d*†‡§¶#]+)*(?=[\s,]|$)/g, "")
    .replace(/(\p{L})[\d*†‡§¶#]+(?:,[\d*†‡§¶#]+)*/gu, "$1")
    .replace(/,[\d*†‡§¶#]+(?:,[\d*†‡§¶#]+)*(?=\s)/g, ",");
  const pieces = stripped
    .split(/\s*(?:,|·|;|\band\b|&)\s*/)
    .map((p) => p.replace(/[*†‡§¶#]/g, "").trim())
    .filter(Boolean);
  if (pieces.length === 0) return null;
  const names = pieces.filter(isName);
  return names.length >= Math.max(1, Math.ceil(pieces.length * 0.8)) ? names : null;
}

function authorsAfterTitle(text: string, title: string): string[] {
  const head = text.slice(0, 20_000);
  for (const m of head.matchAll(titlePattern(title))) {
    const rest = head
      .slice(m.index + m[0].length)
      .split("\n")
      .slice(1, 8);
    const names: string[] = [];
    for (const line of rest) {
      if (!/\p{L}/u.test(line)) continue;
      const parsed = parseAuthorLine(line);
      if (!parsed) break;
      names.push(...parsed);
    }
    if (names.length > 0) return names;
  }
  return [];
}

function authorsFromInfo(author: string | undefined): string[] {
  if (!author) return [];
  return author
    .replace(/\{et al\.?\}|\bet al\.?/g, "")
    .split(/\s*(?:,|;|\band\b|&)\s*/)
    .map((a) => clean(a.replace(/^(?:dr|prof)\.?\s+/i, "").replace(/\s+(?:phd|md|msc|bsc)$/i, "")))
    .filter((a) => isName(a));
}

const DOI_RE = /\b(10\.\d{4,9}\/[^\s"'<>|]+)/i;

/**
 * A DOI broken across a line end is joined: the line ends inside the DOI with "-", "/", "_" or
 * "." and the next line goes on with DOI characters ("10.1136/bmjopen-2016-" + "\n012335"). A
 * line ending in "." joins only a next line that starts with a digit or a lower-case letter, so a
 * DOI that ends a sentence is not glued to the next one.
 */
export function joinBrokenDoi(text: string): string {
  return text.replace(
    /(\b10\.\d{4,9}\/[^\s"'<>|]*)(?:([-/_])[ \t]*\r?\n[ \t]*(?=[\w(])|(\.)[ \t]*\r?\n[ \t]*(?=[0-9a-z]))/g,
    (_m, head: string, sep?: string, dot?: string) => `${head}${sep ?? dot ?? ""}`,
  );
}

/** A DOI from text (joined across a line end, see {@link joinBrokenDoi}), trailing punctuation and unbalanced closing brackets removed. */
function doiIn(text: string | undefined): string | null {
  const m = text ? DOI_RE.exec(joinBrokenDoi(text)) : null;
  if (!m) return null;
  let doi = m[1]!.replace(/[.,;:]+$/, "");
  while (doi.endsWith(")") && (doi.match(/\(/g)?.length ?? 0) < (doi.match(/\)/g)?.length ?? 0)) doi = doi.slice(0, -1);
  return normaliseDoi(doi);
}

function journalFromSubject(subject: string | undefined): string | null {
  if (!subject) return null;
  const name = clean(subject.split(/,|\s\d|\(|\.\s|https?:|doi/i)[0] ?? "");
  if (name.length < 3 || name.length > 80 || words(name).length > 8 || /:/.test(name)) return null;
  return /^\p{Lu}/u.test(name) ? name : null;
}

const CITATION_LINE = /^(?:[^\p{L}]*)(\p{Lu}[\p{L}&.'’ -]{1,80}?)\s*\(?((?:19|20)\d{2})\)?\s*[,;:]\s*\d/u;

function journalAndYearFromText(text: string): { journal: string | null; year: string | null } {
  const section = /a section of the journal\s+([^\n]+)/i.exec(text.slice(0, 8000));
  const lines = text.split("\n").slice(0, 200).map(clean);
  for (const [i, line] of lines.entries()) {
    // A citation line at the top of the paper, or a running foot with the DOI further down.
    if (i >= 40 && !/\bdoi\b/i.test(line)) continue;
    const m = CITATION_LINE.exec(line.replace(/^Vol:?\.?\(\d+\)/, ""));
    if (m && words(m[1]!).length <= 8 && !/received|accepted|published|copyright|volume/i.test(m[1]!)) {
      return { journal: section ? clean(section[1]!) : clean(m[1]!), year: m[2]! };
    }
  }
  return { journal: section ? clean(section[1]!) : null, year: null };
}

function publishedDate(text: string): string | null {
  const head = text.slice(0, 12_000);
  const m = /published(?:\s+online)?:?\s+(\d{1,2})\s+([A-Za-z]+)\s+((?:19|20)\d{2})/i.exec(head);
  if (m) {
    const month = MONTHS.indexOf(m[2]!.toLowerCase());
    if (month >= 0) return `${m[3]}-${String(month + 1).padStart(2, "0")}-${m[1]!.padStart(2, "0")}`;
    return m[3]!;
  }
  const copyright = /(?:©|\(c\)|copyright)\s*(?:[^\n\d]{0,80})((?:19|20)\d{2})/i.exec(head);
  return copyright ? copyright[1]! : null;
}

/** Cuts text to `max` characters at the last sentence end within it. */
function cutSentence(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const end = Math.max(head.lastIndexOf(". "), head.lastIndexOf(".\n"));
  return end > max * 0.5 ? head.slice(0, end + 1) : head;
}

const ABSTRACT_START =
  /(?:^|\s)(?:(?:abstract|summary)\s*[:.]\s+|(?=(?:objectives?|background|aims?(?:\/hypothesis)?|purpose|context)\s*[.:]\s))/i;
const ABSTRACT_END = /\s(?:key\s?words?\s*[:.]?|copyright\s*©|©)\s/i;

function abstractFrom(text: string): string | null {
  const prepared = prepareFullText(text);
  const sections = detectSections(prepared);
  const section = sections.find((s) => s.kind === "abstract");
  let body: string | null = null;
  if (section) {
    const paragraphs = prepared.slice(section.start, section.end).split("\n\n").slice(1);
    const parts: string[] = [];
    let label: string | null = null;
    for (const p of paragraphs) {
      if (isAbstractLabel(p)) {
        label = p.replace(/[:.]$/, "");
        continue;
      }
      parts.push(label ? `${label}: ${p}` : p);
      label = null;
    }
    body = parts.join("\n\n").trim();
  }
  if (!body || body.length < 200) {
    // No Abstract heading: the front matter's paragraph that starts with an abstract label
    // ("Objectives. …", "Background: …", "Abstract: Aging …"), from that label on.
    const front = sections.find((s) => s.kind === "front");
    const region = front ? prepared.slice(front.start, front.end) : prepared.slice(0, 15_000);
    for (const paragraph of region.split("\n\n")) {
      const m = ABSTRACT_START.exec(paragraph);
      if (!m) continue;
      const candidate = paragraph.slice(m.index + m[0].length).trim();
      if (candidate.length >= 400) {
        body = candidate;
        break;
      }
    }
  }
  if (!body || body.length < 100) return null;
  const end = ABSTRACT_END.exec(body);
  if (end && end.index > 200) body = body.slice(0, end.index);
  return cutSentence(body.replace(/\s*\n\n\s*/g, "\n\n").trim(), MAX_ABSTRACT_CHARS);
}

function keywordsFrom(info: PdfInfo, text: string): string[] {
  const fromInfo = info.keywords
    ? info.keywords
        .split(/[;,]/)
        .map(clean)
        .filter((k) => k.length >= 2)
    : [];
  if (fromInfo.length > 0) return [...new Set(fromInfo)].slice(0, 20);
  const m = /\bkey\s?words?\s*[:.]?\s*([^\n]+)(?:\n([^\n]+))?/i.exec(text.slice(0, 15_000));
  if (!m) return [];
  const list = /[,;·]\s*$/.test(m[1]!) && m[2] ? `${m[1]} ${m[2]}` : m[1]!;
  return [
    ...new Set(
      list
        .split(/[;,·]/)
        .map(clean)
        .filter((k) => k.length >= 2 && k.length <= 60),
    ),
  ].slice(0, 20);
}

/**
 * Detects the metadata of an uploaded paper (see the module comment for the rules).
 *
 * @param input.text the extracted text (extractPdfDocument), @param input.firstPage the first
 *   page's text runs with font sizes, @param input.info the information dictionary,
 *   @param input.fileName used as the title when nothing better is found.
 */
export function detectMetadata(input: {
  text: string;
  firstPage: readonly PdfTextRun[];
  info: PdfInfo;
  fileName: string;
}): DetectedMetadata {
  const { text, info } = input;
  const title =
    titleFromLayout(input.firstPage) ??
    (readsAsTitle(info.title) ? clean(info.title) : null) ??
    firstProseLine(text) ??
    (input.fileName.replace(/\.pdf$/i, "").trim() || "Untitled PDF");
  const authorsFound = authorsAfterTitle(text, title);
  const authors = authorsFound.length > 0 ? authorsFound : authorsFromInfo(info.author);
  const doi = normaliseDoi(info.doi ?? null) ?? doiIn(text.slice(0, 6000)) ?? doiIn(info.subject);
  const fromText = journalAndYearFromText(text);
  const journal = journalFromSubject(info.subject) ?? fromText.journal;
  const creationYear = /^D:((?:19|20)\d{2})/.exec(info.creationDate ?? "")?.[1] ?? null;
  const published = publishedDate(text);
  const publicationDate = published && published.length > 4 ? published : (fromText.year ?? published ?? creationYear);
  const abstract = abstractFrom(text);
  const byTitle = classifyStudyType([], title);
  const studyType = byTitle !== "Research Article" || !abstract ? byTitle : classifyStudyType([], abstract);
  return {
    title,
    authors: [...new Set(authors)],
    doi,
    journal,
    publicationDate,
    abstract,
    keywords: keywordsFrom(info, text),
    studyType,
  };
}
