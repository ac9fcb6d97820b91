import sanitizeHtml from "sanitize-html";

/**
 * HTML allowed in saved reports: the document and text tags sanitize-html allows by default, plus
 * `<style>` blocks, inline `style` attributes and inline SVG (charts such as forest and funnel
 * plots). Scripts, event-handler attributes, iframes, forms and `javascript:` URLs are removed.
 * Reports are also shown in a sandboxed iframe without `allow-scripts` (defence in depth).
 */
const SVG_TAGS = [
  "svg", "g", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "text", "tspan",
  "defs", "title", "desc", "lineargradient", "radialgradient", "stop", "clippath", "marker",
  "symbol", "pattern", "mask",
];

const SVG_ATTRIBUTES = [
  "viewbox", "viewBox", "xmlns", "width", "height", "x", "y", "x1", "y1", "x2", "y2", "cx", "cy",
  "r", "rx", "ry", "d", "points", "fill", "fill-opacity", "stroke", "stroke-width",
  "stroke-dasharray", "stroke-linecap", "stroke-linejoin", "stroke-opacity", "opacity",
  "transform", "text-anchor", "dominant-baseline", "font-size", "font-family", "font-weight",
  "dx", "dy", "offset", "stop-color", "stop-opacity", "preserveAspectRatio", "preserveaspectratio",
  "clip-path", "marker-end", "marker-start", "markerWidth", "markerHeight", "refX", "refY",
  "orient", "role", "aria-label", "aria-hidden",
];

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    ...sanitizeHtml.defaults.allowedTags,
    "html", "head", "body", "meta", "title", "style", "img", "section", "header", "footer",
    "figure", "figcaption", "sup", "sub",
    ...SVG_TAGS,
  ],
  // <style> is on the list on purpose: reports carry their print styles. sanitize-html keeps the
  // element's text as CSS; CSS cannot run script in current browsers.
  allowVulnerableTags: true,
  allowedAttributes: {
    "*": ["style", "class", "id", "title", "lang", "dir", "colspan", "rowspan", "align"],
    a: ["href", "name", "target", "rel"],
    img: ["src", "alt", "width", "height"],
    meta: ["charset", "name", "content"],
    ...Object.fromEntries(SVG_TAGS.map((tag) => [tag, SVG_ATTRIBUTES])),
  },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["http", "https", "data"] },
  parser: { lowerCaseAttributeNames: false },
};

/**
 * Sanitizes report HTML for storage and display (see the allow-list above). Pure and
 * deterministic; safe to run twice.
 */
export function sanitizeReportHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}
