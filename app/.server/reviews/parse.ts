/**
 * Reference-file parsers for review imports (issue 13): RIS and BibTeX through the citation-js
 * plugins, PubMed/MEDLINE (.nbib/.txt) with a tag parser that follows the NLM MEDLINE display
 * format, CSV through papaparse (PubMed, Covidence, Rayyan and generic column names).
 *
 * Pure: text in, records out. A file that cannot be read at all (no records, broken structure,
 * broken quoting) throws {@link ImportParseError} naming the 1-based line of the first problem, and
 * nothing of it is imported. A record that can be read but lacks a title is still imported, as
 * {@link NO_TITLE}, with an {@link ImportWarning} naming its line (real exports have such records;
 * ASReview and Zotero import them too).
 */
import { plugins } from "@citation-js/core";
import "@citation-js/plugin-bibtex";
import "@citation-js/plugin-ris";
import Papa from "papaparse";
import { NO_TITLE, type ImportWarning } from "~/lib/reviews";
import { normaliseDoi } from "~/lib/search/normalize";

export { NO_TITLE, type ImportWarning };

export const IMPORT_FORMATS = ["ris", "nbib", "bibtex", "csv"] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One bibliographic record read from a file. Authors as "Family, Given" (or as written). */
export interface ImportedRecord {
  title: string;
  abstract: string | null;
  authors: string[];
  year: number | null;
  journal: string | null;
  doi: string | null;
  pmid: string | null;
  keywords: string | null;
  url: string | null;
}

/** Where parsers report warnings; callers that do not care pass nothing. */
type Warnings = ImportWarning[] | undefined;

/** The record's title, or {@link NO_TITLE} with a warning at `line`. */
function titleOrWarn(title: string | null | undefined, line: number, warnings: Warnings, what: string): string {
  if (title) return title;
  warnings?.push({ line, message: `${what} has no title; imported as '${NO_TITLE}'` });
  return NO_TITLE;
}

/** The file cannot be read: `line` is the 1-based line of the first problem. */
export class ImportParseError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`Line ${line}: ${message}`);
    this.name = "ImportParseError";
  }
}

/**
 * The format of a file from an explicit `format` value or the file name's extension
 * (.ris; .nbib/.txt/.medline; .bib/.bibtex; .csv). A .txt whose first line is an RIS tag is RIS.
 * Returns null when neither says.
 */
export function detectFormat(fileName: string, explicit: string | null, head: string): ImportFormat | null {
  const wanted = explicit?.trim().toLowerCase();
  if (wanted) {
    if (wanted === "medline" || wanted === "pubmed") return "nbib";
    if (wanted === "bib") return "bibtex";
    return (IMPORT_FORMATS as readonly string[]).includes(wanted) ? (wanted as ImportFormat) : null;
  }
  const ext = fileName.toLowerCase().match(/\.([a-z]+)$/)?.[1] ?? "";
  if (ext === "ris") return "ris";
  if (ext === "bib" || ext === "bibtex") return "bibtex";
  if (ext === "csv") return "csv";
  if (ext === "nbib" || ext === "medline" || ext === "txt") {
    return /^\uFEFF?\s*TY {2}-/.test(head) ? "ris" : "nbib";
  }
  return null;
}

/**
 * Parses a file of the given format; records it reads with a problem (no title) are pushed to
 * `warnings` as {line, message}. @throws ImportParseError naming the line.
 */
export function parseReferenceFile(format: ImportFormat, text: string, warnings?: ImportWarning[]): ImportedRecord[] {
  const body = text.replace(/^\uFEFF/, "");
  switch (format) {
    case "ris":
      return parseRis(body, warnings);
    case "nbib":
      return parseNbib(body, warnings);
    case "bibtex":
      return parseBibtex(body, warnings);
    case "csv":
      return parseCsv(body, warnings);
  }
}

const clean = (v: unknown): string | null => {
  if (typeof v !== "string" && typeof v !== "number") return null;
  const s = String(v).replace(/\s+/g, " ").trim();
  return s === "" ? null : s;
};

function yearFrom(v: unknown): number | null {
  const m = clean(v)?.match(/\b(1[5-9]\d\d|20\d\d|2100)\b/);
  return m ? Number(m[1]) : null;
}

const pmidFrom = (v: unknown): string | null => {
  const m = clean(v)?.match(/^(?:pmid:?\s*)?(\d{1,9})$/i);
  return m ? m[1]! : null;
};

/** A CSL-JSON item (citation-js output) as an imported record. */
interface CslName {
  family?: string;
  given?: string;
  literal?: string;
}
interface CslItem {
  title?: string;
  abstract?: string;
  author?: CslName[];
  issued?: { "date-parts"?: unknown[][]; raw?: string };
  "container-title"?: string;
  "container-title-short"?: string;
  DOI?: string;
  PMID?: string;
  keyword?: string;
  URL?: string;
}

