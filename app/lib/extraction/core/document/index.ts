/**
 * The one document model every extraction path reads (issue 26 item 0, ADR 0039): a study's source
 * (Europe PMC JATS, HTML, markdown, plain or PDF text extracted by unpdf, pasted or attached full text,
 * or a title with its abstract and full-text analysis) is built ONCE into a {@link StudyDocument} —
 * one text with its parts (title, abstract, full text), paragraphs under section names, sentences and
 * tables as grids — and effects (app/lib/extraction), arm-level data (app/lib/arms) and study facts
 * (facts.ts) all read that object. Pure: no I/O.
 */
import { sentenceSpans } from "../sentences.ts";
import { parseHtml } from "./html.ts";
import { parseJats } from "./jats.ts";
import { type MarkdownOptions, parseMarkdown } from "./markdown.ts";
import { type Paragraph, type ReportFormat, type TrialReport } from "./model.ts";
import { parseText } from "./text.ts";

export { cleanText, columnLabel, isComparisonLabel, REPORT_FORMATS, ReportBuilder } from "./model.ts";
export type { Paragraph, RawCell, ReportFormat, ReportTable, TrialReport } from "./model.ts";
export { parseHtml, parseJats, parseMarkdown, parseText };

/** Which part of a study a span of the document's text belongs to. */
export type DocumentPartKind = "title" | "abstract" | "fullText";

/** `text.slice(start, end)` of the document is this part, exactly as its source gave it. */
export interface DocumentPart {
  kind: DocumentPartKind;
  start: number;
  end: number;
}

/** Where the document was built from: a report format, or a study's title + abstract + full text ("study"). */
export type DocumentFormat = ReportFormat | "study";

/**
 * A study's document: the {@link TrialReport} (text, paragraphs with sections, tables) plus its format,
 * title and parts. Quotes are spans of `text`; a quote of a part is `start - part.start` into it.
 */
export interface StudyDocument extends TrialReport {
  format: DocumentFormat;
  title: string;
  parts: DocumentPart[];
}

/** A sentence of the document: a span of `text`, its paragraph's section and the part it lies in. */
export interface DocumentSentence {
  start: number;
  end: number;
  section: string;
  part: DocumentPartKind;
}

/**
 * Parses a trial report in one of the supported formats into the document model. JATS and HTML go
 * through fast-xml-parser and htmlparser2; markdown and plain/PDF text through the fixed-width,
 * pipe and grid table readers. Throws an Error when JATS is not well-formed enough to parse.
 * `options` are parseMarkdown's (bench and tests: `inlineFigures: "split"` turns round 8's figure rule on; off by default; `stubColumns: "first"` turns round 14's stub-column rule off).
 */
export function parseReport(text: string, format: ReportFormat, options: MarkdownOptions = {}): TrialReport {
  switch (format) {
    case "jats":
      return parseJats(text);
    case "html":
      return parseHtml(text);
    case "markdown":
      return parseMarkdown(text, options);
    case "text":
      return parseText(text);
  }
}

/**
 * The document of a full report (JATS, HTML, markdown, plain/PDF text): {@link parseReport}'s text,
 * paragraphs and tables; the whole text is one "fullText" part. Throws as parseReport does.
 */
export function reportDocument(text: string, format: ReportFormat, title = ""): StudyDocument {
  const report = parseReport(text, format);
  return { ...report, format, title, parts: [{ kind: "fullText", start: 0, end: report.text.length }] };
}

/** Paragraph and part separator of a study document. */
const PART_SEPARATOR = "\n\n";

/**
 * The document of a study given as title, abstract and full text (the meta-analysis job and extract
 * route, uploads, combined summaries): the parts are kept verbatim (untrimmed, so a quote's offsets
 * into its part are offsets into the text the caller gave) and joined by a blank line, title first;
 * an empty or blank part is left out. Paragraphs are the parts' blank-line-separated blocks, under the
 * part's name; tables are read from the full text as {@link parseText} reads plain text.
 */
