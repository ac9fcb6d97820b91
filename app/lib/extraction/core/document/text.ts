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

/** A row whose first cell is data: its label wrapped onto the lines above it (BMJ), or a blank stub. */
function isDataFirst(cells: string[]): boolean {
  return DATA_CELL.test(cells[0].trim());
}

/** At line `k`: a run of at most 3 short one-cell lines (section rows, a wrapped row label), then a table row. */
function rowsResume(lines: string[], k: number): boolean {
  let m = k;
  while (m < lines.length && m - k < 3 && isSectionRow(lines[m])) m += 1;
  return m > k && m < lines.length && isTableLine(lines[m]);
}

/** A one-cell line that continues the line above it: it opens with "(", "[" or a lower-case letter. */
function isContinuation(line: string): boolean {
  return /^[([a-z]/.test(line.trim());
}

/**
 * A header stacked one cell per line (a PDF header whose cells wrap): a continuation line continues the cell above
 * ("Physical activity group" + "(n=392)"; "Odds ratio (95% CI)" + "with basic adjustment").
 */
function stackedHeader(cells: string[]): string[] {
  const out: string[] = [];
  for (const cell of cells) {
    if (out.length && isContinuation(cell)) out[out.length - 1] += ` ${cell}`;
    else out.push(cell);
  }
  return out;
}

/**
 * The table of lines [i, j) of a text (`parseText`) and the paragraph lines above it (`paragraph`, with their line
 * numbers; `used` returns those the table took). Rows: one-cell lines are section rows, or, before a row whose first
 * cell is data, that row's wrapped label. Header, in this order: the first line when it holds no data (one-cell lines
 * continuing it are dropped); the nearest header line within {@link HEADER_REACH} lines above; a header stacked one
 * cell per line right above the rows (after the caption and its continuation lines, or under a spanning header line,
 * which becomes a first header row with equal spans), taken only when its cells fill the body's width or all but
 * the stub. Caption: the nearest "Table N" line above (within {@link CAPTION_REACH_ABOVE} lines), else below.
 */
function textTable(
  lines: string[],
  i: number,
  j: number,
  paragraph: { line: string; at: number }[],
  caption: { text: string; at: number } | null,
): { rows: RawCell[][]; headerRows: number; caption: string; label?: string; used: Set<number> } {
  const used = new Set<number>();
  const at = new Map(paragraph.map((p) => [p.at, p.line.trim()]));
  const first = cellsOf(lines[i]);
  const headerFirst = isHeaderLine(lines[i]);
  const lead: string[][] = [];
  let firstLabel = "";
  let top = i;
  if (!headerFirst && isDataFirst(first)) {
    // The first row's label wrapped onto the lines right above it, up to a section row ending with a colon.
    const label: string[] = [];
    for (let k = i - 1; at.has(k) && isSectionRow(at.get(k)!) && label.length < 3; k -= 1) {
      top = k;
      used.add(k);
      if (/:\s*$/.test(at.get(k)!)) {
        lead.push([at.get(k)!]);
        break;
      }
      label.unshift(at.get(k)!);
    }
    firstLabel = label.join(" ");
  } else if (!headerFirst && at.has(i - 1) && isSectionRow(at.get(i - 1)!) && !isContinuation(at.get(i - 1)!)) {
    lead.push([at.get(i - 1)!]);
    used.add(i - 1);
    top = i - 1;
  }
  const body: string[][] = [...lead];
  let pending: string[] = [];
  const sections = () => {
    for (const line of pending) body.push([line]);
    pending = [];
  };
  let k = headerFirst ? i + 1 : i;
  if (headerFirst) while (k < j && cellsOf(lines[k]).length === 1 && isContinuation(lines[k])) k += 1;
  for (; k < j; k += 1) {
    const cells = cellsOf(lines[k]);
    if (cells.length === 1) {
      if (/:\s*$/.test(cells[0])) {
        sections();
        body.push(cells);
      } else pending.push(cells[0]);
      continue;
    }
    if (isDataFirst(cells)) {
      body.push([k === i ? firstLabel : pending.join(" "), ...cells]);
      pending = [];
    } else {
      sections();
      body.push(cells);
    }
  }
  sections();
  const width = Math.max(...body.map((cells) => cells.length));
  const header: string[][] = [];
  if (headerFirst) header.push(alignHeader(first, width));
  else {
    const line = [...at].filter(([n, l]) => n < top && n >= i - HEADER_REACH && isHeaderLine(l)).pop();
    if (line) {
      header.push(alignHeader(cellsOf(line[1]), width));
      used.add(line[0]);
    } else {
      // A header stacked one cell per line right above the rows.
      const stack: number[] = [];
      for (let n = top - 1; at.has(n) && isSectionRow(at.get(n)!) && stack.length < 16; n -= 1) stack.unshift(n);
      // Anchored: right under the caption (after its continuation lines) or under a spanning header line.
      const afterCaption = caption !== null && stack.length > 0 && stack[0] === caption.at + 1;
      const span = stack.length ? at.get(stack[0] - 1) : undefined;
      const spanning = span && isHeaderLine(span) ? cellsOf(span) : null;
      if (afterCaption) while (stack.length && isContinuation(at.get(stack[0])!)) stack.shift();
      const cells = stackedHeader(stack.map((n) => at.get(n)!));
      if ((afterCaption || spanning) && stack.length >= 2 && (cells.length === width || cells.length === width - 1)) {
        if (
          spanning &&
          cells.length === width - 1 &&
          spanning.length < cells.length &&
          cells.length % spanning.length === 0
        ) {
          header.push([
            "",
            ...spanning.flatMap((cell) => [cell, ...Array<string>(cells.length / spanning.length - 1).fill(cell)]),
          ]);
          used.add(stack[0] - 1);
        }
        header.push(alignHeader(cells, width));
        for (const n of stack) used.add(n);
      }
    }
  }
  const rows: RawCell[][] = [...header, ...body].map((cells) => cells.map((cell) => ({ text: cell })));
  let tableCaption = caption && top - caption.at <= CAPTION_REACH_ABOVE ? caption.text : "";
  if (!tableCaption) {
    for (let n = j; n < Math.min(lines.length, j + CAPTION_REACH_BELOW); n += 1) {
      if (isTableLine(lines[n])) break;
      if (CAPTION.test(lines[n])) {
        tableCaption = lines[n].trim();
        break;
      }
    }
  }
  return {
    rows,
    headerRows: Math.max(1, header.length),
    caption: tableCaption,
    label: /^(table\s+\d+)/i.exec(tableCaption)?.[1],
    used,
  };
}

/**
 * Parses plain text (typed, pasted, or extracted from a PDF by unpdf) into a {@link TrialReport}.
 * Paragraphs are separated by blank lines (single line breaks inside a paragraph are joined, with
 * hyphenation at a line end undone). A run of three or more lines, two or more of them with cells
 * separated by two or more spaces or tabs (the PDF reader's column gaps, ADR 0046), becomes a table:
 * short one-cell lines between its rows are section rows or a row's wrapped label; its header, rows and
 * caption are found as {@link textTable} says.
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
      let dataLines = 0;
      while (
        j < lines.length &&
        (isTableLine(lines[j]) || (lines[j].trim() && cellsOf(lines[j]).length >= 2) || (j > i && rowsResume(lines, j)))
      ) {
        if (cellsOf(lines[j]).length >= 2) dataLines += 1;
        j += 1;
      }
      if (j - i >= 3 && dataLines >= 2) {
        const table = textTable(lines, i, j, paragraph, caption);
        paragraph = paragraph.filter((p) => !table.used.has(p.at));
        flush();
        builder.addTable({
          label: table.label,
          caption: table.caption,
          rows: table.rows,
          headerRows: table.headerRows,
        });
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
