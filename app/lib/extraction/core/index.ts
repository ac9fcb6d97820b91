/**
 * The extraction core: the one number reader, sentence splitter, stemmer and token normaliser,
 * outcome-phrase normaliser, quote type and verbatim quote check that every extraction path
 * (effects in app/lib/extraction, arm-level data in app/lib/arms, study facts, the meta-analysis
 * rules and the model-fill paths) reads study text with, and the one document model they all read
 * (document/: source → text, parts, paragraphs with sections, sentences, tables). Pure: no I/O; runs
 * in the browser, the Worker and Node (bench). See docs/methods/extraction-core.md, ADR 0028 and 0039.
 */
export {
  MINUS_CHARS,
  decimalsOf,
  numbersIn,
  parseNumber,
  parseRange,
  readNumberAt,
  type NumberAt,
  type NumberRange,
  type NumberToken,
} from "./numbers.ts";
export {
  sectionedSentences,
  sentenceSpans,
  splitSentences,
  type SectionedSpan,
  type SentenceSpan,
} from "./sentences.ts";
export { americanSpelling, normalisedTokens, stem, words } from "./words.ts";
export {
  normaliseOutcomePhrase,
  normaliseTimepoint,
  outcomesMatch,
  timepointDays,
  timepointsCompatible,
} from "./outcomes.ts";
export { checkQuote, locateQuote, numberWritten, type QuoteCheck, type SourceQuote } from "./quote.ts";
export {
  columnLabel,
  documentSentences,
  joinedStudyDocument,
  parseReport,
  partOf,
  partSentences,
  REPORT_FORMATS,
  reportDocument,
  studyDocument,
  type DocumentFormat,
  type DocumentPart,
  type DocumentPartKind,
  type DocumentSentence,
  type ReportFormat,
  type ReportTable,
  type StudyDocument,
  type TrialReport,
} from "./document/index.ts";
