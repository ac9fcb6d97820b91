/**
 * Pure text and metadata helpers shared by the provider normalisers and de-duplication.
 * No I/O, no globals beyond constant tables; safe in Workers and Node.
 */
import type { StudyType } from "./types";

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  shy: "",
  ndash: "–",
  mdash: "—",
  minus: "−",
  hellip: "…",
  bull: "•",
  middot: "·",
  lsquo: "‘",
  rsquo: "’",
  sbquo: "‚",
  ldquo: "“",
  rdquo: "”",
  bdquo: "„",
  laquo: "«",
  raquo: "»",
  prime: "′",
  Prime: "″",
  dagger: "†",
  Dagger: "‡",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  plusmn: "±",
  times: "×",
  divide: "÷",
  micro: "µ",
  para: "¶",
  sect: "§",
  le: "≤",
  ge: "≥",
  ne: "≠",
  asymp: "≈",
  equiv: "≡",
  infin: "∞",
  sum: "∑",
  radic: "√",
  larr: "←",
  rarr: "→",
  uarr: "↑",
  darr: "↓",
  harr: "↔",
  frac12: "½",
  frac14: "¼",
  frac34: "¾",
  sup1: "¹",
  sup2: "²",
  sup3: "³",
  ordm: "º",
  ordf: "ª",
  iexcl: "¡",
  iquest: "¿",
  cent: "¢",
  pound: "£",
  euro: "€",
  yen: "¥",
  alpha: "α",
  beta: "β",
  gamma: "γ",
  delta: "δ",
  epsilon: "ε",
  zeta: "ζ",
  eta: "η",
  theta: "θ",
  iota: "ι",
  kappa: "κ",
  lambda: "λ",
  mu: "μ",
  nu: "ν",
  xi: "ξ",
  omicron: "ο",
  pi: "π",
  rho: "ρ",
  sigma: "σ",
  sigmaf: "ς",
  tau: "τ",
  upsilon: "υ",
  phi: "φ",
  chi: "χ",
  psi: "ψ",
  omega: "ω",
  Alpha: "Α",
  Beta: "Β",
  Gamma: "Γ",
  Delta: "Δ",
  Epsilon: "Ε",
  Theta: "Θ",
  Lambda: "Λ",
  Pi: "Π",
  Sigma: "Σ",
  Phi: "Φ",
  Psi: "Ψ",
  Omega: "Ω",
  Agrave: "À",
  Aacute: "Á",
  Acirc: "Â",
  Atilde: "Ã",
  Auml: "Ä",
  Aring: "Å",
  AElig: "Æ",
  Ccedil: "Ç",
  Egrave: "È",
  Eacute: "É",
  Ecirc: "Ê",
  Euml: "Ë",
  Igrave: "Ì",
  Iacute: "Í",
  Icirc: "Î",
  Iuml: "Ï",
  Ntilde: "Ñ",
  Ograve: "Ò",
  Oacute: "Ó",
  Ocirc: "Ô",
  Otilde: "Õ",
  Ouml: "Ö",
  Oslash: "Ø",
  Ugrave: "Ù",
  Uacute: "Ú",
  Ucirc: "Û",
  Uuml: "Ü",
  Yacute: "Ý",
  szlig: "ß",
  agrave: "à",
  aacute: "á",
  acirc: "â",
  atilde: "ã",
  auml: "ä",
  aring: "å",
  aelig: "æ",
  ccedil: "ç",
  egrave: "è",
  eacute: "é",
  ecirc: "ê",
  euml: "ë",
  igrave: "ì",
  iacute: "í",
  icirc: "î",
  iuml: "ï",
  ntilde: "ñ",
  ograve: "ò",
  oacute: "ó",
  ocirc: "ô",
  otilde: "õ",
  ouml: "ö",
  oslash: "ø",
  ugrave: "ù",
  uacute: "ú",
  ucirc: "û",
  uuml: "ü",
  yacute: "ý",
  yuml: "ÿ",
  thorn: "þ",
  eth: "ð",
};

/**
 * Decodes HTML/XML character references: named entities from a Latin-1/Greek/punctuation
 * table plus every decimal (`&#233;`) and hex (`&#x207b;`) reference. Unknown names are kept.
 */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});/g, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return whole;
      return String.fromCodePoint(code);
    }
    return NAMED_ENTITIES[ref] ?? whole;
  });
}

