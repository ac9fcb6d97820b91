import { html as parse5Html, parse, serializeOuter, type DefaultTreeAdapterTypes } from "parse5";
import sanitizeHtml from "sanitize-html";

type Element = DefaultTreeAdapterTypes.Element;
type ParentNode = DefaultTreeAdapterTypes.ParentNode;
type ChildNode = DefaultTreeAdapterTypes.ChildNode;

/**
 * HTML allowed in saved reports and HTML exports: the document and text tags sanitize-html allows
 * by default, plus `<style>` blocks, inline `style` attributes and inline SVG (forest, funnel and
 * PRISMA plots). Scripts, event-handler attributes, iframes, forms, MathML, SVG `<style>` and
 * `<foreignObject>`, and URLs other than http(s)/mailto (and data:image on <img>) are removed.
 *
 * Two stages, repeated until the output no longer changes (so sanitizing twice changes nothing):
 * 1. sanitize-html's allow-list (tags, attributes, URL schemes);
 * 2. the same allow-list enforced on the tree a browser builds (parse5, the WHATWG parsing
 *    algorithm). sanitize-html's parser (htmlparser2) does not implement foreign content, so
 *    `<svg><style><img onerror>` is text to it but an `<img>` to a browser (mutation XSS, cure53's
 *    DOMPurify research). Stage 2 removes every element whose namespace does not fit its parent
 *    (HTML inside SVG, any MathML), raw-text elements other than a markup-free `<style>`,
 *    comments, and attribute values that could close an element if re-parsed elsewhere.
 * Reports are also shown in a sandboxed iframe without `allow-scripts` and exported under a
 * script-free CSP (defence in depth).
 */
const SVG_TAGS = [
  "svg",
  "g",
  "path",
  "rect",
  "circle",
  "ellipse",
  "line",
  "polyline",
  "polygon",
  "text",
  "tspan",
  "defs",
  "title",
  "desc",
  "lineargradient",
  "radialgradient",
  "stop",
  "clippath",
  "marker",
  "symbol",
  "pattern",
  "mask",
];

const SVG_ATTRIBUTES = [
  "viewbox",
  "viewBox",
  "xmlns",
  "width",
  "height",
  "x",
  "y",
  "x1",
  "y1",
  "x2",
  "y2",
  "cx",
  "cy",
  "r",
  "rx",
  "ry",
  "d",
  "points",
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-dasharray",
  "stroke-linecap",
  "stroke-linejoin",
  "stroke-opacity",
  "opacity",
  "transform",
  "text-anchor",
  "dominant-baseline",
  "font-size",
  "font-family",
  "font-weight",
  "dx",
  "dy",
  "offset",
  "stop-color",
  "stop-opacity",
  "preserveAspectRatio",
  "preserveaspectratio",
  "clip-path",
  "marker-end",
  "marker-start",
  "markerWidth",
  "markerHeight",
  "refX",
  "refY",
  "orient",
  "role",
  "aria-label",
  "aria-hidden",
];

const HTML_TAGS = [
  ...sanitizeHtml.defaults.allowedTags,
  "html",
  "head",
  "body",
  "meta",
  "title",
  "style",
  "img",
  "section",
  "header",
  "footer",
  "figure",
  "figcaption",
  "sup",
  "sub",
  "label",
];

const GLOBAL_ATTRIBUTES = [
  "style",
  "class",
  "id",
  "title",
  "lang",
  "dir",
  "colspan",
  "rowspan",
  "align",
  "scope",
  "role",
  "data-*",
  "aria-*",
];
const HTML_ATTRIBUTES: Record<string, string[]> = {
  a: ["href", "name", "target", "rel"],
  // A scrolling region (a forest plot on a narrow screen) is focusable so the keyboard can scroll it.
  div: ["tabindex"],
  figure: ["tabindex"],
  img: ["src", "alt", "width", "height"],
  meta: ["charset", "name", "content"],
};

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...HTML_TAGS, ...SVG_TAGS],
  // <style> is on the list on purpose: reports carry their print styles. Stage 2 keeps a <style>
  // only in the HTML namespace and only when its text holds no markup.
  allowVulnerableTags: true,
  allowedAttributes: {
    "*": GLOBAL_ATTRIBUTES,
    ...HTML_ATTRIBUTES,
    ...Object.fromEntries(SVG_TAGS.map((tag) => [tag, SVG_ATTRIBUTES])),
  },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["http", "https", "data"] },
  parser: { lowerCaseAttributeNames: false },
};

