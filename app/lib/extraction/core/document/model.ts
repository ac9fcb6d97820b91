/**
 * The trial-report document model: one plain text made of paragraphs (with section names and
 * character offsets, so a quote is a span of `text`) and tables kept as grids (header rows with
 * spanning cells repeated over the columns they span, body rows whose first cell is the row label,
 * caption and footnotes). Parsers for JATS, HTML, markdown and plain/PDF text all build this.
 */

export type ReportFormat = "jats" | "html" | "markdown" | "text";

export const REPORT_FORMATS: readonly ReportFormat[] = ["jats", "html", "markdown", "text"];

/** A paragraph: `text.slice(start, end)` of the report, under section `section` ("" when unknown). */
export interface Paragraph {
  section: string;
  start: number;
  end: number;
}

/** A table: `header[h][c]` and `rows[r][c]` have the same column count; `rows[r][0]` is the row label. */
export interface ReportTable {
  /** 0-based position among the report's tables. */
  index: number;
  /** "Table 2" when the report labels it, otherwise "Table {index + 1}". */
  label: string;
  caption: string;
  header: string[][];
  rows: string[][];
  footnotes: string[];
}

export interface TrialReport {
  text: string;
  paragraphs: Paragraph[];
  tables: ReportTable[];
}

/** One source cell before spans are expanded. */
export interface RawCell {
  text: string;
  colspan?: number;
  rowspan?: number;
  header?: boolean;
}