interface MathNode {
  name: string;
  children: MathNode[];
  text?: string;
}

/** Builds a small tree from a MathML fragment (tags may carry a namespace prefix such as `mml:`). */
function parseMathTree(fragment: string): MathNode {
  const root: MathNode = { name: "#root", children: [] };
  const stack: MathNode[] = [root];
  const token = /<(\/?)([A-Za-z][\w.-]*(?::[A-Za-z][\w.-]*)?)[^>]*?(\/?)>|([^<]+)/g;
  let m: RegExpExecArray | null;
  while ((m = token.exec(fragment)) !== null) {
    const parent = stack[stack.length - 1];
    if (m[4] !== undefined) {
      parent.children.push({ name: "#text", children: [], text: m[4] });
      continue;
    }
    const name = m[2].replace(/^.*:/, "").toLowerCase();
    if (m[1] === "/") {
      for (let i = stack.length - 1; i > 0; i--) {
        if (stack[i].name === name) {
          stack.length = i;
          break;
        }
      }
      continue;
    }
    const node: MathNode = { name, children: [] };
    parent.children.push(node);
    if (m[3] !== "/") stack.push(node);
  }
  return root;
}

function renderMath(node: MathNode): string {
  if (node.name === "#text") return node.text!.trim() === "" ? "" : node.text!.trim();
  const elements = node.children.filter((c) => c.name !== "#text" || c.text!.trim() !== "");
  const all = () => elements.map(renderMath).join("");
  switch (node.name) {
    case "annotation":
    case "annotation-xml":
    case "none":
    case "mprescripts":
      return "";
    case "semantics":
      return elements.length > 0 ? renderMath(elements[0]) : "";
    case "mspace":
      return " ";
    case "mtext":
      return node.children.map((c) => (c.name === "#text" ? c.text! : renderMath(c))).join("");
    case "mfrac":
      return elements.length === 2 ? `${renderMath(elements[0])}/${renderMath(elements[1])}` : all();
    case "msqrt":
      return `√(${all()})`;
    case "mmultiscripts": {
      // Children: base, post-scripts…, <mprescripts/>, pre-scripts… (MathML 3 §3.4.7).
      const split = elements.findIndex((c) => c.name === "mprescripts");
      if (split < 0) return all();
      const [base, ...post] = elements.slice(0, split);
      const pre = elements.slice(split + 1);
      return pre.map(renderMath).join("") + (base ? renderMath(base) : "") + post.map(renderMath).join("");
    }
    default:
      return all();
  }
}

/** Flattens one MathML `<math>` element to linear text, e.g. prescripts `³He` → "3He". */
function flattenMathMl(fragment: string): string {
  return renderMath(parseMathTree(fragment));
}

const BLOCK_TAGS = new Set([
  "p",
  "br",
  "div",
  "li",
  "ul",
  "ol",
  "dl",
  "dt",
  "dd",
  "tr",
  "td",
  "th",
  "table",
  "thead",
  "tbody",
  "blockquote",
  "hr",
  "sec",
  "list",
  "list-item",
  "caption",
  "label",
  "fig",
  "table-wrap",
  "def-list",
  "def-item",
  "term",
  "def",
  "boxed-text",
  "disp-quote",
  "abstract",
  "trans-abstract",
  "address",
  "section",
]);
const HEADING_TAGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6", "title"]);
const INLINE_TAGS = new Set([
  "a",
  "abbr",
  "b",
  "big",
  "cite",
  "code",
  "em",
  "font",
  "i",
  "img",
  "q",
  "s",
  "small",
  "span",
  "strike",
  "strong",
  "sub",
  "sup",
  "tt",
  "u",
  "italic",
  "bold",
  "sc",
  "underline",
  "monospace",
  "overline",
  "inline-formula",
  "disp-formula",
  "tex-math",
  "ext-link",
  "uri",
  "xref",
  "named-content",
  "styled-content",
  "fn",
  "break",
  "roman",
  "sans-serif",
  "inline-graphic",
  "graphic",
  "email",
]);

