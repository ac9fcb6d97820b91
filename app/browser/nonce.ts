import { createContext, useContext } from "react";

/**
 * The CSP nonce of the current document response (app/.server/http/csp.ts). The server renders
 * inside a provider with the request's nonce; in the browser it is "" (browsers hide a nonce from
 * the DOM, and scripts added after hydration are loaded from our origin, which the policy allows).
 */
export const NonceContext = createContext("");

/** The nonce for inline <script> elements rendered by this document. */
export function useNonce(): string {
  return useContext(NonceContext);
}
