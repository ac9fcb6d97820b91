import { parseDocument } from "htmlparser2";
import type { ChildNode, Element } from "domhandler";
import { type RawCell, ReportBuilder, type TrialReport } from "./model.ts";

const SKIP = new Set(["script", "style", "noscript", "template", "svg", "nav", "header", "footer", "figure", "img"]);
const BLOCK = new Set(["p", "li", "blockquote", "dd", "dt", "pre", "figcaption"]);
const HEADING = /^h[1-6]$/;

function isElement(node: ChildNode): node is Element {
  return node.type === "tag" || node.type === "script" || node.type === "style";
}

function textOf(nodes: ChildNode[], inCell = false): string {
  let out = "";
  for (const node of nodes) {
    if (node.type === "text") out += node.data;
    else if (isElement(node)) {
      const name = node.name.toLowerCase();
      if (SKIP.has(name)) continue;
      if (name === "br") out += " ";
      else if (inCell && name === "sup") {
        const text = textOf(node.children, inCell);
        if (!/^[\s,*†‡§¶#¤a-z]{1,4}$/i.test(text.trim())) out += text;
      } else {
        const text = textOf(node.children, inCell);
        out += BLOCK.has(name) || name === "div" || name === "td" || name === "th" ? ` ${text} ` : text;
      }
    }
  }
  return out;
}

function elements(nodes: ChildNode[], name: string, out: Element[] = [], stopAt?: string): Element[] {
  for (const node of nodes) {
    if (!isElement(node)) continue;
    const tag = node.name.toLowerCase();
    if (tag === name) out.push(node);
    else if (tag !== stopAt) elements(node.children, name, out, stopAt);
  }
  return out;
}

function tableInput(table: Element): { rows: RawCell[][]; headerRows?: number; caption: string } {
  const rows: RawCell[][] = [];
  let headerRows = 0;
  const captionEl = elements(table.children, "caption", [], "table")[0];
  const visit = (nodes: ChildNode[], inHead: boolean) => {
    for (const node of nodes) {
      if (!isElement(node)) continue;
      const tag = node.name.toLowerCase();
      if (tag === "table") continue;
      if (tag === "thead") visit(node.children, true);
      else if (tag === "tbody" || tag === "tfoot") visit(node.children, false);
      else if (tag === "tr") {
        const cells = node.children
          .filter((cell): cell is Element => isElement(cell) && /^t[dh]$/i.test(cell.name))
          .map((cell) => ({
            text: textOf(cell.children, true),
            colspan: Number(cell.attribs.colspan ?? 1) || 1,
            rowspan: Number(cell.attribs.rowspan ?? 1) || 1,
            header: inHead || cell.name.toLowerCase() === "th",
          }));
        if (inHead && rows.length === headerRows) headerRows += 1;
        rows.push(cells);
      }
    }
  };
  visit(table.children, false);
  return { rows, headerRows: headerRows || undefined, caption: captionEl ? textOf(captionEl.children) : "" };
}

/**
 * Parses an HTML article (a publisher page, PMC's HTML view or an exported document) with
 * htmlparser2 into a {@link TrialReport}: headings name sections, block elements become
 * paragraphs, <table> elements become tables (caption, <thead>/<th> header rows, colspan and
 * rowspan expanded); a paragraph right after a table that starts like a footnote is kept as its note.
 */
export function parseHtml(html: string): TrialReport {
  const builder = new ReportBuilder();
  const doc = parseDocument(html, { decodeEntities: true });
  let section = "";
  let inline = "";
  const flush = () => {
    if (inline.trim()) builder.addParagraph(section, inline);
    inline = "";
  };
  const walk = (nodes: ChildNode[]) => {
    for (const node of nodes) {
      if (node.type === "text") {
        inline += node.data;
        continue;
      }
      if (!isElement(node)) continue;
      const name = node.name.toLowerCase();
      if (SKIP.has(name)) continue;
      if (HEADING.test(name)) {
        flush();
        section = textOf(node.children).trim();
        builder.addParagraph(section, section);
      } else if (name === "table") {
        flush();
        const input = tableInput(node);
        builder.addTable({ label: undefined, caption: input.caption, rows: input.rows, headerRows: input.headerRows });
      } else if (BLOCK.has(name)) {
        flush();
        if (elements(node.children, "table").length) walk(node.children);
        else builder.addParagraph(section, textOf(node.children));
      } else if (
        name === "div" ||
        name === "section" ||
        name === "article" ||
        name === "main" ||
        name === "body" ||
        name === "html" ||
        name === "ul" ||
        name === "ol" ||
        name === "dl"
      ) {
        flush();
        walk(node.children);
        flush();
      } else {
        inline += textOf([node]);
      }
    }
  };
  walk(doc.children);
  flush();
  return builder.build();
}
