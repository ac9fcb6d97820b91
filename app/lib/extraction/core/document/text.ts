import { type RawCell, ReportBuilder, type TrialReport } from "./model.ts";

/** A cell boundary: two or more spaces, or a tab (the PDF reader writes a table's column gaps as tabs). */
const GAP = / {2,}|\t+/;
const SECTION =
  /^(abstract|background|introduction|methods?|materials and methods|patients and methods|results?|discussion|conclusions?|references|acknowledg\w*)\s*:?\s*$/i;
const CAPTION = /^\s*table\s+\d+\b/i;
/** Lines between a caption and the table it names: a caption above a table (most journals) or below it (Lancet). */
const CAPTION_REACH_ABOVE = 12;
const CAPTION_REACH_BELOW = 8;
/** Lines above a table's first row searched for its header row (header lines that wrapped lie between). */
const HEADER_REACH = 8;
/** A section row inside a table ("Primary outcome (abstinence for 6 months)"): one short cell. */
const SECTION_ROW_MAX = 80;
/** A cell that is data, not a column label: a number, a count with its percentage or denominator, a mean (SD). */
const DATA_CELL = /^[-−–]?\d+(?:[.,·]\d+)?(?:\s*[([/%]|$)/;

function cellsOf(line: string): string[] {
  return line.trim().split(GAP);
}

function isTableLine(line: string): boolean {
  const cells = cellsOf(line);
  return cells.length >= 3 && cells.slice(1).some((cell) => /\d/.test(cell));
}

/** A header row: two or more cells, none of them data ("Drug (n=20) | Placebo (n=21)", "t test | Mean difference"). */
function isHeaderLine(line: string): boolean {
  const cells = cellsOf(line);
  return cells.length >= 2 && !cells.some((cell) => DATA_CELL.test(cell.trim()));
}

function isSectionRow(line: string): boolean {
  const text = line.trim();
  return text.length > 0 && text.length <= SECTION_ROW_MAX && !CAPTION.test(text) && cellsOf(text).length === 1;
}

/** A group size in a header cell: "n=74", "(N = 120)". */
const N_LABEL = /\bn\s*=\s*\d/i;

/**
 * The header cells placed over a body `width` columns wide, left-aligned (header cells that wrapped to other lines
 * are missing at the right): as written when the first cell labels the stub column (it fills the width, ends with a
 * colon, or is the only cell without the group size the others state: "Gestational weight change: | n=74 | n=66"),
 * otherwise after an empty stub cell (a header that labels only the data columns: "StopAdvisor | Control | …").
 */
function alignHeader(header: string[], width: number): string[] {
  if (header.length >= width) return header;
  const stub =
    /:\s*$/.test(header[0]) ||
    (header.length >= 3 && !N_LABEL.test(header[0]) && header.slice(1).every((cell) => N_LABEL.test(cell)));
  const cells = stub ? header : ["", ...header];
  return [...cells, ...Array<string>(Math.max(0, width - cells.length)).fill("")];
}

/**
 * Parses plain text (typed, pasted, or extracted from a PDF by unpdf) into a {@link TrialReport}.
 * Paragraphs are separated by blank lines (single line breaks inside a paragraph are joined, with
 * hyphenation at a line end undone). A run of three or more lines whose cells are separated by two
 * or more spaces or tabs becomes a table; short one-cell lines between its rows are kept as section
 * rows. Its header is its first line when that line holds no data, otherwise the nearest line above
 * with two or more cells and no data (within {@link HEADER_REACH} lines), aligned over the body's
 * columns; its caption is the nearest "Table N" line above it (within {@link CAPTION_REACH_ABOVE}
 * lines) or, failing that, below it (within {@link CAPTION_REACH_BELOW} lines, as the Lancet places
 * captions).
 */
export function parseText(text: string): TrialReport {
  const builder = new ReportBuilder();
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let section = "";
  /** The current paragraph's lines with their line numbers. */
  let paragraph: { line: string; at: number }[] = [];
  let caption: { text: string; at: number } | null = null;
  const flush = () => {
    if (paragraph.length)
      builder.addParagraph(
        section,
        paragraph
          .map((p) => p.line)
          .join("\n")
          .replace(/(\w)-\n(\w)/g, "$1$2")
          .replace(/\n/g, " "),
      );
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (!line.trim()) {
      flush();
      continue;
    }
    if (SECTION.test(line.trim())) {
      flush();
      section = line.trim().replace(/:$/, "");
      builder.addParagraph(section, section);
      continue;
    }
    if (CAPTION.test(line) && !isTableLine(line)) {
      flush();
      caption = { text: line.trim(), at: i };
      builder.addParagraph(section, caption.text);
      continue;
    }
    if (isTableLine(line)) {
      let j = i;
      while (
        j < lines.length &&
        (isTableLine(lines[j]) ||
          (lines[j].trim() && cellsOf(lines[j]).length >= 2) ||
          (j > i && isSectionRow(lines[j]) && j + 1 < lines.length && isTableLine(lines[j + 1])))
      )
        j += 1;
      if (j - i >= 3) {
        const rows: RawCell[][] = [];
        let header: string[] | null = isHeaderLine(line) ? cellsOf(line) : null;
        if (!header) {
          // The header row above the first data row; a section row right above the data stays a row.
          const above = paragraph.filter((p) => p.at >= i - HEADER_REACH);
          const found = above.findLastIndex((p) => isHeaderLine(p.line));
          if (found >= 0) {
            header = cellsOf(above[found].line);
            const last = above[above.length - 1];
            if (found < above.length - 1 && last.at === i - 1 && isSectionRow(last.line)) {
              rows.push([{ text: last.line.trim() }]);
              paragraph = paragraph.filter((p) => p !== last);
            }
            paragraph = paragraph.filter((p) => p !== above[found]);
          }
        }
        flush();
        const body = lines.slice(header && isHeaderLine(line) ? i + 1 : i, j).map(cellsOf);
        const width = Math.max(...body.map((cells) => cells.length));
        for (const cells of body) rows.push(cells.map((cell) => ({ text: cell })));
        if (header) rows.unshift(alignHeader(header, width).map((cell) => ({ text: cell })));
        let tableCaption = caption && i - caption.at <= CAPTION_REACH_ABOVE ? caption.text : "";
        if (!tableCaption) {
          for (let k = j; k < Math.min(lines.length, j + CAPTION_REACH_BELOW); k += 1) {
            if (isTableLine(lines[k])) break;
            if (CAPTION.test(lines[k])) {
              tableCaption = lines[k].trim();
              break;
            }
          }
        }
        const label = /^(table\s+\d+)/i.exec(tableCaption);
        builder.addTable({ label: label?.[1], caption: tableCaption, rows, headerRows: 1 });
        caption = null;
        i = j - 1;
        continue;
      }
    }
    paragraph.push({ line: line.trim(), at: i });
  }
  flush();
  return builder.build();
}
