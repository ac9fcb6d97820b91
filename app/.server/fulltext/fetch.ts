/**
 * Fetches the open-access full text of a paper (PDF, HTML or plain text) and turns it into plain
 * text, defensively: only http(s) URLs to public hosts (SSRF guard, re-checked on every redirect
 * hop), a byte limit enforced while streaming, an overall deadline, a page limit for PDFs, and
 * typed errors for every way a publisher or a file can fail us.
 */
import { getDocumentProxy } from "unpdf";
import { AnswerTooLargeError, readBodyBytes } from "../http/upstream-body";
import { decodeEntities } from "~/lib/search/normalize";

/** Why a full text could not be obtained; stable codes the API reports as `reason`. */
export type FullTextErrorCode =
  /** The publisher refused (401/402/403/429/451) or served a sign-in / purchase page. */
  | "REFUSED"
  /** The body is larger than the byte limit. */
  | "TOO_LARGE"
  /** Download and extraction did not finish within the deadline. */
  | "TIMEOUT"
  /** The address serves something that is neither a PDF, a web page nor text (e.g. an image). */
  | "NOT_TEXT"
  /** A PDF without a text layer (scanned page images; would need OCR). */
  | "NO_TEXT_LAYER"
  /** A damaged, password-protected or copy-protected PDF, or a "PDF" that is not one. */
  | "BAD_PDF"
  /** Not an http(s) URL, or one pointing at a private, loopback or link-local host. */
  | "BAD_URL"
  /** Readable, but far too little text to be the full text of a paper. */
  | "TOO_SHORT"
  /** Not found (404/410), a server error, too many redirects or no connection. */
  | "UNAVAILABLE";

/** A full text could not be fetched or read; `code` says why, `message` says it in words. */
export class FullTextError extends Error {
  constructor(
    readonly code: FullTextErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "FullTextError";
  }
}

/**
 * The publisher restricts automated access: HTTP 401, 402, 403, 429 or 451, or a page that only
 * asks the reader to sign in or pay. `status` is the HTTP status when there was one.
 */
export class PublisherRefusedError extends FullTextError {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super("REFUSED", message);
    this.name = "PublisherRefusedError";
  }
}

/** The text of a paper and where it came from. */
export interface FullText {
  kind: "pdf" | "html" | "text";
  /** Plain text; paragraphs and PDF lines separated by newlines. */
  text: string;
  /** PDF only: pages whose text was read (at most `maxPages`). */
  pages?: number;
  /** PDF only: pages in the document. */
  totalPages?: number;
  /** Size of the downloaded body in bytes. */
  bytes: number;
  /** The URL after redirects. */
  finalUrl: string;
}

export interface FetchFullTextOptions {
  /** Largest body accepted, in bytes (default 15 MB). */
  maxBytes?: number;
  /** Deadline for the whole download and extraction, in ms (default 15 000). */
  timeoutMs?: number;
  /** Pages of a PDF to read at most (default 60); later pages are ignored. */
  maxPages?: number;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  /**
   * Host names (or IP literals) that may be fetched although they are private or loopback, e.g.
   * `["127.0.0.1"]` for tests and the offline replay server. Matched exactly, case-insensitively.
   */
  allowHosts?: readonly string[];
  /** Fewest characters of text accepted as a full text (default {@link MIN_FULLTEXT_CHARS}). */
  minChars?: number;
}

export interface FetchFullTextDeps {
  fetch: typeof fetch;
  /** Aborting it stops the download; the abort reason is rethrown unchanged. */
  signal?: AbortSignal;
}

export const DEFAULT_MAX_BYTES = 15 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_PAGES = 60;
export const DEFAULT_MAX_REDIRECTS = 5;
/** Fewer non-blank characters than this in a PDF means it has no usable text layer. */
export const MIN_TEXT_LAYER_CHARS = 200;
/**
 * The shortest text taken for a paper's full text. An abstract alone is usually 1,500–2,500
 * characters; anything shorter is a stub, a cover page or not a paper.
 */