/**
 * Converts marked-up text to plain text: JATS (`<jats:p>`, `<jats:title>`), HTML (`<h4>`, `<i>`,
 * `<sup>`…) and MathML (flattened to linear text). Headings become "Heading: " prefixes (a leading
 * "Abstract" heading is dropped), block tags become spaces, inline tags vanish, entities are
 * decoded and whitespace is collapsed to single spaces. Only known tag names, or names with a
 * namespace prefix, are treated as markup, so "p<0.05" and "a < b" survive.
 * Returns "" for non-string input.
 */
export function stripMarkup(text: string): string {
  if (typeof text !== "string") return "";
  let s = text;
  if (s.includes("<")) {
    s = s.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1").replace(/<!--[\s\S]*?-->/g, "");
    s = s.replace(/<((?:[\w-]+:)?math)(?=[\s/>])[^>]*>[\s\S]*?<\/\1\s*>/gi, (frag) => flattenMathMl(frag));
    s = s.replace(
      /<((?:[\w-]+:)?(?:h[1-6]|title))(?=[\s/>])[^>]*>([\s\S]*?)<\/\1\s*>/gi,
      (_whole, _tag: string, inner: string) => {
        const heading = stripMarkup(inner);
        if (heading === "" || /^abstract$/i.test(heading)) return " ";
        return /[.:?!]$/.test(heading) ? ` ${heading} ` : ` ${heading}: `;
      },
    );
    s = s.replace(
      /<\/?([A-Za-z][\w.-]*)(?::([A-Za-z][\w.-]*))?(?:\s[^<>]*)?\/?>/g,
      (whole, first: string, second?: string) => {
        const local = (second ?? first).toLowerCase();
        const prefixed = second !== undefined;
        if (BLOCK_TAGS.has(local) || HEADING_TAGS.has(local)) return " ";
        if (INLINE_TAGS.has(local) || prefixed) return "";
        return whole;
      },
    );
  }
  return decodeEntities(s).replace(/\s+/g, " ").trim();
}

/**
 * Normalises a DOI to its bare lower-case form ("10.1000/xyz"): strips `https://doi.org/`,
 * `http://dx.doi.org/`, `doi.org/` and `doi:` prefixes and surrounding whitespace, and
 * URL-decodes it. Returns null when the result does not start with "10." (not a DOI).
 */
export function normaliseDoi(doi: string | null | undefined): string | null {
  if (typeof doi !== "string") return null;
  let s = doi.trim();
  s = s.replace(/^(?:https?:\/\/)?(?:dx\.)?doi\.org\//i, "").replace(/^doi:\s*/i, "");
  if (s.includes("%")) {
    try {
      s = decodeURIComponent(s);
    } catch {
      // Keep the raw value when it is not valid percent-encoding.
    }
  }
  s = s.trim().toLowerCase();
  return /^10\.\d{3,9}\/\S+$/.test(s) ? s : null;
}

const NON_ASCII = /[\u0080-\uffff]/;

/** Per-character class for title keys: 0 separator, 1 kept letter/digit, 2 dropped combining mark. */
const titleCharClass = new Map<string, 0 | 1 | 2>();

function charClass(ch: string): 0 | 1 | 2 {
  let cls = titleCharClass.get(ch);
  if (cls === undefined) {
    cls = /\p{M}/u.test(ch) ? 2 : /[\p{L}\p{N}]/u.test(ch) ? 1 : 0;
    if (titleCharClass.size < 10_000) titleCharClass.set(ch, cls);
  }
  return cls;
}

/**
 * De-duplication key for a title: markup stripped, diacritics removed (NFKD), lower-cased,
 * punctuation replaced by spaces and spaces collapsed. "Effect of <i>Café</i> — a Trial." →
 * "effect of cafe a trial". Returns "" when nothing alphanumeric remains. Linear time with a
 * per-character cache (dedupe keys thousands of titles per search).
 */
export function normaliseTitleKey(title: string): string {
  if (typeof title !== "string") return "";
  const plain = title.includes("<") || title.includes("&") ? stripMarkup(title) : title;
  if (!NON_ASCII.test(plain))
    return plain
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, " ")
      .trim();
  // Common case: Latin diacritics (combining U+0300–036F after NFKD) and General Punctuation
  // (dashes, curly quotes, NBSP) leave plain ASCII behind, so the cheap path applies again.
  const text = plain
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]+/g, "")
    .replace(/[\u00a0\u2000-\u206f]+/g, " ")
    .toLowerCase();
  if (!NON_ASCII.test(text)) return text.replace(/[^a-z0-9]+/g, " ").trim();
  let key = "";
  let pendingSpace = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let ch: string;
    let cls: 0 | 1 | 2;
    if (code < 128) {
      ch = text[i];
      cls = (code >= 97 && code <= 122) || (code >= 48 && code <= 57) ? 1 : 0;
    } else {
      const point = text.codePointAt(i)!;
      ch = String.fromCodePoint(point);
      if (point > 0xffff) i++;
      cls = charClass(ch);
    }
    if (cls === 2) continue;
    if (cls === 0) {
      pendingSpace = key !== "";
      continue;
    }
    if (pendingSpace) {
      key += " ";
      pendingSpace = false;
    }
    key += ch;
  }
  return key;
}

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