/** Collapses whitespace and normalises the dashes, minus signs and spaces that reports use. */
export function cleanText(value: string): string {
  return value
    .replace(/[\u2009\u202f\u00a0\u2002-\u2008\u200a]/g, " ")
    .replace(/\u200b|\u200c|\u200d|\ufeff/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Accumulates paragraphs and tables into a {@link TrialReport}; paragraphs are joined by "\n\n". */
export class ReportBuilder {
  private parts: string[] = [];
  private length = 0;
  private readonly paragraphs: Paragraph[] = [];
  private readonly tables: ReportTable[] = [];

  addParagraph(section: string, raw: string): void {
    const text = cleanText(raw);
    if (!text) return;
    if (this.length > 0) {
      this.parts.push("\n\n");
      this.length += 2;
    }
    this.paragraphs.push({ section: cleanText(section), start: this.length, end: this.length + text.length });
    this.parts.push(text);
    this.length += text.length;
  }

  addTable(input: {
    label?: string;
    caption?: string;
    rows: RawCell[][];
    footnotes?: string[];
    headerRows?: number;
  }): void {
    const table = buildTable(this.tables.length, input);
    if (table) this.tables.push(table);
  }

  build(): TrialReport {
    return { text: this.parts.join(""), paragraphs: this.paragraphs, tables: this.tables };
  }
}

/**
 * Expands col/row spans into a rectangular grid. Header rows are the leading rows marked `header`
 * (or the first `headerRows`), plus leading body rows that carry no digit (sub-headers such as
 * "n (%)" are kept with digits: "n" and "%" only). A table with no header row takes its first row.
 */
function buildTable(
  index: number,
  input: { label?: string; caption?: string; rows: RawCell[][]; footnotes?: string[]; headerRows?: number },
): ReportTable | null {
  const grid: string[][] = [];
  const isHeader: boolean[] = [];
  input.rows.forEach((row, r) => {
    grid[r] ??= [];
    const out = grid[r];
    let c = 0;
    isHeader[r] =
      input.headerRows !== undefined ? r < input.headerRows : row.length > 0 && row.every((cell) => cell.header);
    for (const cell of row) {
      while (out[c] !== undefined) c += 1;
      const colspan = Math.max(1, Math.min(50, cell.colspan ?? 1));
      const rowspan = Math.max(1, Math.min(200, cell.rowspan ?? 1));
      const text = cleanText(cell.text);
      for (let dc = 0; dc < colspan; dc += 1) {
        for (let dr = 0; dr < rowspan; dr += 1) {
          const rr = r + dr;
          grid[rr] ??= [];
          if (dr === 0) out[c + dc] = text;
          else grid[rr][c + dc] = text;
        }
      }
      c += colspan;
    }
  });
  const rows = grid.filter((row) => row && row.length > 0);
  if (rows.length === 0) return null;
  const width = Math.max(...rows.map((row) => row.length));
  const full = rows.map((row) => Array.from({ length: width }, (_, c) => row[c] ?? ""));
  let headerCount = 0;
  while (headerCount < full.length && isHeader[headerCount]) headerCount += 1;
  if (headerCount === 0) headerCount = 1;
  while (headerCount < full.length - 1 && isSubHeader(full[headerCount])) headerCount += 1;
  if (headerCount < full.length - 1 && isDoseRow(full[headerCount - 1], full[headerCount])) {
    // Pandoc writes the dose row of a simple table one column left when its stub cell is blank.
    const row = full[headerCount];
    if (/^\d/.test(row[0]) && row[width - 1] === "") full[headerCount] = ["", ...row.slice(0, width - 1)];
    headerCount += 1;
  }
  const header = spreadSpans(full.slice(0, headerCount), width);
  const body = full.slice(headerCount).filter((row) => row.some((cell) => cell !== ""));
  return {
    index,
    label: cleanText(input.label ?? "") || `Table ${index + 1}`,
    caption: cleanText(input.caption ?? ""),
    header,
    rows: body,
    footnotes: (input.footnotes ?? []).map(cleanText).filter(Boolean),
  };
}

/**
 * Restores spanning header cells that a fixed-width rendering lost. Pandoc writes a label spanning
 * two columns ("Placebo (n = 30)" over mean and SD) in the first free column, so the labels of a
 * row crowd into value columns 1..k; when the value columns are a multiple m·k of them, each label
 * is spread over m columns. Otherwise an empty cell of an upper header row under which a lower row
 * has a label continues the label on its left.
 */
function spreadSpans(header: string[][], width: number): string[][] {
  return header.map((row, h) => {
    if (h === header.length - 1) return row;
    const filled = row.map((cell, c) => (c > 0 && cell ? c : -1)).filter((c) => c > 0);
    const k = filled.length;
    const valueColumns = width - 1;
    if (k >= 1 && k < valueColumns && valueColumns % k === 0 && filled.every((c, i) => c === i + 1)) {
      const m = valueColumns / k;
      const out = [row[0]];
      for (let i = 0; i < k; i += 1) for (let j = 0; j < m; j += 1) out.push(row[i + 1]);
      return out;
    }
    const below = header.slice(h + 1);
    const last = header[header.length - 1];
    const out = [...row];
    let runStart = 1;
    for (let c = 1; c < width; c += 1) {
      if (row[c]) {
        if (row[c] !== row[c - 1]) runStart = c;
        continue;
      }
      if (c < 2 || !out[c - 1] || !below.some((r) => r[c]) || below.some((r) => r[c] && isComparisonLabel(r[c])))
        continue;
      // A sub-label that repeats the first one under the current group ("n (%)" again) starts the next group, not this one.
      if (last[c] && last[c] === last[runStart] && c > runStart) {
        const next = row.findIndex((cell, k) => k > c && cell);
        if (next > c && row.slice(c + 1, next).every((cell) => !cell) && next - c <= 2)
          for (let k = c; k < next; k += 1) out[k] = row[next];
        continue;
      }
      out[c] = out[c - 1];
    }
    return out;
  });
}

/** A spanning header cell naming a dose and its unit ("Treatment (mg macitentan)", "Dose, mg/kg"). */
const DOSE_LABEL = /\b(mg|µg|μg|mcg|ng|g|ml|iu|units?)(\/(kg|day|d|m2))?\b|\bdos(e|es|age|ing)\b/i;

/**
 * Dose-ranging tables (family: rising-dose and dose-finding trials; one column per dose under a spanning
 * "Treatment (mg drug)" header, placebo beside them): the first body row holding only bare doses and
 * group words ("Placebo", "Total") is a header row, under a header row whose one label names a dose.
 */
function isDoseRow(above: string[], row: string[]): boolean {
  const labels = above.slice(1).filter(Boolean);
  if (labels.length !== 1 || !DOSE_LABEL.test(labels[0])) return false;
  const cells = row.filter(Boolean);
  const doses = cells.filter((cell) => /^\d+(\.\d+)?\s*(mg|µg|μg|mcg|g|ml|iu)?$/i.test(cell)).length;
  return (
    doses >= 2 &&
    cells.every(
      (cell) =>
        /^\d+(\.\d+)?\s*(mg|µg|μg|mcg|g|ml|iu)?$/i.test(cell) ||
        /^(placebo|control|vehicle|total|all|overall)\b/i.test(cell),
    )
  );
}

/** A body row that only names statistics ("n", "(%)", "Mean", "SD") continues the header. */
function isSubHeader(row: string[]): boolean {
  const values = row.slice(1).filter(Boolean);
  if (values.length === 0) return false;
  if (values.length >= 2 && row.every((cell) => !/\d/.test(cell))) return true;
  const noDigits = (cell: string) => !/\d/.test(cell.replace(/\(?\b[nN]\s*=\s*\d+\)?/g, ""));
  if (
    values.length >= 2 &&
    noDigits(row[0]) &&
    values.every(noDigits) &&
    values.some((cell) => /\b[nN]\s*=\s*\d+/.test(cell))
  )
    return true;
  return (
    values.every((cell) => !/\d/.test(cell) || /^\(?\s*n\s*=\s*\d+\s*\)?$/i.test(cell)) &&
    values.some((cell) =>
      /^(\(?%\)?|\(?\s*n\s*\)?|\(?\s*n\s*=\s*\d+\s*\)?|mean|sd|se|sem|median|iqr|range|n\s*\(%\)|mean\s*\(sd\)|mean\s*±\s*sd|χ|x̄|95%\s*ci)$/i.test(
        cell.replace(/\*/g, "").trim(),
      ),
    )
  );
}

/** Labels of columns that compare the arms rather than describe one (p, test statistic, effect size, CI). */
const COMPARISON_LABEL =
  /^\(?\s*(p|p[- ]?values?|p for\b.*|sig\.?|significance|x2|χ2|chi.*|t|f|z|u|es|effect sizes?.*|difference.*|mean difference.*|diff\.?.*|md|smd|or|rr|hr|irr|95\s*%\s*ci.*|ci|odds ratio.*|risk ratio.*|hazard ratio.*|statistics?|test.*|[tfz]\s*\/\s*[a-zχ]+\d?|x2\s*\/\s*t)\s*\)?$/i;
/** Whether a column label names a comparison of the arms (p, test statistic, effect size, its CI), not one arm's statistic. */
export function isComparisonLabel(label: string): boolean {
  return COMPARISON_LABEL.test(
    label
      .replace(/\^([^^]*)\^/g, (_m, sup: string) => (/^\d$/.test(sup) ? sup : ""))
      .replace(/[*†‡§¶]+/g, "")
      .replace(/\s+[a-z]$/, "")
      .trim(),
  );
}

/** The label of column `c`: its header cells from top to bottom, repeated cells once. */
export function columnLabel(table: ReportTable, c: number): string {
  const parts: string[] = [];
  for (const row of table.header) {
    const cell = row[c];
    if (cell && parts[parts.length - 1] !== cell) parts.push(cell);
  }
  return parts.join(" ");
}