function fromCsl(item: CslItem): Omit<ImportedRecord, "title"> & { title: string | null } {
  const authors = (item.author ?? [])
    .map((a) => (a.family ? (a.given ? `${a.family}, ${a.given}` : a.family) : (a.literal ?? "")).trim())
    .filter(Boolean);
  const parts = item.issued?.["date-parts"]?.[0];
  const year = parts && typeof parts[0] === "number" ? parts[0] : yearFrom(item.issued?.raw);
  return {
    title: clean(item.title),
    abstract: clean(item.abstract),
    authors,
    year,
    journal: clean(item["container-title"]) ?? clean(item["container-title-short"]),
    doi: normaliseDoi(item.DOI),
    pmid: pmidFrom(item.PMID),
    keywords: clean(
      item.keyword
        ?.split(",")
        .map((k) => k.trim())
        .join("; "),
    ),
    url: clean(item.URL),
  };
}

const RIS_TAG = /^([A-Z][A-Z0-9]) {2}-(?: (.*))?$/;

/**
 * RIS (Zotero, EndNote, Mendeley, Covidence, Rayyan): records TY … ER. Lines that are not tags
 * inside a record continue the previous field (wrapped abstracts). Fields are mapped by
 * @citation-js/plugin-ris; the PMID comes from AN (numeric accession) or a PubMed URL.
 */
export function parseRis(text: string, warnings?: ImportWarning[]): ImportedRecord[] {
  const lines = text.split(/\r\n|\r|\n/);
  const records: { start: number; tags: Map<string, string[]> }[] = [];
  let current: { start: number; tags: Map<string, string[]> } | null = null;
  let lastTag: string | null = null;
  lines.forEach((raw, i) => {
    const line = raw.replace(/\s+$/, "");
    const n = i + 1;
    const m = RIS_TAG.exec(line.length === 5 ? `${line} ` : line) ?? RIS_TAG.exec(raw);
    if (!current) {
      if (line.trim() === "") return;
      if (!m || m[1] !== "TY") throw new ImportParseError(n, "expected 'TY  - ' to start a record");
      current = { start: n, tags: new Map([["TY", [clean(m[2]) ?? ""]]]) };
      lastTag = "TY";
      return;
    }
    if (m) {
      const tag = m[1]!;
      if (tag === "TY")
        throw new ImportParseError(n, "a record starts before the previous one ended ('ER  - ' missing)");
      if (tag === "ER") {
        records.push(current);
        current = null;
        lastTag = null;
        return;
      }
      const list = current.tags.get(tag) ?? [];
      list.push(m[2] ?? "");
      current.tags.set(tag, list);
      lastTag = tag;
      return;
    }
    if (line.trim() === "") return;
    const list = current.tags.get(lastTag!)!;
    list[list.length - 1] = `${list[list.length - 1]} ${line.trim()}`;
  });
  if (current) throw new ImportParseError(lines.length, "the file ends inside a record ('ER  - ' missing)");
  if (records.length === 0) throw new ImportParseError(1, "no RIS records found");

  let items: CslItem[];
  try {
    items = plugins.input.chain(text, { forceType: "@ris/file", generateGraph: false }) as CslItem[];
  } catch (error) {
    throw new ImportParseError(
      1,
      `not a readable RIS file (${error instanceof Error ? error.message.split("\n")[0] : "parse error"})`,
    );
  }
  if (items.length !== records.length) throw new ImportParseError(1, "the RIS records could not be read one by one");
  return records.map((rec, i) => {
    const base = fromCsl(items[i]!);
    const first = (tag: string) => clean(rec.tags.get(tag)?.[0]);
    const title = titleOrWarn(
      base.title ?? first("TI") ?? first("T1") ?? first("CT") ?? first("BT"),
      rec.start,
      warnings,
      "record (TI or T1)",
    );
    const urls = [...(rec.tags.get("UR") ?? []), ...(rec.tags.get("L2") ?? [])];
    const pubmedUrl = urls
      .map((u) => u.match(/pubmed\.ncbi\.nlm\.nih\.gov\/(\d+)|[?&]list_uids=(\d+)|\/pubmed\/(\d+)/))
      .find(Boolean);
    const pmid =
      base.pmid ?? pmidFrom(first("AN")) ?? (pubmedUrl ? (pubmedUrl[1] ?? pubmedUrl[2] ?? pubmedUrl[3])! : null);
    const doi = base.doi ?? normaliseDoi(first("DO")) ?? normaliseDoi(first("DI")) ?? normaliseDoi(first("M3"));
    const year = base.year ?? yearFrom(first("PY")) ?? yearFrom(first("Y1")) ?? yearFrom(first("DA"));
    const journal =
      clean(first("T2")) ?? clean(first("JF")) ?? clean(first("JO")) ?? base.journal ?? clean(first("JA"));
    const abstract = base.abstract ?? clean(rec.tags.get("AB")?.join(" ")) ?? clean(rec.tags.get("N2")?.join(" "));
    return { ...base, title, pmid, doi, year, journal, abstract, url: base.url ?? clean(urls[0]) };
  });
}

