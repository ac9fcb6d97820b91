import { html as parse5Html, parse, serializeOuter, type DefaultTreeAdapterTypes } from "parse5";
import { describe, expect, it } from "vitest";
import { jobResult } from "../../../tests/meta-analysis-result";
import { buildReportHtml } from "~/components/meta-analysis/report-html";
import { sanitizeReportHtml } from "./sanitize";

type Node = DefaultTreeAdapterTypes.Node;
type Element = DefaultTreeAdapterTypes.Element;
const NS = parse5Html.NS;

/**
 * Known mutation-XSS and filter-evasion payloads (cure53 DOMPurify bypasses and test suite,
 * PortSwigger's XSS cheat sheet, OWASP's filter-evasion cheat sheet, Masato Kinugawa's and
 * Michał Bentkowski's mXSS write-ups): foreign-content nesting, raw-text elements, comments and
 * CDATA, entity-encoded and obfuscated URLs, and attributes that run or load code.
 */
const CORPUS: string[] = [
  `<svg><style><img src=x onerror="alert(1)"></style></svg>`,
  `<svg><style>&lt;/style&gt;&lt;img src=x onerror=alert(1)&gt;</style></svg>`,
  `<svg><style>/*</style><img src onerror=alert(1)>*/</style></svg>`,
  `<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">`,
  `<svg><p><style><img src=x onerror=alert(1)></style></p></svg>`,
  `<svg><p><style><g title="</style><img src onerror=alert(1)>">`,
  `<math><style><img src=x onerror=alert(1)></style></math>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>`,
  `<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>`,
  `<math><mtext><h1><a><h6></a></h6><mglyph><svg><mtext><style><a title="</style><img src onerror=alert(1)>"></style></h1>`,
  `<math><mi xlink:href="javascript:alert(1)">x</mi></math>`,
  `<math href="javascript:alert(1)">CLICK</math>`,
  `<svg></p><textarea><title><style></textarea><img src=x onerror=alert(1)></style></title></svg>`,
  `<svg><title><style><img src=x onerror=alert(1)></style></title></svg>`,
  `<svg><desc><style><img src=x onerror=alert(1)></style></desc></svg>`,
  `<svg><foreignObject><img src=x onerror=alert(1)></foreignObject></svg>`,
  `<svg><![CDATA[><img src=x onerror=alert(1)>]]></svg>`,
  `<svg><title><![CDATA[</title><img src=x onerror=alert(1)>]]></title></svg>`,
  `<svg><script>alert(1)</script></svg>`,
  `<svg onload=alert(1)><g onload=alert(1)></g></svg>`,
  `<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">x</text></a></svg>`,
  `<svg><a href="javascript:alert(1)"><rect width="10" height="10"/></a></svg>`,
  `<svg><use href="data:image/svg+xml;base64,PHN2ZyBpZD0neCcgeG1sbnM9J2h0dHA6Ly93d3cudzMub3JnLzIwMDAvc3ZnJz48aW1hZ2UgaHJlZj0neCcgb25lcnJvcj0nYWxlcnQoMSknLz48L3N2Zz4=#x"></use></svg>`,
  `<svg><animate attributeName="href" values="javascript:alert(1)"/><set attributeName="onmouseover" to="alert(1)"/></svg>`,
  `<svg><image href="x" onerror="alert(1)"/></svg>`,
  `<noscript><p title="</noscript><img src=x onerror=alert(1)>"></p></noscript>`,
  `<noscript><style></noscript><img src=x onerror=alert(1)></style></noscript>`,
  `<template><style></template><img src=x onerror=alert(1)></style></template>`,
  `<template><img src=x onerror=alert(1)></template>`,
  `<textarea><img src=x onerror=alert(1)></textarea>`,
  `<textarea></textarea><img src=x onerror=alert(1)>`,
  `<title><img src=x onerror=alert(1)></title>`,
  `<title></title><img src=x onerror=alert(1)>`,
  `<xmp><img title="</xmp><img src=x onerror=alert(1)>"></xmp>`,
  `<noembed><img title="</noembed><img src onerror=alert(1)>"></noembed>`,
  `<noframes><img title="</noframes><img src onerror=alert(1)>"></noframes>`,
  `<iframe><img title="</iframe><img src onerror=alert(1)>"></iframe>`,
  `<plaintext><img src=x onerror=alert(1)>`,
  `<select><template><style><!--</style><a rel="--></style></template></select><img src=x onerror=alert(1)>`,
  `<table><style><img src=x onerror=alert(1)></style></table>`,
  `<style><img src=x onerror=alert(1)></style>`,
  `<style>@import 'javascript:alert(1)';</style>`,
  `<style>body{background:url("javascript:alert(1)")}</style>`,
  `<div style="background:url(javascript:alert(1))">x</div>`,
  `<div style="width:expression(alert(1))">x</div>`,
  `<!--><img src=x onerror=alert(1)>-->`,
  `<!--!><img src=x onerror=alert(1)>-->`,
  `<!-- --!><img src=x onerror=alert(1)> -->`,
  `<p title="--><img src=x onerror=alert(1)>">x</p>`,
  `<p title="</style><img src=x onerror=alert(1)>">x</p>`,
  `<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>`,
  `<a href="&#x6A;avascript&colon;alert(1)">x</a>`,
  `<a href="jav&#x09;ascript:alert(1)">x</a>`,
  `<a href="jav&#x0A;ascript:alert(1)">x</a>`,
  `<a href=" &#14;  javascript:alert(1)">x</a>`,
  `<a href="JaVaScRiPt:alert(1)">x</a>`,
  `<a href="javascript&#0000058alert(1)">x</a>`,
  `<a href="vbscript:msgbox(1)">x</a>`,
  `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>`,
  `<img src="data:text/html,<script>alert(1)</script>">`,
  `<img src="javascript:alert(1)">`,
  `<img src=x onerror=alert(1)//`,
  `<img/src/onerror=alert(1)>`,
  `<iframe srcdoc="<script>alert(1)</script>"></iframe>`,
  `<iframe src="javascript:alert(1)"></iframe>`,
  `<object data="javascript:alert(1)"></object><embed src="javascript:alert(1)">`,
  `<form><button formaction="javascript:alert(1)">x</button></form>`,
  `<form action="javascript:alert(1)"><input type="submit"></form>`,
  `<div id="1"><form id="foobar"></form><button form="foobar" formaction="javascript:alert(1)">X</button></div>`,
  `<input type="image" formaction="javascript:alert(1)" src="x">`,
  `<isindex action="javascript:alert(1)" type="image">`,
  `<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`,
  `<base href="javascript:/a/-alert(1)///////"><a href="../lol/safari.html">test</a>`,
  `<link rel="stylesheet" href="javascript:alert(1)">`,
  `<body onload=alert(1)><html onmouseover=alert(1)>`,
  `<details open ontoggle=alert(1)>x</details>`,
  `<video><source onerror=alert(1)></video><audio src=x onerror=alert(1)>`,
  `<keygen autofocus onfocus=alert(1)>`,
  `<marquee onstart=alert(1)>x</marquee>`,
  `<a href="#" onclick="alert(1)" target="_blank">x</a>`,
  `<div><svg><style>x</style><p><svg><style><img src=x onerror=alert(1)></style></svg></p></svg></div>`,
  `<svg><g><style><![CDATA[</style><img src=x onerror=alert(1)>]]></style></g></svg>`,
  `<svg><clipPath><style><img src=x onerror=alert(1)></style></clipPath></svg>`,
  `<math><annotation-xml encoding="text/html"><style><img src=x onerror=alert(1)></style></annotation-xml></math>`,
  `<a href="https://ok.example/" title="</a><img src=x onerror=alert(1)>">ok</a>`,
  `<<script>alert(1)//<</script>`,
  `<scr<script>ipt>alert(1)</scr</script>ipt>`,
  `<img src="x` + "\u0000" + `" onerror=alert(1)>`,
];

