import { isComparisonLabel, type RawCell, ReportBuilder, type TrialReport } from "./model.ts";

/**
 * A footnote or citation marker written as a link to an anchor ("0.13[1](#)", "4.50[a](#tfn1)"): in a
 * table cell it is dropped; in prose it is dropped when glued to a number, a percent or a bracket (so
 * "49 (39%)[12](#)" does not read as 39%12), and kept as text otherwise ("Table [3](#)").
 */
const FOOTNOTE_LINK = /(^|.)\[([a-z]|\d{1,3}(?:[,–-]\d{1,3})*|[*†‡§¶#¤]+)\]\(#[^)]*\)/gi;

/** Removes inline markdown: emphasis, superscript/subscript markers, links, escapes, heading marks. */
export function stripInlineMarkdown(value: string, inCell = false): string {
  let out = value
    .replace(/!\[[^\]]*\]\([^)]*\)/g, " ")
    .replace(FOOTNOTE_LINK, (_m, before: string, mark: string) =>
      inCell || /[\d%)\]]/.test(before) ? before : `${before}${mark}`,
    )
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\^([^^\s]{1,4})\^/g, (_m, sup: string, offset: number, whole: string) => {
      const prev = whole.slice(Math.max(0, offset - 3), offset);
      const glued = /^[\d,–-]+$/.test(sup) && /[\d%)]$/.test(prev) && !/(^|\D)10$/.test(prev);
      return glued || (inCell && /^[,*†‡§¶#¤a-z]+$/i.test(sup)) ? "" : sup;
    })
    .replace(/~([^~\s]{1,6})~/g, "$1")
    .replace(/\\([\\`*_{}[\]()#+\-.!|<>$~^'"])/g, "$1")
    .replace(/(\*\*|__)(\S(?:.*?\S)?)\1/g, "$2")
    // Shortest emphasis first: "(*n* = 11) or (*n* = 6)" is two italic n's, not one span from the first to the third asterisk.
    .replace(/(^|[^\w*])[*_](\S(?:.*?\S)??)[*_](?=[^\w*]|$)/g, "$1$2")
    .replace(/(^|\s)#{1,6}(?=\s)/g, "$1")
    .replace(/`/g, "");
  if (inCell) out = out.replace(/(\d)\s*\*+$/, "$1").replace(/\*+/g, "");
  return out;
}

const DASH_LINE = /^\s*-{3,}(\s+-{3,})*\s*$/;
const PIPE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const GRID_BORDER = /^\s*\+([-=:]+\+)+\s*$/;

interface Span {
  start: number;
  end: number;
}

function runsOf(line: string): Span[] {
  const spans: Span[] = [];
  const re = /-{3,}/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line))) spans.push({ start: m.index, end: m.index + m[0].length });
  return spans;
}

/**
 * Splits a fixed-width line into cells by column positions. Runs of text separated by two or more
 * spaces (or one space where a column starts) go, left to right, to the column they overlap most;
 * a run that overlaps no column further right goes to the nearest one, so a line shifted by a few
 * characters (pandoc counts some characters differently) still lands in order.
 */