const NS = parse5Html.NS;
const HTML_TAG_SET = new Set(HTML_TAGS);
const SVG_TAG_SET = new Set(SVG_TAGS);
const SVG_ATTRIBUTE_SET = new Set(SVG_ATTRIBUTES.map((a) => a.toLowerCase()));
const GLOBAL_ATTRIBUTE_SET = new Set(GLOBAL_ATTRIBUTES.filter((a) => !a.endsWith("*")));

/** A global attribute: on the list, or data-* / aria-* with a plain name. */
function globalAttribute(name: string): boolean {
  return GLOBAL_ATTRIBUTE_SET.has(name) || /^(data|aria)-[a-z0-9_.-]+$/.test(name);
}
/** Elements removed with everything inside them (their content is code, raw text or a form control). */
const DROP_WITH_CONTENT = new Set([
  "script",
  "style",
  "template",
  "noscript",
  "textarea",
  "xmp",
  "iframe",
  "noembed",
  "noframes",
  "plaintext",
  "object",
  "embed",
  "applet",
  "select",
  "option",
  "optgroup",
  "button",
  "input",
  "frameset",
  "frame",
  "base",
  "link",
  "svg",
  "math",
  "title",
]);
/** Markup or comment delimiters in an attribute value (DOMPurify's SAFE_FOR_XML rule, widened). */
const MARKUP_IN_VALUE = /<[/!?a-z]|-->|]]>/i;
/** CSS that runs code or loads a resource in some engine. */
const UNSAFE_CSS = /expression\s*\(|javascript:|vbscript:|-moz-binding|behavior\s*:|@import/i;
const URL_SCHEMES: Record<string, RegExp> = {
  href: /^(https?|mailto):/i,
  src: /^(https?:|data:image\/(png|gif|jpe?g|webp|avif|bmp);)/i,
};
/** At most this many rounds; real documents settle in two. */
const MAX_ROUNDS = 6;

/** The URL as a browser resolves it: entities already decoded by the parser; controls and whitespace dropped. */
function normaliseUrl(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u0020\u007f-\u009f]+/g, "");
}

