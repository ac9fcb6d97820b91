import type { ReportFormat, TrialReport } from "./document.ts";
import { parseHtml } from "./parse-html.ts";
import { parseJats } from "./parse-jats.ts";
import { parseMarkdown } from "./parse-markdown.ts";
import { parseText } from "./parse-text.ts";

export { ABSTAIN_BELOW, extractArms, proseValues, reportAbbreviations, type ProseValue } from "./extract.ts";
export { hintsOf } from "./notation.ts";
export { columnLabel, REPORT_FORMATS } from "./document.ts";
export type { ReportFormat, ReportTable, TrialReport } from "./document.ts";
export * from "./types.ts";

/**
 * Parses a trial report in one of the supported formats into the document model. JATS and HTML go
 * through fast-xml-parser and htmlparser2; markdown and plain/PDF text through the fixed-width,
 * pipe and grid table readers. Throws an Error when JATS is not well-formed enough to parse.
 */
export function parseReport(text: string, format: ReportFormat): TrialReport {
  switch (format) {
    case "jats":
      return parseJats(text);
    case "html":
      return parseHtml(text);
    case "markdown":
      return parseMarkdown(text);
    case "text":
      return parseText(text);
  }
}
export { groundProposedValue } from "./verify.ts";
