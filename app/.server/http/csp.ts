import { USER_HTML_CSP } from "~/lib/user-html";

/**
 * Content-Security-Policy of the app's pages (issue 11). Scripts run only from our origin or with
 * the per-request nonce Remix puts on its inline scripts (`<Scripts nonce>`,
 * `<ScrollRestoration nonce>`, React's streaming scripts); no 'unsafe-inline' or 'unsafe-eval'
 * for scripts. Styles allow 'unsafe-inline': server-rendered React `style` attributes (plots,
 * progress bars) and Radix's injected scroll-lock <style> need it, and CSS cannot run script in
 * the browsers we support. Images allow data: and blob: (inline plots, generated previews).
 * The installable app: `worker-src 'self'` lets the page register /sw.js (same origin; blob: for
 * PDF.js's worker) and `manifest-src 'self'` lets it load /manifest.webmanifest.
 * `object-src 'none'`, `base-uri 'self'`, `form-action 'self'` and `frame-ancestors 'none'` close
 * plug-ins, <base> hijacking, off-site form posts and click-jacking.
 *
 * In the Vite dev server, connect-src also allows ws:/wss: for HMR.
 * @param nonce base64 nonce from {@link createNonce}, fresh for each response
 */
export function appContentSecurityPolicy(nonce: string, { dev = false }: { dev?: boolean } = {}): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "frame-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Policy for HTML the app serves that is not one of its pages (exports): no script at all. */
export const DOCUMENT_CONTENT_SECURITY_POLICY = `${USER_HTML_CSP}; frame-ancestors 'none'`;

/** Two years, subdomains included (hstspreload.org's minimum is one year). Browsers ignore it over http. */
export const STRICT_TRANSPORT_SECURITY = "max-age=63072000; includeSubDomains";

/**
 * Powerful features the app never uses, refused for it and for every frame. Only features every
 * current browser recognises: Chromium logs an error for an unknown one.
 */
export const PERMISSIONS_POLICY =
  "accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()";

/** A fresh nonce: 16 random bytes from the Web Crypto API, base64 (CSP Level 3 §2.3.1 asks for ≥128 bits). */
export function createNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