function allowedAttribute(el: Element, name: string, value: string): boolean {
  if (MARKUP_IN_VALUE.test(value)) return false;
  if (name === "style") return !UNSAFE_CSS.test(value);
  if (el.namespaceURI === NS.SVG) return SVG_ATTRIBUTE_SET.has(name) || globalAttribute(name);
  if (!globalAttribute(name) && !HTML_ATTRIBUTES[el.tagName]?.includes(name)) return false;
  if (name === "tabindex") return value === "0" || value === "-1";
  const scheme = URL_SCHEMES[name];
  if (!scheme) return true;
  const url = normaliseUrl(value);
  // A relative URL has no scheme before its first '/', '?' or '#'.
  return scheme.test(url) || !/^[^/?#]*:/.test(url);
}

function cleanAttributes(el: Element): void {
  el.attrs = el.attrs.filter((attr) =>
    attr.namespace
      ? attr.namespace === NS.XMLNS && attr.name === "xmlns" && attr.value === NS.SVG
      : allowedAttribute(el, attr.name.toLowerCase(), attr.value),
  );
  if (el.tagName === "a" && el.attrs.some((a) => a.name === "target")) {
    el.attrs = el.attrs.filter((a) => a.name !== "rel");
    el.attrs.push({ name: "rel", value: "noopener noreferrer" });
  }
}

function textOnly(el: Element): string | null {
  let text = "";
  for (const child of el.childNodes) {
    if (child.nodeName !== "#text") return null;
    text += (child as DefaultTreeAdapterTypes.TextNode).value;
  }
  return text;
}

type Verdict = "keep" | "unwrap" | "drop";

/** Where an element may stay, judged on the browser's tree (namespace and parent). */
function verdict(el: Element, parent: ParentNode): Verdict {
  const parentNs = "namespaceURI" in parent ? parent.namespaceURI : NS.HTML;
  if (el.namespaceURI === NS.SVG) {
    const tag = el.tagName.toLowerCase();
    if (!SVG_TAG_SET.has(tag) || tag === "style") return "drop";
    if (tag === "svg") return parentNs === NS.HTML ? "keep" : "drop";
    if (parentNs !== NS.SVG) return "drop";
    if (tag === "title" || tag === "desc") return textOnly(el) === null ? "drop" : "keep";
    return "keep";
  }
  if (el.namespaceURI !== NS.HTML) return "drop";
  // HTML inside SVG exists only below integration points (foreignObject, title, desc): not needed.
  if (parentNs !== NS.HTML) return "drop";
  if (el.tagName === "style" || el.tagName === "title") {
    const text = textOnly(el);
    if (text === null) return "drop";
    return el.tagName === "style" && (text.includes("<") || UNSAFE_CSS.test(text)) ? "drop" : "keep";
  }
  if (HTML_TAG_SET.has(el.tagName)) return "keep";
  return DROP_WITH_CONTENT.has(el.tagName) ? "drop" : "unwrap";
}

function cleanChildren(parent: ParentNode): void {
  const kept: ChildNode[] = [];
  for (const child of parent.childNodes) {
    if (child.nodeName === "#text") kept.push(child);
    if (!("tagName" in child)) continue; // comments and doctypes
    const v = verdict(child, parent);
    if (v === "drop") continue;
    cleanChildren(child);
    if (v === "keep") {
      cleanAttributes(child);
      kept.push(child);
    } else {
      kept.push(...child.childNodes);
    }
  }
  for (const node of kept) node.parentNode = parent;
  parent.childNodes = kept;
}

/** One round: sanitize-html, then the browser-tree check, serialized as a complete document. */
function round(input: string): string {
  const document = parse(sanitizeHtml(input, OPTIONS));
  const root = document.childNodes.find((n): n is Element => "tagName" in n && n.tagName === "html");
  if (!root) return "<!DOCTYPE html><html><head></head><body></body></html>";
  cleanChildren(root);
  cleanAttributes(root);
  return "<!DOCTYPE html>" + serializeOuter(root);
}

/** Text of a subtree as a browser shows it (no script, style or template text). */
function textOf(node: ParentNode): string {
  let text = "";
  for (const child of node.childNodes) {
    if (child.nodeName === "#text") text += (child as DefaultTreeAdapterTypes.TextNode).value;
    else if ("tagName" in child && !["script", "style", "template"].includes(child.tagName)) text += textOf(child);
  }
  return text;
}

/** The document's text alone, escaped: the answer when the markup never settles. */
function textDocument(input: string): string {
  const text = textOf(parse(input));
  return round(`<p>${text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}</p>`);
}

/**
 * Sanitizes report HTML for storage, display and export (allow-list and stages above).
 * @param html any string (a document or a fragment)
 * @returns a complete `<!DOCTYPE html>` document; `sanitizeReportHtml(out) === out` holds for
 *   every output (tested with a corpus of mutation-XSS payloads). Pure and deterministic.
 */
export function sanitizeReportHtml(html: string): string {
  let current = round(html);
  for (let i = 1; i < MAX_ROUNDS; i += 1) {
    const next = round(current);
    if (next === current) return current;
    current = next;
  }
  const fallback = textDocument(html);
  return round(fallback) === fallback ? fallback : "<!DOCTYPE html><html><head></head><body></body></html>";
}