function monthNumber(value: string | number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return Number.isInteger(value) && value >= 1 && value <= 12 ? value : null;
  const s = value.trim().toLowerCase();
  if (/^\d{1,2}$/.test(s)) return monthNumber(Number(s));
  const named = MONTHS[s.slice(0, 3)];
  return named !== undefined && /^[a-z]+\.?$/.test(s) ? named : null;
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * Builds an ISO-8601 date prefix ("YYYY", "YYYY-MM" or "YYYY-MM-DD") from loose parts.
 * - `year` may be a number, "2018", an ISO string ("2015-08-22", "1957-09-30T08:00:00Z") whose
 *   month/day are used when `month`/`day` are omitted, or a PubMed MedlineDate such as
 *   "1998 Dec-1999 Jan" (→ "1998-12"), "2000 Spring" (→ "2000").
 * - `month` may be 1–12, "04", or an English name/abbreviation ("Jan", "Sept", "March").
 *   Seasons and unknown words drop the month (and the day).
 * - Invalid days (e.g. 31 Feb) are dropped. Returns null without a plausible 4-digit year.
 */
export function toIsoDate(
  year: string | number | null | undefined,
  month?: string | number | null,
  day?: string | number | null,
): string | null {
  let y: number | null = null;
  let m: number | null = null;
  let d: number | null = null;
  if (typeof year === "number") {
    y = Number.isInteger(year) ? year : null;
  } else if (typeof year === "string") {
    const s = year.trim();
    const iso = /^(\d{4})-(\d{1,2})(?:-(\d{1,2}))?(?=$|T|\s)/.exec(s);
    const bare = iso ? null : /^(\d{4})\b/.exec(s);
    if (iso) {
      y = Number(iso[1]);
      m = monthNumber(iso[2]);
      d = iso[3] && m !== null ? Number(iso[3]) : null;
    } else if (bare) {
      y = Number(bare[1]);
      // MedlineDate style: "1998 Dec-1999 Jan", "2001 Nov 5-12": first month name after the year.
      const rest = /^\d{4}\s+([A-Za-z]{3,})\.?(?:\s+(\d{1,2})(?!\d|\s*-))?/.exec(s);
      if (rest) {
        m = monthNumber(rest[1]);
        d = m !== null && rest[2] ? Number(rest[2]) : null;
      }
    }
  }
  if (y === null || y < 1000 || y > 2999) return null;
  if (month !== undefined && month !== null) {
    m = monthNumber(month);
    d = null;
  }
  if (m !== null && day !== undefined && day !== null) {
    const dn = typeof day === "number" ? day : /^\s*\d{1,2}\s*$/.test(day) ? Number(day) : NaN;
    d = Number.isInteger(dn) ? dn : null;
  }
  if (m === null) return String(y);
  if (d !== null) {
    const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
    if (d >= 1 && d <= daysInMonth) return `${y}-${pad2(m)}-${pad2(d)}`;
  }
  return `${y}-${pad2(m)}`;
}

/** Lower-cased label with everything but letters/digits removed: "Clinical Trial, Phase III" → "clinicaltrialphaseiii". */
function labelKey(label: string): string {
  return label.toLowerCase().replace(/[^a-z0-9]+/g, "");
}

const META_ANALYSIS_LABELS = new Set(["metaanalysis", "networkmetaanalysis"]);
const SYSTEMATIC_REVIEW_LABELS = new Set(["systematicreview", "systematicreviews", "cochranereview"]);
const OBSERVATIONAL_LABELS = new Set([
  "observationalstudy",
  "observationalstudyveterinary",
  "cohortstudy",
  "cohortstudies",
  "casecontrolstudy",
  "casecontrolstudies",
  "crosssectionalstudy",
  "crosssectionalstudies",
]);

function isClinicalTrialLabel(key: string): boolean {
  return (
    key === "clinicaltrial" ||
    key.startsWith("clinicaltrialphase") ||
    key === "clinicaltrialprotocol" ||
    key === "clinicaltrialveterinary" ||
    key === "controlledclinicaltrial" ||
    key === "randomizedcontrolledtrial" ||
    key === "randomisedcontrolledtrial" ||
    key === "randomizedcontrolledtrialveterinary" ||
    key === "pragmaticclinicaltrial" ||
    key === "adaptiveclinicaltrial" ||
    key === "equivalencetrial"
  );
}

const TITLE_META_ANALYSIS = /\bmeta[-\s]?analy[sz](?:is|es|ed)\b|\bmeta[-\s]?analytic\b/i;
const TITLE_SYSTEMATIC_REVIEW =
  /\bsystematic(?:ally)?\s+(?:literature\s+|scoping\s+)?review|\bcochrane\s+review\b|\bumbrella\s+review\b/i;
/** "A/an … clinical trial" only: "for clinical trial accessibility" is not a trial report. */
const TITLE_CLINICAL_TRIAL =
  /\brandomi[sz]ed\b|\ban?\s+(?:[\w-]+\s+){0,3}clinical\s+trial\b|\bcontrolled\s+trial\b|\bplacebo[-\s]controlled\b|\bdouble[-\s]blind(?:ed)?\b|\bphase\s+(?:i{1,3}|iv|[1-4])[ab]?\b[^.]*\btrial\b/i;
const TITLE_OBSERVATIONAL =
  /\bcohort\b|\bcase[-\s]control\b|\bcross[-\s]sectional\b|\bobservational\b|\bretrospective\b|\bpopulation[-\s]based\b|\bregistry[-\s]based\b/i;

/**
 * Classifies a record into the spec's study types (SPEC §3 Study.studyType): "Meta-Analysis",
 * "Systematic Review", "Clinical Trial", "Observational Study", else "Research Article".
 *
 * Publication-type labels decide first, then title keywords; within each, the more synthesised
 * design wins (meta-analysis > systematic review > trial > observational), so "A systematic
 * review and meta-analysis of randomized trials" is a Meta-Analysis. Labels understood:
 * PubMed/Europe PMC ("Meta-Analysis", "Systematic Review", "Randomized Controlled Trial",
 * "Clinical Trial, Phase III", "Observational Study", "systematic-review"…) and Semantic Scholar
 * ("MetaAnalysis", "ClinicalTrial"). A generic "Review" label (S2 "Review", PubMed "Review",
 * Crossref types) is not treated as systematic: narrative reviews fall back to the title test.
 */
export function classifyStudyType(publicationTypes: readonly string[], title: string): StudyType {
  const keys = (Array.isArray(publicationTypes) ? publicationTypes : [])
    .filter((t): t is string => typeof t === "string")
    .map(labelKey);
  if (keys.some((k) => META_ANALYSIS_LABELS.has(k))) return "Meta-Analysis";
  if (keys.some((k) => SYSTEMATIC_REVIEW_LABELS.has(k))) return "Systematic Review";
  if (keys.some(isClinicalTrialLabel)) return "Clinical Trial";
  if (keys.some((k) => OBSERVATIONAL_LABELS.has(k))) return "Observational Study";
  const t = typeof title === "string" ? title : "";
  if (TITLE_META_ANALYSIS.test(t)) return "Meta-Analysis";
  if (TITLE_SYSTEMATIC_REVIEW.test(t)) return "Systematic Review";
  if (TITLE_CLINICAL_TRIAL.test(t)) return "Clinical Trial";
  if (TITLE_OBSERVATIONAL.test(t)) return "Observational Study";
  return "Research Article";
}
