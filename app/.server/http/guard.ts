import { DOCUMENT_CONTENT_SECURITY_POLICY, PERMISSIONS_POLICY, STRICT_TRANSPORT_SECURITY } from "./csp";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF defence for cookie-authenticated mutations: a non-safe request whose Origin (or, failing
 * that, Sec-Fetch-Site) says it came from another site is refused with 403 {error:'CSRF_REJECTED'}.
 * Returns null when the request may proceed.
 */
export function guardRequest(request: Request): Response | null {
  if (SAFE_METHODS.has(request.method)) return null;
  const origin = request.headers.get("Origin");
  const self = new URL(request.url).origin;
  const fetchSite = request.headers.get("Sec-Fetch-Site");
  const crossSite = origin ? origin !== self : fetchSite === "cross-site";
  if (!crossSite) return null;
  return Response.json({ error: "CSRF_REJECTED", message: "Cross-site requests are not allowed." }, { status: 403 });
}

/**
 * Adds conservative security headers to every response that does not set its own: nosniff,
 * Referrer-Policy, X-Frame-Options DENY, Strict-Transport-Security and Permissions-Policy (see
 * ./csp). App pages carry their nonce CSP from entry.server; any other HTML response (an HTML
 * export, a page not rendered by Remix) gets the script-free document policy.
 */
export function withSecurityHeaders(response: Response): Response {
  const headers = new Headers(response.headers);
  if (!headers.has("X-Content-Type-Options")) headers.set("X-Content-Type-Options", "nosniff");
  if (!headers.has("Referrer-Policy")) headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  if (!headers.has("X-Frame-Options")) headers.set("X-Frame-Options", "DENY");
  if (!headers.has("Strict-Transport-Security")) headers.set("Strict-Transport-Security", STRICT_TRANSPORT_SECURITY);
  if (!headers.has("Permissions-Policy")) headers.set("Permissions-Policy", PERMISSIONS_POLICY);
  const isHtml = /^\s*(text\/html|application\/xhtml\+xml)/i.test(headers.get("Content-Type") ?? "");
  if (isHtml && !headers.has("Content-Security-Policy")) {
    headers.set("Content-Security-Policy", DOCUMENT_CONTENT_SECURITY_POLICY);
  }
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