const DANGEROUS_TAGS = new Set([
  "script",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "applet",
  "noscript",
  "template",
  "textarea",
  "xmp",
  "noembed",
  "noframes",
  "plaintext",
  "form",
  "button",
  "input",
  "select",
  "option",
  "base",
  "link",
  "isindex",
  "keygen",
  "foreignobject",
  "use",
  "animate",
  "set",
  "image",
]);
const URL_ATTRIBUTES = new Set(["href", "src", "action", "formaction", "data", "poster", "background", "srcset"]);
const SAFE_DATA_URL = /^data:image\/(png|gif|jpe?g|webp|avif|bmp);/i;

function isElement(node: Node): node is Element {
  return "tagName" in node;
}

/**
 * What a browser would find dangerous in `html`, judged on the tree a real HTML parser (parse5,
 * the WHATWG algorithm) builds, with scripting on and off (sandboxed frames parse without it).
 */
function dangers(html: string): string[] {
  const found: string[] = [];
  for (const scriptingEnabled of [true, false]) {
    const visit = (node: Node, parent: Node | null) => {
      if (isElement(node)) {
        const tag = node.tagName.toLowerCase();
        const parentNs = parent && isElement(parent) ? parent.namespaceURI : NS.HTML;
        if (DANGEROUS_TAGS.has(tag)) found.push(`<${tag}>`);
        if (node.namespaceURI === NS.MATHML) found.push(`MathML <${tag}>`);
        if (node.namespaceURI === NS.HTML && parentNs !== NS.HTML) found.push(`HTML <${tag}> inside foreign content`);
        if (tag === "style") {
          if (node.namespaceURI !== NS.HTML) found.push("<style> in foreign content");
          const text = node.childNodes.map((c) => ("value" in c ? c.value : "<element>")).join("");
          if (text.includes("<")) found.push("markup inside <style>");
          if (/javascript:|expression\(|@import/i.test(text)) found.push("code in CSS");
        }
        if (tag === "meta" && node.attrs.some((a) => a.name === "http-equiv")) found.push("meta http-equiv");
        for (const attr of node.attrs) {
          const name = (attr.prefix ? `${attr.prefix}:` : "") + attr.name.toLowerCase();
          // eslint-disable-next-line no-control-regex -- controls are stripped as browsers do
          const value = attr.value.replace(/[\u0000-\u0020\u007f-\u009f]+/g, "");
          if (name.startsWith("on")) found.push(`event handler ${name}`);
          if (name === "srcdoc" || name === "formaction" || name === "xlink:href") found.push(`attribute ${name}`);
          if (
            (URL_ATTRIBUTES.has(name) || name.endsWith(":href")) &&
            /^(javascript|vbscript|data):/i.test(value) &&
            !SAFE_DATA_URL.test(value)
          ) {
            found.push(`${name}=${value.slice(0, 30)}`);
          }
          if (name === "style" && /javascript:|expression\(/i.test(value)) found.push("code in style attribute");
        }
      }
      const children =
        "content" in node && node.content
          ? [...node.childNodes, node.content]
          : "childNodes" in node
            ? node.childNodes
            : [];
      for (const child of children) visit(child as Node, node);
    };
    visit(parse(html, { scriptingEnabled }), null);
  }
  return found;
}

const REPORT = buildReportHtml({
  title: "BCG <vaccine> & TB",
  description: "Trials of BCG",
  result: jobResult,
  options: { method: "REML", test: "knha" },
  generatedAt: new Date("2026-11-22T01:00:00Z"),
});

/** Every element of the body as namespace:tag[attributes] in document order, and the style text. */
function shape(html: string): { elements: string[]; styles: string[]; text: string } {
  const elements: string[] = [];
  const styles: string[] = [];
  let text = "";
  const visit = (node: Node) => {
    if (isElement(node)) {
      const attrs = node.attrs
        .map((a) => `${a.name}=${a.value}`)
        .sort()
        .join(" ");
      elements.push(`${node.namespaceURI === NS.SVG ? "svg:" : ""}${node.tagName}[${attrs}]`);
      if (node.tagName === "style") styles.push(serializeOuter(node));
    } else if ("value" in node && node.nodeName === "#text") text += node.value;
    if ("childNodes" in node) for (const child of node.childNodes) visit(child);
  };
  visit(parse(html));
  return { elements, styles, text: text.replace(/\s+/g, " ") };
}

describe("sanitizeReportHtml", () => {
  it("leaves nothing a browser would run from the mutation-XSS corpus (parsed with a real HTML parser)", () => {
    const failures = CORPUS.map((payload) => ({ payload, found: dangers(sanitizeReportHtml(payload)) })).filter(
      (r) => r.found.length > 0,
    );
    expect(failures).toEqual([]);
  });

  it("is idempotent: sanitizing its output again changes nothing", () => {
    for (const payload of [...CORPUS, REPORT]) {
      const once = sanitizeReportHtml(payload);
      expect(sanitizeReportHtml(once), payload).toBe(once);
    }
  });

  it("holds both properties for 400 random mixes of the corpus's building blocks (seeded)", () => {
    const TOKENS = [
      "<svg>",
      "</svg>",
      "<math>",
      "</math>",
      "<mtext>",
      "<mglyph>",
      "<style>",
      "</style>",
      "<p>",
      "</p>",
      "<table>",
      "<td>",
      "<form>",
      "</form>",
      "<noscript>",
      "</noscript>",
      "<template>",
      "</template>",
      "<title>",
      "</title>",
      "<textarea>",
      "</textarea>",
      "<xmp>",
      "</xmp>",
      "<desc>",
      "<foreignObject>",
      "<!--",
      "-->",
      "<![CDATA[",
      "]]>",
      '<a title="',
      '">',
      "<img src=x onerror=alert(1)>",
      "<h1>",
      '<a href="javascript:alert(1)">',
      "<select>",
      "<option>",
      "<iframe>",
      "</iframe>",
      "text",
      "&lt;",
      "<b>",
      "</b>",
    ];
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 400; i += 1) {
      const input = Array.from(
        { length: 4 + Math.floor(next() * 14) },
        () => TOKENS[Math.floor(next() * TOKENS.length)],
      ).join("");
      const once = sanitizeReportHtml(input);
      expect(dangers(once), input).toEqual([]);
      expect(sanitizeReportHtml(once), input).toBe(once);
    }
  });

  it("parses the same way with scripting on and off (no noscript/raw-text differential)", () => {
    for (const payload of CORPUS) {
      const out = sanitizeReportHtml(payload);
      expect(serializeOuter(parse(out, { scriptingEnabled: false })), payload).toBe(
        serializeOuter(parse(out, { scriptingEnabled: true })),
      );
    }
  });

  it("closes the reported hole: <svg><style><img onerror> is no longer stored unchanged", () => {
    const payload = `<svg><style><img src=x onerror="alert(document.domain)"></style></svg>`;
    const out = sanitizeReportHtml(payload);
    expect(out).not.toContain("onerror");
    expect(out).not.toContain("<style>");
    expect(dangers(payload)).toContain("event handler onerror");
  });

  it("keeps benign markup: links get rel=noopener, relative and data:image URLs stay", () => {
    const out = sanitizeReportHtml(
      `<p>a &lt; b &amp; c</p><a href="https://doi.org/10.1/x" target="_blank">doi</a><a href="#s2">s2</a><img src="data:image/png;base64,iVBORw0KGgo=" alt="plot"><table><tr><th scope="col">n</th></tr></table>`,
    );
    expect(out).toContain("<p>a &lt; b &amp; c</p>");
    expect(out).toContain('<a href="https://doi.org/10.1/x" target="_blank" rel="noopener noreferrer">doi</a>');
    expect(out).toContain('<a href="#s2">s2</a>');
    expect(out).toContain('<img src="data:image/png;base64,iVBORw0KGgo=" alt="plot">');
    expect(out).toContain('<th scope="col">n</th>');
  });

  it("keeps a generated meta-analysis report intact: every element, attribute, style and text", () => {
    const out = sanitizeReportHtml(REPORT);
    const before = shape(REPORT);
    const after = shape(out);
    expect(after.elements).toEqual(before.elements);
    expect(after.styles).toEqual(before.styles);
    expect(after.text).toBe(before.text);
    // Forest, funnel, PRISMA, Baujat and cumulative forest plots.
    expect(after.elements.filter((e) => e.startsWith("svg:svg")).length).toBe(5);
    expect(dangers(out)).toEqual([]);
  });
});