function cellsByPosition(line: string, columns: Span[]): string[] {
  const cells = columns.map(() => "");
  const pieces: { start: number; end: number; text: string }[] = [];
  const re = /\S+(?: \S+)*/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line))) {
    let start = m.index;
    let text = m[0];
    for (let c = 1; c < columns.length; c += 1) {
      const boundary = columns[c].start;
      if (boundary > start && boundary < start + text.length && text[boundary - start - 1] === " ") {
        pieces.push({ start, end: boundary - 1, text: text.slice(0, boundary - start - 1) });
        text = text.slice(boundary - start);
        start = boundary;
      }
    }
    pieces.push({ start, end: start + text.length, text });
  }
  if (pieces.length === columns.length) return pieces.map((piece) => piece.text);
  const statLabel = (text: string) =>
    /^[*_]*\(?\s*(n|%|mean|sd|se|sem|no\.?|χ|median|iqr|95% ci)\s*\)?[*_]*$/i.test(text.trim());
  if (pieces.length === columns.length - 1 && pieces.every((piece) => statLabel(piece.text)))
    return ["", ...pieces.map((piece) => piece.text)];
  let prev = 0;
  let first = true;
  for (const piece of pieces) {
    let best = -1;
    let bestOverlap = 0;
    for (let c = first ? 0 : prev; c < columns.length; c += 1) {
      const overlap = Math.min(piece.end, columns[c].end) - Math.max(piece.start, columns[c].start);
      if (overlap > bestOverlap) {
        bestOverlap = overlap;
        best = c;
      }
    }
    if (best < 0) {
      let distance = Infinity;
      for (let c = first ? 0 : Math.min(prev + 1, columns.length - 1); c < columns.length; c += 1) {
        const d = Math.abs(columns[c].start - piece.start);
        if (d < distance) {
          distance = d;
          best = c;
        }
      }
    }
    if (best < 0) best = columns.length - 1;
    cells[best] = cells[best] ? `${cells[best]} ${piece.text}` : piece.text;
    prev = best;
    first = false;
  }
  return cells;
}

function cleanCells(cells: string[]): RawCell[] {
  return cells.map((text) => ({ text: stripInlineMarkdown(text, true).trim() }));
}

interface TableBlock {
  rows: RawCell[][];
  headerRows: number;
  next: number;
  /** Lines above the column separator that a simple table took as its header. */
  headerLines: number;
}

/** A pandoc simple or multiline table whose column separator is line `sep`. */
function pandocTable(lines: string[], sep: number, top: number | null): TableBlock {
  const columns = runsOf(lines[sep]);
  const headerLines = top !== null ? lines.slice(top + 1, sep) : [];
  if (top === null) {
    let h = sep - 1;
    while (
      h >= 0 &&
      lines[h].trim() !== "" &&
      !/^\s*:::/.test(lines[h]) &&
      !lines[h].startsWith("\u0001") &&
      !DASH_LINE.test(lines[h]) &&
      sep - h <= 3
    ) {
      headerLines.unshift(lines[h]);
      h -= 1;
    }
  }
  const multiline = top !== null;
  let header: string[][];
  if (multiline) {
    const merged = columns.map(() => "");
    const rowsOfHeader = headerLines.map((line) => cellsByPosition(line, columns));
    header =
      rowsOfHeader.length > 1 && rowsOfHeader[0].filter(Boolean).length < rowsOfHeader[1].filter(Boolean).length - 1
        ? rowsOfHeader
        : [
            rowsOfHeader.reduce(
              (acc, row) => acc.map((cell, c) => (row[c] ? (cell ? `${cell} ${row[c]}` : row[c]) : cell)),
              merged,
            ),
          ];
  } else {
    header = headerLines.map((line) => cellsByPosition(line, columns));
  }
  const body: string[][] = [];
  let i = sep + 1;
  let group: string[][] = [];
  const flushGroup = () => {
    if (group.length === 0) return;
    if (multiline)
      body.push(
        group.reduce((acc, row) => acc.map((cell, c) => (row[c] ? (cell ? `${cell} ${row[c]}` : row[c]) : cell))),
      );
    else body.push(...group);
    group = [];
  };
  for (; i < lines.length; i += 1) {
    const line = lines[i];
    if (DASH_LINE.test(line)) {
      i += 1;
      break;
    }
    if (/^\s*:::/.test(line) || line.startsWith("\u0001")) break;
    if (line.trim() === "") {
      if (!multiline && line.length < 2) break;
      flushGroup();
      continue;
    }
    group.push(cellsByPosition(line, columns));
  }
  flushGroup();
  const cleaned = [...header, ...body].map((row) => row.map((text) => stripInlineMarkdown(text, true).trim()));
  const repaired = repairPackedHeader(cleaned, header.length);
  const rows = repaired.rows.map((row) => row.map((text) => ({ text })));
  return { rows, headerRows: repaired.headerRows, next: i, headerLines: top === null ? headerLines.length : 0 };
}

