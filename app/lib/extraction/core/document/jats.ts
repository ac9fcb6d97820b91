import { XMLParser } from "fast-xml-parser";
import { type RawCell, ReportBuilder, type TrialReport } from "./model.ts";

/** A node of fast-xml-parser's `preserveOrder` output: one tag name → children, plus ":@" attributes. */
type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  trimValues: false,
  processEntities: true,
  htmlEntities: true,
  parseTagValue: false,
  parseAttributeValue: false,
});

const BLOCK_TAGS = new Set(["p", "list-item", "disp-quote", "statement", "boxed-text", "def-item"]);
const SKIP_TAGS = new Set([
  "ref-list",
  "fig",
  "graphic",
  "media",
  "supplementary-material",
  "object-id",
  "alternatives-image",
]);

function tagOf(node: XmlNode): string {
  for (const key of Object.keys(node)) if (key !== ":@") return key;
  return "";
}

function childrenOf(node: XmlNode): XmlNode[] {
  const value = node[tagOf(node)];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
}

function attr(node: XmlNode, name: string): string | undefined {
  const attrs = node[":@"] as Record<string, string> | undefined;
  return attrs?.[name];
}

/** Inline text of a node; in table cells footnote markers (short <sup>, <xref>) are dropped. */
function inlineText(nodes: XmlNode[], inCell = false): string {
  let out = "";
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === "#text") out += String(node["#text"]);
    else if (tag === "break") out += " ";
    else if (SKIP_TAGS.has(tag)) continue;
    else if (inCell && tag === "xref") continue;
    else if (inCell && tag === "sup") {
      const text = inlineText(childrenOf(node), inCell);
      if (/^[\s,*†‡§¶#¤a-z]{1,4}$/i.test(text.trim())) continue;
      out += text;
    } else {
      const text = inlineText(childrenOf(node), inCell);
      out += BLOCK_TAGS.has(tag) || tag === "title" ? ` ${text} ` : text;
    }
  }
  return out;
}

function findAll(nodes: XmlNode[], tag: string, out: XmlNode[] = []): XmlNode[] {
  for (const node of nodes) {
    if (tagOf(node) === tag) out.push(node);
    else findAll(childrenOf(node), tag, out);
  }
  return out;
}

function tableRows(table: XmlNode): { rows: RawCell[][]; headerRows: number } {
  const rows: RawCell[][] = [];
  let headerRows = 0;
  const visit = (nodes: XmlNode[], inHead: boolean) => {
    for (const node of nodes) {
      const tag = tagOf(node);
      if (tag === "thead") visit(childrenOf(node), true);
      else if (tag === "tbody" || tag === "tfoot") visit(childrenOf(node), false);
      else if (tag === "tr") {
        const cells = childrenOf(node)
          .filter((cell) => tagOf(cell) === "td" || tagOf(cell) === "th")
          .map((cell) => ({
            text: inlineText(childrenOf(cell), true),
            colspan: Number(attr(cell, "colspan") ?? 1) || 1,
            rowspan: Number(attr(cell, "rowspan") ?? 1) || 1,
            header: inHead || tagOf(cell) === "th",
          }));
        if (inHead && rows.length === headerRows) headerRows += 1;
        rows.push(cells);
      }
    }
  };
  visit(childrenOf(table), false);
  return { rows, headerRows };
}

/**
 * Parses JATS XML (a full <article> or, as PMC serves parts, a run of <abstract>/<sec> elements) into
 * a {@link TrialReport}: section titles, paragraphs in document order, and each <table-wrap> with
 * its label, caption, header rows (<thead>, or <th> rows), body rows and <table-wrap-foot> notes.
 * Throws an Error when the XML cannot be parsed.
 */
export function parseJats(xml: string): TrialReport {
  const builder = new ReportBuilder();
  const tree = parser.parse(xml) as XmlNode[];
  const walk = (nodes: XmlNode[], section: string) => {
    for (const node of nodes) {
      const tag = tagOf(node);
      if (tag === "#text" || tag === "?xml" || SKIP_TAGS.has(tag)) continue;
      if (tag === "front" || tag === "back") {
        walk(findAll(childrenOf(node), "abstract"), "Abstract");
        continue;
      }
      if (tag === "sec" || tag === "abstract" || tag === "body" || tag === "article") {
        const kids = childrenOf(node);
        const title = kids.find((kid) => tagOf(kid) === "title");
        const name = title ? inlineText(childrenOf(title)).trim() : tag === "abstract" ? "Abstract" : section;
        walk(
          kids.filter((kid) => kid !== title),
          name || section,
        );
      } else if (tag === "table-wrap") {
        const kids = childrenOf(node);
        const label = kids.find((kid) => tagOf(kid) === "label");
        const caption = kids.find((kid) => tagOf(kid) === "caption");
        const foot = findAll(kids, "table-wrap-foot");
        const footnotes: string[] = [];
        for (const f of foot) {
          const fns = findAll(childrenOf(f), "fn");
          if (fns.length) for (const fn of fns) footnotes.push(inlineText(childrenOf(fn)));
          else footnotes.push(inlineText(childrenOf(f)));
        }
        const tables = findAll(kids, "table");
        if (tables.length === 0) {
          const text = `${label ? inlineText(childrenOf(label)) : ""} ${caption ? inlineText(childrenOf(caption)) : ""} ${footnotes.join(" ")}`;
          builder.addParagraph(section, text);
        }
        for (const table of tables) {
          const { rows, headerRows } = tableRows(table);
          builder.addTable({
            label: label ? inlineText(childrenOf(label)) : undefined,
            caption: caption ? inlineText(childrenOf(caption)) : "",
            rows,
            headerRows: headerRows || undefined,
            footnotes,
          });
        }
      } else if (tag === "p" && childrenOf(node).some((kid) => tagOf(kid) === "table-wrap")) {
        const kids = childrenOf(node);
        builder.addParagraph(section, inlineText(kids.filter((kid) => tagOf(kid) !== "table-wrap")));
        walk(
          kids.filter((kid) => tagOf(kid) === "table-wrap"),
          section,
        );
      } else if (BLOCK_TAGS.has(tag) || tag === "title") {
        builder.addParagraph(section, inlineText(childrenOf(node)));
      } else {
        walk(childrenOf(node), section);
      }
    }
  };
  walk(tree, "");
  return builder.build();
}
