/**
 * Loader of the extraction development corpus (tests/extraction-corpus/corpus.json).
 *
 * The corpus holds hand annotations only; the texts stay in ../shared and are read here:
 * - provider records (`source.fixture` + `source.recordId`): the abstract as MetaMind's own
 *   normaliser gives it (PubMed efetch XML → normalisePubmedXml, Europe PMC search JSON →
 *   normaliseEuropePmcSearch), i.e. exactly what a search result carries;
 * - PDFs (`source.pdf` + `from`/`to` anchors): the text unpdf extracts (extractPdfDocument, as an
 *   upload does), cut from the first occurrence of `from` up to the next occurrence of `to`.
 * Every annotation's `quote` must equal `text.slice(start, end)`; a mismatch throws (the texts or
 * their extraction changed, so the annotations must be checked again).
 *
 * When ../shared is absent `loadCorpus` returns `{ available: false, reason }`: tests and the
 * bench skip with that message.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { extractPdfDocument } from "../../app/.server/fulltext/fetch";
import { normaliseEuropePmcSearch } from "../../app/.server/search/providers/europepmc";
import { normalisePubmedXml } from "../../app/.server/search/providers/pubmed";

/** One hand-annotated effect estimate. Offsets are UTF-16 indices into the document text. */
export interface GoldEffect {
  quote: string;
  start: number;
  end: number;
  /** Notation family the bench reports by (ratio, difference, smd, regression, correlation,
   * proportion, diagnostic, named-once, typographic, other). */
  family: string;
  /** OR, RR, HR, IRR, RD, MD, SMD, B, r, ICC, PROP, PCT, AUC, OTHER. */
  measure: string;
  estimate: number;
  lower: number;
  upper: number;
  /** Confidence level in percent; null when the text does not state it. */
  level: number | null;
  p: string | null;
  outcome: string;
  comparison: string | null;
  timepoint: string | null;
  /** True when the estimate is the document's own pooled (meta-analytic) result. */
  pooled: boolean;
}

export interface CorpusDocument {
  id: string;
  /** "abstract" (a record's or paper's abstract), "passage" (prose from a PDF's body) or "table". */
  kind: "abstract" | "passage" | "table";
  design: string;
  source:
    | { fixture: string; provider: "pubmed" | "europepmc"; recordId: string }
    | { pdf: string; from: string; to: string };
  effects: GoldEffect[];
}

export interface LoadedDocument extends CorpusDocument {
  text: string;
}

export type CorpusLoad =
  | { available: true; documents: LoadedDocument[] }
  | { available: false; reason: string };

const here = path.dirname(fileURLToPath(import.meta.url));
/** ../shared next to the repository. */
export const SHARED_DIR = path.resolve(here, "../../../shared");
export const CORPUS_FILE = path.join(here, "corpus.json");

/** The annotations without texts (no ../shared needed). */
export function readAnnotations(corpusFile = CORPUS_FILE): CorpusDocument[] {
  return (JSON.parse(readFileSync(corpusFile, "utf8")) as { documents: CorpusDocument[] }).documents;
}

/** Abstract of `recordId` in a provider fixture, through the provider's normaliser. */
export function fixtureAbstract(fixture: string, provider: "pubmed" | "europepmc", recordId: string, sharedDir = SHARED_DIR): string {
  const raw = readFileSync(path.join(sharedDir, fixture), "utf8");
  const result = provider === "pubmed" ? normalisePubmedXml(raw) : normaliseEuropePmcSearch(JSON.parse(raw));
  const study = result.studies.find((s) => s.sourceId === recordId);
  if (!study?.abstract) throw new Error(`corpus: no abstract for ${recordId} in ${fixture}`);
  return study.abstract;
}

/**
 * The passage of a PDF's extracted text from `from` up to `to` (exclusive). The anchors and quotes were written on the
 * text before the PDF reader kept a table's column gaps as tabs (each tab stands where a space stood, so offsets are
 * unchanged): anchors are found with tabs read as spaces, and the passage keeps the product's tabs.
 */
export function pdfPassage(pdfText: string, from: string, to: string, label: string): string {
  const spaced = pdfText.replace(/\t/g, " ");
  const start = spaced.indexOf(from);
  if (start < 0) throw new Error(`corpus: anchor ${JSON.stringify(from)} not found in ${label}`);
  const end = spaced.indexOf(to, start + from.length);
  if (end < 0) throw new Error(`corpus: anchor ${JSON.stringify(to)} not found after ${JSON.stringify(from)} in ${label}`);
  return pdfText.slice(start, end);
}

/**
 * Loads every document's text and checks every annotation against it.
 * @throws Error when an anchor, record or quote does not match the text.
 */
export async function loadCorpus(sharedDir = SHARED_DIR, corpusFile = CORPUS_FILE): Promise<CorpusLoad> {
  if (!existsSync(path.join(sharedDir, "fixtures/providers")) || !existsSync(path.join(sharedDir, "pdfs"))) {
    return { available: false, reason: `skipped: the extraction corpus texts live in ../shared (${sharedDir}), which is absent` };
  }
  const pdfTexts = new Map<string, string>();
  const documents: LoadedDocument[] = [];
  for (const doc of readAnnotations(corpusFile)) {
    let text: string;
    if ("fixture" in doc.source) {
      text = fixtureAbstract(doc.source.fixture, doc.source.provider, doc.source.recordId, sharedDir);
    } else {
      let full = pdfTexts.get(doc.source.pdf);
      if (full === undefined) {
        full = (await extractPdfDocument(new Uint8Array(readFileSync(path.join(sharedDir, doc.source.pdf))))).text;
        pdfTexts.set(doc.source.pdf, full);
      }
      text = pdfPassage(full, doc.source.from, doc.source.to, doc.source.pdf);
    }
    for (const e of doc.effects) {
      if (text.slice(e.start, e.end).replace(/\t/g, " ") !== e.quote) {
        throw new Error(`corpus: ${doc.id}: quote ${JSON.stringify(e.quote)} is not at [${e.start}, ${e.end})`);
      }
    }
    documents.push({ ...doc, text });
  }
  return { available: true, documents };
}