export function studyDocument(study: {
  title?: string | null;
  abstract?: string | null;
  fullText?: string | null;
}): StudyDocument {
  const given: [DocumentPartKind, string | null | undefined][] = [
    ["title", study.title],
    ["abstract", study.abstract],
    ["fullText", study.fullText],
  ];
  const parts: DocumentPart[] = [];
  const paragraphs: Paragraph[] = [];
  let text = "";
  for (const [kind, value] of given) {
    if (!value?.trim()) continue;
    if (text) text += PART_SEPARATOR;
    const start = text.length;
    text += value;
    parts.push({ kind, start, end: text.length });
    for (const block of value.matchAll(/[^\n]+(?:\n(?!\s*\n)[^\n]*)*/g)) {
      const lead = block[0].length - block[0].trimStart().length;
      const body = block[0].trim();
      if (body)
        paragraphs.push({
          section: kind,
          start: start + block.index + lead,
          end: start + block.index + lead + body.length,
        });
    }
  }
  const tables =
    study.fullText?.trim() && /\S {2,}\S|\t|\|/.test(study.fullText) ? parseText(study.fullText).tables : [];
  return { text, paragraphs, tables, format: "study", title: study.title ?? "", parts };
}

/**
 * The document of a study text the caller has already joined (title, then the abstract), kept
 * verbatim so offsets into it are offsets into `text`: the title part is `[0, titleEnd)` (none when
 * `titleEnd` is 0), the abstract part the rest after the separating whitespace.
 */
export function joinedStudyDocument(text: string, options: { titleEnd?: number } = {}): StudyDocument {
  const titleEnd = Math.max(0, Math.min(text.length, options.titleEnd ?? 0));
  const parts: DocumentPart[] = [];
  if (titleEnd > 0) parts.push({ kind: "title", start: 0, end: titleEnd });
  const rest = text.slice(titleEnd);
  const lead = rest.length - rest.trimStart().length;
  if (rest.trim()) parts.push({ kind: "abstract", start: titleEnd + lead, end: text.length });
  const paragraphs: Paragraph[] = parts.map((p) => ({ section: p.kind, start: p.start, end: p.end }));
  return { text, paragraphs, tables: [], format: "study", title: text.slice(0, titleEnd), parts };
}

/** The text of the document's part of `kind` ("" when it has none), and where it starts in the document. */
export function partOf(document: StudyDocument, kind: DocumentPartKind): { text: string; start: number } | null {
  const part = document.parts.find((p) => p.kind === kind);
  return part ? { text: document.text.slice(part.start, part.end), start: part.start } : null;
}

const sentenceCache = new WeakMap<TrialReport, DocumentSentence[]>();

/**
 * The document's sentences, split once per document by the core splitter ({@link sentenceSpans})
 * within each paragraph, with the paragraph's section and part (a parsed report without parts is all
 * "fullText"). Memoised per document object: effects, arms and study facts all read this one list.
 */
export function documentSentences(document: TrialReport & { parts?: readonly DocumentPart[] }): DocumentSentence[] {
  const cached = sentenceCache.get(document);
  if (cached) return cached;
  const out: DocumentSentence[] = [];
  for (const p of document.paragraphs) {
    const part = document.parts?.find((q) => p.start >= q.start && p.end <= q.end)?.kind ?? "fullText";
    for (const s of sentenceSpans(document.text, p.start, p.end))
      out.push({ start: s.start, end: s.end, section: p.section, part });
  }
  sentenceCache.set(document, out);
  return out;
}

/**
 * The sentences of the document's part of `kind` from {@link documentSentences}, as spans of the part's
 * own text (offsets relative to the part, `text` the sentence): what a reader of one part (the effect
 * rules read the abstract and the full text apart) takes instead of splitting the part again.
 */
export function partSentences(
  document: StudyDocument,
  kind: DocumentPartKind,
): { text: string; start: number; end: number }[] {
  const part = document.parts.find((p) => p.kind === kind);
  if (!part) return [];
  return documentSentences(document)
    .filter((s) => s.start >= part.start && s.end <= part.end)
    .map((s) => ({ text: document.text.slice(s.start, s.end), start: s.start - part.start, end: s.end - part.start }));
}