export const MIN_FULLTEXT_CHARS = 1500;

const USER_AGENT = "MetaMind/1.0 (full-text analysis of open access papers)";
const ACCEPT = "application/pdf, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, */*;q=0.1";
/** PDF.js PermissionFlag.COPY: "copy or otherwise extract text and graphics". */
const PDF_PERMISSION_COPY = 16;
const REFUSAL_STATUSES = new Set([401, 402, 403, 429, 451]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

// ---------------------------------------------------------------------------------------------
// SSRF guard

/** Parses a dotted-quad IPv4 address into its four octets, or null. */
function parseIpv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const octets = m.slice(1).map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

/** Whether an IPv4 address is not publicly routable (RFC 1918, loopback, link-local, CGNAT…). */
function isPrivateIpv4([a, b, c]: number[]): boolean {
  return (
    a === 0 || // "this network"
    a === 10 ||
    a === 127 ||
    (a === 100 && b! >= 64 && b! <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b! >= 16 && b! <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, TEST-NET-1
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || // TEST-NET-2
    (a === 203 && b === 0 && c === 113) || // TEST-NET-3
    a! >= 224 // multicast, reserved, broadcast
  );
}

/** Expands an IPv6 literal (without brackets) into eight 16-bit groups, or null. */
function parseIpv6(host: string): number[] | null {
  let h = host.toLowerCase();
  const v4 = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(h);
  if (v4) {
    const o = parseIpv4(v4[1]!);
    if (!o) return null;
    h = h.slice(0, -v4[1]!.length) + `${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const halves = h.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s ? s.split(":") : []);
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...new Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}

/** Whether an IPv6 address is loopback, unspecified, unique-local, link-local, multicast or maps to a private IPv4. */
function isPrivateIpv6(g: number[]): boolean {
  const embedded = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];
  if (g.slice(0, 7).every((x) => x === 0)) return g[7] === 0 || g[7] === 1; // :: and ::1
  if ((g[0]! & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0]! & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0]! & 0xff00) === 0xff00) return true; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0)) {
    return isPrivateIpv4(embedded(g[6]!, g[7]!)); // IPv4-mapped / IPv4-compatible
  }
  if (g[0] === 0x64 && g[1] === 0xff9b) return isPrivateIpv4(embedded(g[6]!, g[7]!)); // NAT64
  if (g[0] === 0x2002) return isPrivateIpv4(embedded(g[1]!, g[2]!)); // 6to4
  return false;
}

/**
 * Whether a URL host name (as `new URL(...).hostname` gives it: IPv4 normalised to dotted quads,
 * IPv6 in brackets) is private: a private/loopback/link-local/reserved IP literal, `localhost`,
 * a single-label name, or a name under an internal-only suffix (.localhost, .local, .internal,
 * .lan, .home.arpa, .intranet, .corp).
 *
 * DNS is not resolved here (Workers cannot), so a public name that resolves to a private address
 * is not caught; Cloudflare's edge itself refuses to connect Workers to private addresses.
 */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[") && host.endsWith("]")) {
    const groups = parseIpv6(host.slice(1, -1));
    return groups === null || isPrivateIpv6(groups);
  }
  const v4 = parseIpv4(host);
  if (v4) return isPrivateIpv4(v4);
  if (/^[\d.]+$/.test(host)) return true; // a malformed numeric host
  if (!host.includes(".")) return true; // localhost, intranet names
  return /\.(?:localhost|local|internal|lan|home\.arpa|intranet|corp)$/.test(host);
}

/**
 * Parses and checks a full-text URL: http or https only, no credentials, and a public host
 * unless it is listed in `allowHosts`.
 *
 * @throws FullTextError BAD_URL explaining what is wrong.
 */
export function checkFullTextUrl(raw: string | URL, allowHosts: readonly string[] = []): URL {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new FullTextError("BAD_URL", "The full-text address is not a valid URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FullTextError(
      "BAD_URL",
      `Only http and https addresses can be fetched, not ${url.protocol.replace(/:$/, "")}.`,
    );
  }
  if (url.username || url.password) {
    throw new FullTextError("BAD_URL", "Addresses with a user name or password are not fetched.");
  }
  const host = url.hostname.toLowerCase();
  const allowed = allowHosts.some((h) => {
    const a = h.trim().toLowerCase();
    return a !== "" && (a === host || `[${a}]` === host);
  });
  if (!allowed && isPrivateHost(host)) {
    throw new FullTextError(
      "BAD_URL",
      `The address points at a private or local host (${url.hostname}), which is not fetched.`,
    );
  }
  return url;
}

// ---------------------------------------------------------------------------------------------
// HTML and paywall pages

/** Elements dropped with everything inside them: code, chrome and navigation, not article text. */
const DROPPED_ELEMENTS = [
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "nav",
  "header",
  "footer",
  "aside",
  "form",
  "button",
  "select",
  "textarea",
  "iframe",
  "object",
  "canvas",
  "head",
  "dialog",
  "menu",
];
/** Elements that end a line of text. */
const BLOCK_ELEMENTS = new Set([
  "div",
  "section",
  "article",
  "main",
  "li",
  "ul",
  "ol",
  "dl",
  "dt",
  "dd",
  "tr",
  "table",
  "thead",
  "tbody",
  "tfoot",
  "caption",
  "blockquote",
  "pre",
  "figure",
  "figcaption",
  "address",
  "hr",
  "br",
  "sec",
  "abstract",
  "list-item",
  "label",
  "fig",
  "table-wrap",
  "ref",
  "td",
  "th",
]);

/** The inner markup of the outermost `<article>` or `<main>` region, when it holds a real text. */
function mainRegion(html: string): string | null {
  for (const tag of ["article", "main"]) {
    const open = new RegExp(`<${tag}(?=[\\s>])[^>]*>`, "i").exec(html);
    if (!open) continue;
    const close = html.toLowerCase().lastIndexOf(`</${tag}`);
    if (close <= open.index) continue;
    const inner = html.slice(open.index + open[0].length, close);
    if (inner.replace(/<[^>]*>/g, "").replace(/\s+/g, " ").length >= MIN_FULLTEXT_CHARS) return inner;
  }
  return null;
}

/**
 * Converts an HTML (or JATS/XHTML) page to plain text for analysis: drops scripts, styles, forms
 * and page chrome (nav, header, footer, aside…); keeps only the `<article>`/`<main>` region when
 * it holds a text of its own; puts headings and paragraphs on lines of their own separated by
 * blank lines, other blocks on their own line; removes inline tags; decodes entities; collapses
 * spaces within lines and runs of blank lines.
 */
export function htmlToText(html: string): string {
  let s = html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1")
    .replace(/<!DOCTYPE[^>]*>|<\?xml[^>]*\?>/gi, " ");
  for (const tag of DROPPED_ELEMENTS) {
    s = s.replace(new RegExp(`<${tag}(?=[\\s/>])[^>]*?(?:/>|>[\\s\\S]*?</${tag}\\s*>)`, "gi"), " ");
  }
  s = mainRegion(s) ?? s;
  // Line breaks in HTML source are plain spaces; structure comes from the tags alone. Paragraph
  // and heading boundaries are marked with U+E000 (private use), other blocks with "\n", until the end.
  s = s.replace(/\s+/g, " ");
  s = s.replace(/<(h[1-6]|title)(?=[\s>])[^>]*>([\s\S]*?)<\/\1\s*>/gi, (_m, _t: string, inner: string) => {
    const heading = inner
      .replace(/<[^>]*>/g, " ")
      .replace(/\s+/g, " ")
      .trim();
    return heading ? `\uE000${heading}\uE000` : "\n";
  });
  s = s.replace(
    /<\/?([A-Za-z][\w.-]*)(?::([A-Za-z][\w.-]*))?(?:\s[^<>]*)?\/?>/g,
    (_m, first: string, second?: string) => {
      const name = (second ?? first).toLowerCase();
      if (name === "p") return "\uE000";
      if (name === "td" || name === "th") return " ";
      return BLOCK_ELEMENTS.has(name) ? "\n" : "";
    },
  );
  return decodeEntities(s)
    .replace(/[^\S\n]+/g, " ")
    .replace(/ *\n[\s]*/g, "\n")
    .replace(/\s*\uE000[\s\uE000]*/g, "\n\n")
    .trim();
}

/** Phrases of sign-in, purchase and subscription pages. */
const PAYWALL_CUES = [
  /\bsign[ -]?in\b/i,
  /\blog[ -]?in\b/i,
  /\bpurchase\b/i,
  /\binstitutional (?:access|login|subscription)\b/i,
  /\baccess through your institution\b/i,
  /\bbuy (?:this )?(?:article|chapter|pdf|now)\b/i,
  /\brent (?:this )?article\b/i,
  /\bsubscribe\b/i,
  /\bget access\b/i,
  /\bpay[ -]per[ -]view\b/i,
  /\bcheck access\b/i,
  /\bpaywall\b/i,
];

/**
 * Whether a page's text looks like a sign-in or purchase page rather than a paper: very short
 * (under 2,500 characters) with one sign-in/purchase/institutional-access phrase, or under
 * 10,000 characters with two or more different ones.
 */
export function looksLikePaywall(text: string): boolean {
  const length = text.replace(/\s+/g, " ").trim().length;
  if (length >= 10_000) return false;
  const cues = PAYWALL_CUES.filter((re) => re.test(text)).length;
  return (length < 2500 && cues >= 1) || cues >= 2;
}

// ---------------------------------------------------------------------------------------------
// PDF

/**
 * Settles like `work`, unless `signal` aborts first: then calls `onGiveUp` and rejects with the
 * signal's reason. Used for PDF.js calls and body reads, which do not take a signal themselves.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onGiveUp: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      onGiveUp();
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      onGiveUp();
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** Counts non-whitespace characters. */
const visibleChars = (text: string): number => text.replace(/\s+/g, "").length;

/** The PDF's document information dictionary, as PDF.js reports it (strings only; empty ones dropped). */
export interface PdfInfo {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  creationDate?: string;
  /** A DOI stored in the custom "doi" entry (CrossMark-stamped publisher PDFs). */
  doi?: string;
}

/** A run of text on the first page with its font size (points, from the text matrix). */
export interface PdfTextRun {
  text: string;
  fontSize: number;
}

/** What {@link extractPdfDocument} reads from a PDF. */
export interface PdfDocumentText {
  text: string;
  /** Pages whose text was read (at most `maxPages`). */
  pages: number;
  /** Pages in the document. */
  totalPages: number;
  info: PdfInfo;
  /** The first page's non-blank text runs in content order, for layout-based metadata (title = largest type). */
  firstPage: PdfTextRun[];
}

function readInfo(raw: unknown): PdfInfo {
  const info = (raw ?? {}) as Record<string, unknown>;
  const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);
  const custom = (info.Custom ?? {}) as Record<string, unknown>;
  const out: PdfInfo = {};
  const entries: [keyof PdfInfo, unknown][] = [
    ["title", info.Title],
    ["author", info.Author],
    ["subject", info.Subject],
    ["keywords", info.Keywords],
    ["creationDate", info.CreationDate],
    ["doi", custom.doi],
  ];
  for (const [key, value] of entries) {
    const v = str(value);
    if (v) out[key] = v;
  }
  return out;
}

let decompressionGuardInstalled = false;

/**
 * PDF.js decodes Flate/Brotli image streams through a DecompressionStream and does not handle
 * the rejection of the writer's `closed` promise when a stream is corrupt ("Decompression
 * failed."); the read side of the same stream does fail the extraction properly. This marks
 * exactly those stray rejections as handled (logged as a warning) so a damaged PDF does not
 * surface as an unhandled rejection of the Worker. Installed once per isolate.
 */
function guardPdfJsDecompressionRejections(): void {
  if (decompressionGuardInstalled || typeof globalThis.addEventListener !== "function") return;
  decompressionGuardInstalled = true;
  globalThis.addEventListener("unhandledrejection", (event: Event) => {
    const reason = (event as PromiseRejectionEvent).reason as { name?: string; message?: string } | null;
    if (reason?.name === "TypeError" && reason.message === "Decompression failed.") {
      event.preventDefault();
      console.warn("pdf: a corrupt compressed stream was skipped (Decompression failed.)");
    }
  });
}

/** A column gap: at least this many ems of blank space between two text runs on one baseline. */
const COLUMN_GAP_EM = 1.5;

/**
 * One page's text as unpdf's `extractText` joins it (each run's string, `hasEOL` as a newline), except that two runs
 * on the same baseline with a gap of at least {@link COLUMN_GAP_EM} ems between them are joined by a tab: a table's
 * columns (word spaces, even in justified text, stay under 1.3 em), so the text parser can rebuild the table's rows
 * and cells (app/lib/extraction/core/document/text.ts). Font size (the em) is the run's transform scale.
 */
function pageText(items: readonly object[]): string {
  let out = "";
  let previous: { y: number; xEnd: number } | null = null;
  for (const item of items) {
    if (!("str" in item)) continue;
    const run = item as { str: string; hasEOL?: boolean; transform: number[]; width?: number };
    const [, , c = 0, d = 0, x = 0, y = 0] = run.transform;
    const em = Math.hypot(c, d) || 1;
    if (previous && run.str.trim() && Math.abs(y - previous.y) < 0.3 * em && x - previous.xEnd >= COLUMN_GAP_EM * em)
      out += "\t";
    out += run.str + (run.hasEOL ? "\n" : "");
    previous = run.hasEOL ? null : run.str.trim() ? { y, xEnd: x + (run.width ?? 0) } : previous;
  }
  return out;
}

/**
 * Reads a PDF with unpdf (PDF.js): `getDocumentProxy`, then each page's text content joined
 * as unpdf's `extractText({ mergePages: true })` does (items joined, `hasEOL` as newlines,
 * pages separated by a newline, blanks collapsed) but with a table's column gaps kept as tabs
 * (`pageText`), for the first `maxPages` pages only; also
 * the information dictionary and the first page's text runs with their font sizes. `signal`
 * aborting gives up (the PDF.js task is destroyed). `onPage(read, pages)` is awaited after each
 * page is read (`pages` = pages that will be read), so a caller can report progress.
 *
 * @throws FullTextError BAD_PDF (damaged, not a PDF, password-protected, or the owner forbids
 *   copying text), NO_TEXT_LAYER (fewer than 200 visible characters, or under 20 per page on
 *   average: scanned images).
 */
export async function extractPdfDocument(
  bytes: Uint8Array,
  {
    maxPages = DEFAULT_MAX_PAGES,
    signal,
    onPage,
  }: { maxPages?: number; signal?: AbortSignal; onPage?: (read: number, pages: number) => Promise<void> | void } = {},
): Promise<PdfDocumentText> {
  guardPdfJsDecompressionRejections();
  const abort = signal ?? new AbortController().signal;
  type Doc = Awaited<ReturnType<typeof getDocumentProxy>>;
  let doc: Doc | null = null;
  const destroy = () => {
    void doc?.loadingTask.destroy().catch(() => undefined);
  };
  try {
    doc = await untilAborted(
      // A copy: PDF.js may transfer (detach) the buffer it is given.
      getDocumentProxy(bytes.slice(), { verbosity: 0, stopAtErrors: false, disableFontFace: true }),
      abort,
      destroy,
    );
  } catch (error) {
    if (abort.aborted) throw error;
    const name = (error as { name?: string } | null)?.name;
    if (name === "PasswordException") {
      throw new FullTextError("BAD_PDF", "This PDF is password-protected, so its text cannot be read.");
    }
    if (name === "InvalidPDFException") {
      throw new FullTextError("BAD_PDF", "This file is damaged or is not a valid PDF.");
    }
    throw new FullTextError("BAD_PDF", `This PDF could not be read (${(error as Error)?.message ?? "unknown error"}).`);
  }
  const pdf = doc;
  try {
    const permissions = await untilAborted(pdf.getPermissions(), abort, destroy);
    if (Array.isArray(permissions) && !permissions.includes(PDF_PERMISSION_COPY)) {
      throw new FullTextError(
        "BAD_PDF",
        "This PDF is encrypted and its owner does not permit copying or extracting its text.",
      );
    }
    const metadata = await untilAborted(
      pdf.getMetadata().catch(() => ({ info: {} })),
      abort,
      destroy,
    );
    const pages = Math.min(pdf.numPages, Math.max(1, maxPages));
    const texts: string[] = [];
    const firstPage: PdfTextRun[] = [];
    for (let n = 1; n <= pages; n++) {
      const content = await untilAborted(
        pdf.getPage(n).then((page) => page.getTextContent()),
        abort,
        destroy,
      );
      if (n === 1) {
        for (const item of content.items) {
          if (!("str" in item) || !item.str.trim()) continue;
          const [, , c = 0, d = 0] = item.transform as number[];
          firstPage.push({ text: item.str, fontSize: Math.round(Math.hypot(c, d) * 10) / 10 });
        }
      }
      texts.push(pageText(content.items));
      await onPage?.(n, pages);
    }
    const text = texts
      .join("\n")
      .replace(/[^\S\n]+/g, (run) => (run.includes("\t") ? "\t" : " "))
      .replace(/[ \t]*\n[ \t]*/g, "\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
    const visible = visibleChars(text);
    if (visible < MIN_TEXT_LAYER_CHARS || (pages >= 3 && visible / pages < 20)) {
      throw new FullTextError("NO_TEXT_LAYER", "This PDF has no text layer (scanned images)");
    }
    return { text, pages, totalPages: pdf.numPages, info: readInfo(metadata.info), firstPage };
  } catch (error) {
    if (error instanceof FullTextError || abort.aborted) throw error;
    throw new FullTextError(
      "BAD_PDF",
      `This PDF is damaged and its text could not be read (${(error as Error)?.message ?? "unknown error"}).`,
    );
  } finally {
    destroy();
  }
}

/**
 * The text of a PDF: {@link extractPdfDocument} without the metadata.
 *
 * @throws FullTextError BAD_PDF, NO_TEXT_LAYER as extractPdfDocument.
 */
export async function extractPdfText(
  bytes: Uint8Array,
  options: { maxPages?: number; signal?: AbortSignal } = {},
): Promise<{ text: string; pages: number; totalPages: number }> {
  const { text, pages, totalPages } = await extractPdfDocument(bytes, options);
  return { text, pages, totalPages };
}

// ---------------------------------------------------------------------------------------------
// Download

/**
 * Reads a body with the shared upstream cap ({@link readBodyBytes}: cancelled as soon as it
 * exceeds `maxBytes` → TOO_LARGE, or when `signal` aborts → the signal's reason).
 */
async function readBody(response: Response, maxBytes: number, signal: AbortSignal): Promise<Uint8Array> {
  try {
    return await readBodyBytes(response, maxBytes, { signal });
  } catch (error) {
    if (error instanceof AnswerTooLargeError) throw tooLarge(maxBytes);
    throw error;
  }
}

function tooLarge(maxBytes: number): FullTextError {
  return new FullTextError("TOO_LARGE", `The full text is larger than ${Math.round(maxBytes / (1024 * 1024))} MB.`);
}

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

/** Whether the bytes are a PDF: "%PDF-" within the first 1,024 bytes (as readers accept). */
export function hasPdfMagic(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 1024) - PDF_MAGIC.length;
  for (let i = 0; i <= end; i++) {
    if (PDF_MAGIC.every((b, k) => bytes[i + k] === b)) return true;
  }
  return false;
}

/** Whether the bytes start (after blanks and a BOM) like an HTML or XML document. */
export function looksLikeMarkup(bytes: Uint8Array): boolean {
  const head = new TextDecoder()
    .decode(bytes.subarray(0, 2048))
    .replace(/^\uFEFF/, "")
    .trimStart()
    .toLowerCase();
  return /^<(?:!doctype html|html|head|body|\?xml|!--)/.test(head);
}

/** Decodes text with the charset of the Content-Type (UTF-8 when absent or unsupported). */
function decodeText(bytes: Uint8Array, contentType: string): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

/** Thrown to signal that the deadline passed. */
class DeadlineError extends Error {
  constructor() {
    super("deadline");
  }
}

/**
 * Downloads the full text at `url` and returns it as plain text.
 *
 * - Only http(s) URLs; private, loopback and link-local hosts and IP literals are refused unless
 *   listed in `allowHosts` (see {@link checkFullTextUrl}). Redirects (301/302/303/307/308) are
 *   followed by hand, at most `maxRedirects` (5), each hop checked again.
 * - 401, 402, 403, 429 and 451 → {@link PublisherRefusedError}; 404/410, other errors, network
 *   failures and redirect loops → UNAVAILABLE.
 * - The body is streamed and abandoned past `maxBytes` (15 MB; a larger Content-Length is
 *   refused before reading) → TOO_LARGE. Download plus extraction must finish within
 *   `timeoutMs` (15 s) → TIMEOUT. `deps.signal` aborting rethrows its reason.
 * - Kind: a PDF when "%PDF-" is in the first 1,024 bytes (whatever the Content-Type). A body
 *   declared `application/pdf` that is not one → BAD_PDF (typically an HTML landing page saved
 *   under a .pdf address). HTML/XHTML/XML (by type or by sniffing) → {@link htmlToText}; a
 *   sign-in or purchase page ({@link looksLikePaywall}) → PublisherRefusedError. `text/plain`
 *   → the text. Anything else (images, archives…) → NOT_TEXT.
 * - PDFs: see {@link extractPdfText} (first `maxPages` pages; BAD_PDF, NO_TEXT_LAYER).
 * - A text under `minChars` (1,500) characters → TOO_SHORT.
 */
export async function fetchFullText(
  deps: FetchFullTextDeps,
  url: string,
  options: FetchFullTextOptions = {},
): Promise<FullText> {
  const {
    maxBytes = DEFAULT_MAX_BYTES,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    maxPages = DEFAULT_MAX_PAGES,
    maxRedirects = DEFAULT_MAX_REDIRECTS,
    allowHosts = [],
    minChars = MIN_FULLTEXT_CHARS,
  } = options;

  let current = checkFullTextUrl(url, allowHosts);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineError()), timeoutMs);
  const onOuterAbort = () => controller.abort(deps.signal!.reason);
  if (deps.signal?.aborted) onOuterAbort();
  deps.signal?.addEventListener("abort", onOuterAbort, { once: true });

  try {
    let response: Response | null = null;
    for (let hop = 0; ; hop++) {
      try {
        response = await deps.fetch(current.href, {
          method: "GET",
          redirect: "manual",
          signal: controller.signal,
          headers: { Accept: ACCEPT, "User-Agent": USER_AGENT },
        });
      } catch (error) {
        if (controller.signal.aborted) throw controller.signal.reason;
        throw new FullTextError(
          "UNAVAILABLE",
          `The full text could not be downloaded (${(error as Error)?.message ?? "network error"}).`,
        );
      }
      if (!REDIRECT_STATUSES.has(response.status)) break;
      const location = response.headers.get("Location");
      await response.body?.cancel().catch(() => undefined);
      if (!location)
        throw new FullTextError("UNAVAILABLE", `The publisher answered HTTP ${response.status} without a Location.`);
      if (hop >= maxRedirects) {
        throw new FullTextError("UNAVAILABLE", `The full-text address redirected more than ${maxRedirects} times.`);
      }
      current = checkFullTextUrl(new URL(location, current), allowHosts);
    }

    if (REFUSAL_STATUSES.has(response.status)) {
      await response.body?.cancel().catch(() => undefined);
      throw new PublisherRefusedError(
        `The publisher refused automated access (HTTP ${response.status}).`,
        response.status,
      );
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      const what = response.status === 404 || response.status === 410 ? "was not found" : "could not be downloaded";
      throw new FullTextError("UNAVAILABLE", `The full text ${what} (HTTP ${response.status}).`);
    }

    const contentType = (response.headers.get("Content-Type") ?? "").toLowerCase();
    const bytes = await readBody(response, maxBytes, controller.signal);
    const finalUrl = current.href;
    const base = { bytes: bytes.byteLength, finalUrl };

    let result: FullText;
    if (hasPdfMagic(bytes)) {
      const pdf = await extractPdfText(bytes, { maxPages, signal: controller.signal });
      result = { kind: "pdf", text: pdf.text, pages: pdf.pages, totalPages: pdf.totalPages, ...base };
    } else if (contentType.includes("pdf")) {
      throw new FullTextError(
        "BAD_PDF",
        looksLikeMarkup(bytes)
          ? "The address promised a PDF but returned a web page (often a publisher's landing or sign-in page)."
          : "The address promised a PDF but the file is not one.",
      );
    } else if (
      /html|[/+]xml(?:;|$)/.test(contentType) ||
      ((contentType === "" || contentType.startsWith("text/") || contentType.includes("octet-stream")) &&
        looksLikeMarkup(bytes))
    ) {
      const text = htmlToText(decodeText(bytes, contentType));
      if (looksLikePaywall(text)) {
        throw new PublisherRefusedError(
          "The publisher's page asks to sign in or pay instead of showing the full text.",
          response.status,
        );
      }
      result = { kind: "html", text, ...base };
    } else if (contentType.startsWith("text/plain") || contentType === "") {
      const text = decodeText(bytes, contentType).replace(/\r\n?/g, "\n").trim();
      if (contentType === "" && /\uFFFD/.test(text.slice(0, 2000))) {
        throw new FullTextError("NOT_TEXT", "The address does not serve a PDF, a web page or text.");
      }
      result = { kind: "text", text, ...base };
    } else {
      throw new FullTextError(
        "NOT_TEXT",
        `The address does not serve a PDF, a web page or text (it sent ${contentType.split(";")[0]}).`,
      );
    }

    const length = visibleChars(result.text);
    if (length < minChars) {
      throw new FullTextError(
        "TOO_SHORT",
        `The document has only ${length} characters of text, too little to be the full text of a paper.`,
      );
    }
    return result;
  } catch (error) {
    if (deps.signal?.aborted) throw deps.signal.reason;
    if (
      error instanceof DeadlineError ||
      (controller.signal.reason instanceof DeadlineError && !(error instanceof FullTextError))
    ) {
      throw new FullTextError(
        "TIMEOUT",
        `The full text did not arrive within ${Math.round(timeoutMs / 1000)} seconds.`,
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
    deps.signal?.removeEventListener("abort", onOuterAbort);
  }
}
