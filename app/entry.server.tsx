import type { AppLoadContext, EntryContext } from "@remix-run/cloudflare";
import { RemixServer } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToReadableStream } from "react-dom/server";
import { appContentSecurityPolicy, createNonce } from "~/.server/http/csp";
import { NonceContext } from "~/browser/nonce";

/** The Worker's lean renderer of stored share pages, reached through the build's entry module (workers/app.ts). */
export { serveSharePage } from "~/.server/sharing/share-page";

const ABORT_DELAY = 5000;

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  _loadContext: AppLoadContext,
) {
  // A fresh nonce per document: Remix's inline scripts, its streamed data scripts and React's
  // Suspense scripts carry it; the policy allows no other inline script.
  const nonce = createNonce();
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(), ABORT_DELAY);
  const body = await renderToReadableStream(
    <NonceContext.Provider value={nonce}>
      <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
    </NonceContext.Provider>,
    {
      nonce,
      signal: controller.signal,
      onError(error: unknown) {
        if (!controller.signal.aborted) console.error(error);
        responseStatusCode = 500;
      },
    },
  );
  body.allReady.then(() => clearTimeout(timeout));
  if (isbot(request.headers.get("user-agent") || "")) await body.allReady;
  responseHeaders.set("Content-Type", "text/html");
  responseHeaders.set("Content-Security-Policy", appContentSecurityPolicy(nonce, { dev: import.meta.env.DEV }));
  return new Response(body, { headers: responseHeaders, status: responseStatusCode });
}