/** Stub labels that head the row-label column(s), never a group of value columns. */
const STUB_LABEL =
  /^(items?|variables?|characteristics?|outcomes?|measures?|parameters?|(possible )?(score )?range|scales?|units?|instruments?|domains?|subscales?|assessments?|endpoints?|end points?)\b/i;
const isValueCell = (cell: string) => /^[\s\d(){}[\]<>≤≥=±+−–\-.,·%*†‡§¶/:;]+$/.test(cell) && /\d/.test(cell);
const patternOf = (cell: string) =>
  cell
    .toLowerCase()
    .replace(/\(?\s*n\s*=\s*[\d,]+\s*\)?/g, "")
    .replace(/[\d\s.,()]+/g, " ")
    .trim();

/**
 * Restores the spanning header of a pandoc fixed-width table. Pandoc drops col- and rowspans: a
 * spanning top cell ("Follow-up; mean ± SD" over Intervention | Control, "T1" over three columns)
 * lands in the first free column, and the row below loses the cells under rowspanned stubs, so it
 * starts too far left ("Intervention | Control | | |" under "Variables | Follow-up | p | ES | ").
 * When the upper row T is packed to the left and the row below S holds labels only, the layout is
 * rebuilt as: T's leading stub cells, then T's group cells each spread over an equal share of S's
 * cells (S must repeat the same pattern under each group, "EP (n = 19) | CACP (n = 24) | P" twice),
 * then comparison columns (p, ES) one each. Where no layout fits, the rows are left as they are.
 */
