/**
 * User and report HTML outside the app's own pages (issue 11): it is never opened at the app's
 * origin with script allowed. Views use a sandboxed `srcdoc` frame (no allow-scripts, no
 * allow-same-origin); downloads, prints and HTML exports carry this Content-Security-Policy as the
 * first element of their <head>, so no script, handler, plug-in, form, frame or network fetch can
 * run even where the document is opened at our origin (a blob: URL) or from disk.
 */

/** No script, no network: inline CSS and data: images and fonts only. */
export const USER_HTML_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; " +
  "base-uri 'none'; form-action 'none'; frame-src 'none'; object-src 'none'";

const META_CSP = `<meta http-equiv="Content-Security-Policy" content="${USER_HTML_CSP}">`;

/**
 * The document with {@link USER_HTML_CSP} as its first head element (before anything the
 * document's own markup could use to run code), then `head` (trusted markup such as print styles).
 * A leading doctype is kept in front; the parser folds the document's own <html>/<head> tags into
 * the elements the meta tag has opened.
 */
export function withUserHtmlCsp(html: string, head = ""): string {
  const body = html.replace(/^\uFEFF?\s*<!doctype[^>]*>/i, "");
  return `<!DOCTYPE html><html><head>${META_CSP}<meta charset="utf-8">${head}</head>${body}`;
}

/**
 * The URL when it is absolute http(s), otherwise null: links taken from upstream or user data
 * (open-access copies) must never be `javascript:`, `data:` or `blob:` URLs, which would run at
 * our origin when opened with window.open or followed from an <a>.
 */
export function httpUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}