const NBIB_TAG = /^([A-Z][A-Z0-9]{0,3}) {0,3}- ?(.*)$/;

/**
 * PubMed/MEDLINE display format (.nbib, PubMed "Save → PubMed format" .txt): records of
 * "TAG - value" lines (tags padded to four characters), continuation lines indented by six
 * spaces, records separated by blank lines. Maps TI, AB, FAU (else AU), DP, JT (else TA), LID/AID
 * "[doi]", PMID, OT and MH.
 */
export function parseNbib(text: string, warnings?: ImportWarning[]): ImportedRecord[] {
  const lines = text.split(/\r\n|\r|\n/);
  const records: { start: number; tags: Map<string, string[]> }[] = [];
  let current: { start: number; tags: Map<string, string[]> } | null = null;
  let lastTag: string | null = null;
  lines.forEach((raw, i) => {
    const n = i + 1;
    if (raw.trim() === "") {
      if (current) records.push(current);
      current = null;
      lastTag = null;
      return;
    }
    if (/^\s{2,}\S/.test(raw)) {
      if (!current || !lastTag) throw new ImportParseError(n, "continuation line outside a record");
      const list = current.tags.get(lastTag)!;
      list[list.length - 1] = `${list[list.length - 1]} ${raw.trim()}`;
      return;
    }
    const m = NBIB_TAG.exec(raw);
    if (!m) throw new ImportParseError(n, "expected a MEDLINE tag line such as 'TI  - title'");
    if (!current) current = { start: n, tags: new Map() };
    else if (m[1] === "PMID" && current.tags.has("PMID")) {
      records.push(current);
      current = { start: n, tags: new Map() };
    }
    const list = current.tags.get(m[1]!) ?? [];
    list.push(m[2]!.trim());
    current.tags.set(m[1]!, list);
    lastTag = m[1]!;
  });
  if (current) records.push(current);
  if (records.length === 0) throw new ImportParseError(1, "no MEDLINE records found");
  return records.map((rec) => {
    const first = (tag: string) => clean(rec.tags.get(tag)?.[0]);
    const title = titleOrWarn(first("TI") ?? first("BTI"), rec.start, warnings, "record (TI)");
    const ids = [...(rec.tags.get("LID") ?? []), ...(rec.tags.get("AID") ?? [])];
    const doiId = ids.find((v) => /\[doi\]\s*$/i.test(v));
    const authors = rec.tags.get("FAU") ?? rec.tags.get("AU") ?? [];
    const keywords = [...(rec.tags.get("OT") ?? []), ...(rec.tags.get("MH") ?? [])];
    const pmid = pmidFrom(first("PMID"));
    return {
      title,
      abstract: first("AB"),
      authors: authors.map((a) => a.trim()).filter(Boolean),
      year: yearFrom(first("DP")) ?? yearFrom(first("DEP")),
      journal: first("JT") ?? first("TA"),
      doi: doiId ? normaliseDoi(doiId.replace(/\s*\[doi\]\s*$/i, "")) : null,
      pmid,
      keywords: keywords.length > 0 ? keywords.join("; ") : null,
      url: pmid ? `https://pubmed.ncbi.nlm.nih.gov/${pmid}/` : null,
    };
  });
}

/**
 * BibTeX / BibLaTeX (Zotero, JabRef, Google Scholar) through @citation-js/plugin-bibtex; its
 * syntax errors carry the line, which is passed on.
 */