export function repairPackedHeader(rows: string[][], headerRows: number): { rows: string[][]; headerRows: number } {
  const unchanged = { rows, headerRows };
  if (rows.length < 3) return unchanged;
  const width = rows[0].length;
  let s = Math.max(1, headerRows);
  const labelRow = (row: string[]) =>
    row.filter(Boolean).length >= 2 && row.every((cell) => !cell || (!isValueCell(cell) && /[A-Za-z%χ±]/.test(cell)));
  if (headerRows <= 1 && !labelRow(rows[s])) return unchanged;
  if (headerRows >= 2) s = headerRows - 1;
  const top = rows[s - 1];
  const below = rows[s];
  if (!top || !below || !labelRow(below) || s + 1 >= rows.length) return unchanged;
  const topCells = [top[0], ...top.slice(1).filter(Boolean)];
  const firstBelow = below.findIndex(Boolean);
  const lastBelow = below.reduce((last, cell, c) => (cell ? c : last), -1);
  if (topCells.length < 2 || below.slice(firstBelow, lastBelow + 1).some((cell) => !cell)) return unchanged;
  const shifted = lastBelow < width - 1 && firstBelow === 0;
  if (!shifted && topCells.length === width) return unchanged;
  const labels = shifted ? below.slice(0, lastBelow + 1) : below.slice(Math.max(1, firstBelow), lastBelow + 1);
  const firstComparison = topCells.findIndex((cell, c) => c > 0 && isComparisonLabel(cell));
  const end = firstComparison < 0 ? topCells.length : firstComparison;
  let trailingComparisons = 0;
  while (trailingComparisons < labels.length - 1 && isComparisonLabel(labels[labels.length - 1 - trailingComparisons]))
    trailingComparisons += 1;
  for (let stubs = 1; stubs < end; stubs += 1) {
    const groups = end - stubs;
    const parents = topCells.slice(stubs, end);
    if (stubs < 1 || parents.some((cell) => !cell || STUB_LABEL.test(cell) || isComparisonLabel(cell))) continue;
    for (let q = 0; q <= trailingComparisons; q += 1) {
      const core = labels.slice(0, labels.length - q);
      if (core.length % groups !== 0 || core.length < groups) continue;
      const span = core.length / groups;
      const first = core.slice(0, span).map(patternOf);
      if (!core.every((cell, k) => patternOf(cell) === first[k % span])) continue;
      const trailingTop = topCells.slice(end);
      const total = stubs + labels.length + trailingTop.length;
      if (total > width) continue;
      if (!shifted && firstBelow > stubs) continue;
      if (!shifted && Math.max(1, firstBelow) !== stubs) continue;
      const body = rows.slice(s + 1);
      const statistic = (cell: string) => /^[-−]?\d+(?:[.,·]\d+)?\s*(?:$|±|\(|\[|%)/.test(cell.trim());
      if (stubs > 1 && body.filter((row) => row.slice(1, stubs).some(statistic)).length * 2 > body.length) continue;
      const newTop: string[] = [...topCells.slice(0, stubs)];
      const newBelow: string[] = Array.from({ length: stubs }, (_, c) => (shifted ? "" : below[c]));
      for (const parent of parents) for (let k = 0; k < span; k += 1) newTop.push(parent);
      newBelow.push(...core);
      for (const label of labels.slice(core.length)) {
        newTop.push("");
        newBelow.push(label);
      }
      for (const label of trailingTop) {
        newTop.push(label);
        newBelow.push("");
      }
      while (newTop.length < width) {
        newTop.push("");
        newBelow.push("");
      }
      const out = [...rows];
      out[s - 1] = newTop;
      out[s] = newBelow;
      return { rows: out, headerRows: Math.max(headerRows, s + 1) };
    }
  }
  return unchanged;
}

function pipeCells(line: string): string[] {
  let trimmed = line.trim();
  if (trimmed.startsWith("|")) trimmed = trimmed.slice(1);
  if (trimmed.endsWith("|") && !trimmed.endsWith("\\|")) trimmed = trimmed.slice(0, -1);
  return trimmed.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

function pipeTable(lines: string[], sep: number): TableBlock {
  const header: string[][] = [];
  let h = sep - 1;
  while (h >= 0 && lines[h].includes("|") && !PIPE_SEPARATOR.test(lines[h])) {
    header.unshift(pipeCells(lines[h]));
    h -= 1;
    if (sep - h > 3) break;
  }
  const body: string[][] = [];
  let i = sep + 1;
  for (; i < lines.length && lines[i].includes("|") && lines[i].trim() !== ""; i += 1) body.push(pipeCells(lines[i]));
  const width = Math.max(...[...header, ...body].map((row) => row.length));
  const spread = header.map((row) => Array.from({ length: width }, (_, c) => row[c] ?? ""));
  return { rows: [...spread, ...body].map(cleanCells), headerRows: spread.length, next: i, headerLines: 0 };
}

function gridTable(lines: string[], start: number): TableBlock {
  const border = lines[start];
  const boundaries: number[] = [];
  for (let c = 0; c < border.length; c += 1) if (border[c] === "+") boundaries.push(c);
  const rows: RawCell[][] = [];
  let headerRows = 0;
  let group: string[] = [];
  let i = start + 1;
  for (; i < lines.length; i += 1) {
    const line = lines[i];
    if (GRID_BORDER.test(line)) {
      if (group.length) {
        const cells = boundaries.slice(0, -1).map((b, k) =>
          group
            .map((l) =>
              l
                .slice(b + 1, boundaries[k + 1])
                .replace(/\|/g, " ")
                .trim(),
            )
            .filter(Boolean)
            .join(" "),
        );
        rows.push(cleanCells(cells));
        if (line.includes("=")) headerRows = rows.length;
      }
      group = [];
      continue;
    }
    if (!/^\s*\|/.test(line)) break;
    group.push(line);
  }
  return { rows, headerRows: headerRows || 1, next: i, headerLines: 0 };
}

/**
 * Parses markdown (including pandoc's output from JATS: `::::table-wrap` blocks with a `::: caption`,
 * simple and multiline fixed-width tables, grid tables and pipe tables, footnotes after the table)
 * into a {@link TrialReport}. Also serves plain text and PDF text, whose fixed-width tables are rare.
 */
/** Options of {@link parseMarkdown}. */
export interface MarkdownOptions {
  /**
   * "split": an inline `<figure>` element is a paragraph break and its caption a paragraph (issue 26 round 8's rule 1);
   * "keep" (default): left in the text. Round 8's adoption rule did not keep the split (docs/methods/arm-extraction.md).
   */
  inlineFigures?: "split" | "keep";
  /**
   * "join": a body row's label spread over several stub (label) columns is read as one label, see
   * {@link joinStubColumns} (issue 26 round 13); "first": the cells stay as the converter wrote them. Default:
   * STUB_COLUMNS_DEFAULT.
   */
  stubColumns?: "join" | "first";
}

/** The product's default of {@link MarkdownOptions.stubColumns}: "join", adopted in issue 26 round 14 (docs/methods/arm-extraction.md "Round 14"). */
export const STUB_COLUMNS_DEFAULT: "join" | "first" = "join";

/** A stub (row-label) cell: words, not a value, not a missing-value mark ("NR", "n/a", "-"). */
const isStubCell = (cell: string) =>
  /[A-Za-z]{3,}/.test(cell) &&
  !isValueCell(cell) &&
  !/^\(?\s*(n\/?a|nr|nd|ns|n\.s\.|none|not (reported|done|applicable|available|estimable))\s*\)?$/i.test(cell.trim());

/**
 * Row labels spread over several stub columns (issue 26 round 13, family: tables whose rows are labelled by two
 * label columns, "Hydronephrosis | left kidney | 52 (43.3 %) | …", "Pain | Week 4 | …", the outer label written once
 * over the rows it spans). A body row's stub is its leading label cells; an empty first cell followed by a label cell
 * belongs to the stub and stands for the outer label of the row above (a row-spanning cell). Only rows holding at least
 * two value cells are rows with a stub width. Two layouts are rewritten, every other table is returned unchanged:
 *
 * - every such row has the same stub width K ≥ 2 and no value lies left of column K, and no row runs past the header's
 *   last label: the first K columns are joined, in the header and in every row, into one label column;
 * - the header is packed left (its labels end d ≥ 1 columns before the table's last column) and exactly the rows with
 *   stub width 1 + d run past it, each by d: those rows' stubs are joined and their values moved d columns left, under
 *   the header's labels; rows with stub width 1 stay.
 *
 * The outer label is carried down the rows it spans ("Hydronephrosis right kidney"). A mix of stub widths that fits
 * neither layout is ambiguous and left as it is. Pure; returns a new grid.
 */
export function joinStubColumns(rows: string[][], headerRows: number): string[][] {
  const width = rows[0]?.length ?? 0;
  const body = rows.slice(headerRows);
  if (width < 3 || headerRows < 1 || body.length < 2) return rows;
  const values = (row: string[]) => row.filter((cell) => isValueCell(cell)).length;
  const stubWidth = (row: string[], r: number) => {
    let k = 0;
    if (row[0] === "" && r > 0 && isStubCell(row[1] ?? "")) k = 1;
    while (k < width && isStubCell(row[k] ?? "")) k += 1;
    return k;
  };
  const lastFilled = (row: string[]) => row.reduce((last, cell, c) => (cell ? c : last), -1);
  const headerEnd = Math.max(...rows.slice(0, headerRows).map(lastFilled));
  const data = body.map((row, r) => ({ r, row, k: stubWidth(row, r) })).filter(({ row }) => values(row) >= 2);
  if (data.length < 2 || data.some(({ k, row }) => k < 1 || row.slice(0, k).some((cell) => isValueCell(cell))))
    return rows;
  const widths = new Set(data.map(({ k }) => k));
  const outer: string[] = [];
  let carried = "";
  body.forEach((row, r) => {
    if (row[0]) carried = row[0];
    outer[r] = row[0] || (isStubCell(row[1] ?? "") && r > 0 ? carried : "");
  });
  const label = (row: string[], r: number, k: number) => [outer[r], ...row.slice(1, k)].filter(Boolean).join(" ");
  if (widths.size === 1) {
    const [k] = [...widths];
    if (k < 2 || data.some(({ row }) => lastFilled(row) > headerEnd)) return rows;
    const head = rows
      .slice(0, headerRows)
      .map((row) => [row.slice(0, k).filter(Boolean).join(" "), ...row.slice(k), ...Array<string>(k - 1).fill("")]);
    const rest = body.map((row, r) => [
      stubWidth(row, r) >= 1 ? label(row, r, Math.min(k, Math.max(1, stubWidth(row, r)))) : row[0],
      ...row.slice(k),
      ...Array<string>(k - 1).fill(""),
    ]);
    return [...head, ...rest];
  }
  const d = width - 1 - headerEnd;
  if (d < 1 || widths.size !== 2 || !widths.has(1) || !widths.has(1 + d)) return rows;
  const over = data.filter(({ row }) => lastFilled(row) > headerEnd);
  if (over.length === 0 || over.some(({ k }) => k !== 1 + d)) return rows;
  if (data.some(({ k, row }) => (k === 1 ? lastFilled(row) > headerEnd : lastFilled(row) < 1 + d))) return rows;
  const moved = new Set(data.filter(({ k }) => k === 1 + d).map(({ r }) => r));
  return [
    ...rows.slice(0, headerRows),
    ...body.map((row, r) =>
      moved.has(r) ? [label(row, r, 1 + d), ...row.slice(1 + d), ...Array<string>(d).fill("")] : row,
    ),
  ];
}

/**
 * An inline HTML figure (`<figure> <p><img …/></p> <figcaption>…</figcaption> </figure>`) inside a paragraph, at most
 * 4000 characters long. Family (issue 26 round 8): markdown converted from JATS or HTML that keeps each figure where it
 * was cited, between two results sentences; left in place, its markup and caption glue the sentence before it to the
 * one after it (the splitter needs a capital letter after a full stop), so neither is read as one sentence.
 */
const INLINE_FIGURE = /<figure\b[^>]*>([\s\S]{0,4000}?)<\/figure>/gi;

/** The figure's caption text (its `<figcaption>`, tags dropped) between blank lines: a paragraph of its own. */
function splitInlineFigure(_m: string, inner: string): string {
  const caption = /<figcaption\b[^>]*>([\s\S]*?)<\/figcaption>/i.exec(inner)?.[1] ?? "";
  const text = caption
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return text ? `\n\n${text}\n\n` : "\n\n";
}

/**
 * Parses pandoc-style markdown (prose, `::::table-wrap` blocks with captions and footnotes, fixed-width, pipe and
 * grid tables) into the document model. With `inlineFigures: "split"` an inline `<figure>` element ends its paragraph
 * (see INLINE_FIGURE).
 */
export function parseMarkdown(markdown: string, options: MarkdownOptions = {}): TrialReport {
  const builder = new ReportBuilder();
  const figures = options.inlineFigures === "split" ? markdown.replace(INLINE_FIGURE, splitInlineFigure) : markdown;
  const source = figures
    .replace(/\r\n?/g, "\n")
    .replace(/[\u00a0\u2000-\u200a\u202f\u3000]/g, " ")
    .replace(/:{4}\s*table-wrap/g, "\n\u0001TABLE\n")
    .replace(/(^|[^:]):{4}(?!:)/g, "$1\n\u0001END\n");
  const lines = source.split("\n");
  const rowsOf = (table: TableBlock): RawCell[][] =>
    (options.stubColumns ?? STUB_COLUMNS_DEFAULT) === "join"
      ? joinStubColumns(
          table.rows.map((row) => row.map((cell) => cell.text)),
          // A table with no header row takes its first row (buildTable).
          Math.max(1, table.headerRows),
        ).map((row) => row.map((text) => ({ text })))
      : table.rows;
  let section = "";
  let paragraph: string[] = [];
  let caption: string[] | null = null;
  let wrap: { caption: string; footnotes: string[]; tables: TableBlock[] } | null = null;
  const flush = () => {
    const raw = paragraph.join(" ");
    const text = stripInlineMarkdown(raw);
    paragraph = [];
    if (!text.trim()) return;
    if (wrap) wrap.footnotes.push(text);
    else {
      const heading = /^\s*#{1,6}\s+([A-Z][\w-]*(?: [A-Z][\w-]*){0,3})/.exec(raw);
      if (heading) section = heading[1];
      builder.addParagraph(section, text);
    }
  };
  const closeWrap = () => {
    flush();
    if (!wrap) return;
    const label = /^(table\s+[\w.-]+)[.:]?\s*/i.exec(wrap.caption);
    for (const table of wrap.tables) {
      builder.addTable({
        label: label ? label[1] : undefined,
        caption: wrap.caption,
        rows: rowsOf(table),
        headerRows: table.headerRows,
        footnotes: wrap.footnotes,
      });
    }
    if (wrap.tables.length === 0 && wrap.caption) builder.addParagraph(section, wrap.caption);
    wrap = null;
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    if (line === "\u0001TABLE") {
      flush();
      closeWrap();
      wrap = { caption: "", footnotes: [], tables: [] };
      continue;
    }
    if (line === "\u0001END") {
      closeWrap();
      continue;
    }
    if (caption) {
      if (/^\s*:::\s*$/.test(line)) {
        const text = stripInlineMarkdown(caption.join(" "));
        if (wrap) wrap.caption = text;
        else builder.addParagraph(section, text);
        caption = null;
      } else caption.push(line);
      continue;
    }
    if (/^\s*:::+\s*caption\s*$/.test(line)) {
      flush();
      caption = [];
      continue;
    }
    if (/^\s*:::+\s*[\w-]*\s*$/.test(line)) {
      flush();
      continue;
    }
    let block: TableBlock | null = null;
    if (DASH_LINE.test(line)) {
      const runs = runsOf(line);
      if (runs.length > 1) {
        block = pandocTable(lines, i, null);
        paragraph = paragraph.slice(0, Math.max(0, paragraph.length - block.headerLines));
        flush();
      } else {
        let j = i + 1;
        while (j < lines.length && j - i < 8 && !DASH_LINE.test(lines[j])) j += 1;
        if (j < lines.length && DASH_LINE.test(lines[j]) && runsOf(lines[j]).length > 1) {
          flush();
          block = pandocTable(lines, j, i);
        } else if (j < lines.length && DASH_LINE.test(lines[j])) {
          flush();
          block = pandocTable(lines, j, null);
        }
      }
    } else if (PIPE_SEPARATOR.test(line) && line.includes("|") && i > 0 && lines[i - 1].includes("|")) {
      paragraph = paragraph.filter((p) => !p.includes("|"));
      flush();
      block = pipeTable(lines, i);
    } else if (GRID_BORDER.test(line)) {
      flush();
      block = gridTable(lines, i);
    }
    if (block) {
      if (wrap) wrap.tables.push(block);
      else builder.addTable({ rows: rowsOf(block), headerRows: block.headerRows, caption: "" });
      i = block.next - 1;
      continue;
    }
    if (line.trim() === "") {
      flush();
      continue;
    }
    paragraph.push(line);
  }
  closeWrap();
  flush();
  return builder.build();
}