export function parseBibtex(text: string, warnings?: ImportWarning[]): ImportedRecord[] {
  let items: CslItem[];
  try {
    items = plugins.input.chain(text, { forceType: "@biblatex/text", generateGraph: false }) as CslItem[];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const line = Number(message.match(/at line (\d+)/)?.[1] ?? 1);
    throw new ImportParseError(
      line,
      `not valid BibTeX (${message.split("\n")[0]!.replace(/ at line \d+ col \d+:?/, "")})`,
    );
  }
  const starts: number[] = [];
  const entry = /^[ \t]*@(\w+)\s*[{(]/gm;
  for (let m = entry.exec(text); m; m = entry.exec(text)) {
    if (!/^(comment|string|preamble)$/i.test(m[1]!)) starts.push(text.slice(0, m.index).split("\n").length);
  }
  if (items.length === 0) throw new ImportParseError(1, "no BibTeX entries found");
  return items.map((item, i) => {
    const rec = fromCsl(item);
    return { ...rec, title: titleOrWarn(rec.title, starts[i] ?? 1, warnings, "entry") };
  });
}

/** Column names (lower case, spaces/underscores removed) per field, most specific first. */
const CSV_COLUMNS: Record<keyof ImportedRecord, string[]> = {
  title: ["title", "articletitle", "documenttitle", "primarytitle", "study"],
  abstract: ["abstract", "abstractnote", "summary"],
  authors: ["authors", "author", "authorlist", "authorfullnames", "creators"],
  year: ["year", "publicationyear", "publishedyear", "pubyear", "date", "publicationdate", "createdate"],
  journal: ["journal", "journaltitle", "journalbook", "sourcetitle", "publicationtitle", "source", "secondarytitle"],
  doi: ["doi"],
  pmid: ["pmid", "pubmedid", "accessionnumber"],
  keywords: ["keywords", "manualtags", "tags", "meshterms"],
  url: ["url", "link"],
};

const columnKey = (name: string) => name.toLowerCase().replace(/[\s_/.#-]+/g, "");

function splitAuthors(raw: string | null): string[] {
  if (!raw) return [];
  const parts = raw.includes(";")
    ? raw.split(";")
    : raw.includes(" and ")
      ? raw.split(" and ")
      : raw.split(/,\s*(?=[A-Z][a-z'-]+(?:\s+[A-Z]{1,3}\.?)?\s*(?:,|$))/);
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** 1-based line of a character offset, from the sorted offsets where each line starts. */
function lineAt(lineStarts: number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * CSV with a header row: a title column is required; abstract, authors, year (or a date),
 * journal, DOI, PMID, keywords and URL are read when present, under the names PubMed, Covidence,
 * Rayyan, Zotero and Scopus use. Line numbers are those of the file (a quoted field may span
 * lines). A row with fewer or more fields than the header is read (missing fields empty, extra
 * ones ignored) with a warning; broken quoting refuses the file.
 */
export function parseCsv(text: string, warnings?: ImportWarning[]): ImportedRecord[] {
  const lineStarts = [0];
  for (const m of text.matchAll(/\r\n|\r|\n/g)) lineStarts.push(m.index + m[0].length);
  const rows: { data: Record<string, string>; line: number }[] = [];
  let cursor = -1;
  let fields: string[] = [];
  const refused: { line: number; message: string }[] = [];
  const rowStart = (from: number) => {
    const skipped = /\S/.exec(text.slice(from, from + 4096));
    return from + (skipped ? skipped.index : 0);
  };
  Papa.parse<Record<string, string>>(text, {
    header: true,
    skipEmptyLines: "greedy",
    step: (row, parser) => {
      if (cursor < 0) {
        fields = row.meta.fields ?? [];
        cursor = lineStarts[1] ?? text.length;
      }
      const line = lineAt(lineStarts, rowStart(cursor));
      cursor = row.meta.cursor;
      for (const e of row.errors) {
        if (e.code === "UndetectableDelimiter") continue;
        if (e.type !== "FieldMismatch") {
          refused.push({ line, message: `malformed CSV (${e.message})` });
          parser.abort();
          return;
        }
        warnings?.push({
          line,
          message: `${e.message.replace(/:.*/, "")} (the header has ${fields.length}); read what is there`,
        });
      }
      rows.push({ data: row.data, line });
    },
  });
  if (refused[0]) throw new ImportParseError(refused[0].line, refused[0].message);
  if (cursor < 0) fields = Papa.parse<Record<string, string>>(text, { header: true, preview: 1 }).meta.fields ?? [];
  const pick = (field: keyof ImportedRecord) => {
    for (const wanted of CSV_COLUMNS[field]) {
      const hit = fields.find((f) => columnKey(f) === wanted);
      if (hit) return hit;
    }
    return null;
  };
  const cols = Object.fromEntries(
    (Object.keys(CSV_COLUMNS) as (keyof ImportedRecord)[]).map((k) => [k, pick(k)]),
  ) as Record<keyof ImportedRecord, string | null>;
  if (!cols.title) throw new ImportParseError(1, "the header row has no 'title' column");
  if (rows.length === 0) throw new ImportParseError(2, "no records below the header row");
  return rows.map(({ data: row, line }) => {
    const get = (k: keyof ImportedRecord) => (cols[k] ? clean(row[cols[k]!]) : null);
    return {
      title: titleOrWarn(get("title"), line, warnings, "record"),
      abstract: get("abstract"),
      authors: splitAuthors(get("authors")),
      year: yearFrom(get("year")),
      journal: get("journal"),
      doi: normaliseDoi(get("doi")),
      pmid: pmidFrom(get("pmid")),
      keywords: get("keywords"),
      url: get("url"),
    };
  });
}
