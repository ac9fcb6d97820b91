/**
 * The Worker's lean renderer of public share pages (issue 14, bench/share): a GET of
 * /answer|workout|meal-plan/{32-hex id} whose item is in KV is answered here, before Remix, with
 * one KV read and one React render of a static document: no session lookup, no demo seeding, no
 * root loader, no route matching, no hydration data. The page is the one the Remix route renders
 * for a guest (same header, footer, body and meta tags; app/components/sharing/shared-pages.tsx),
 * complete without JavaScript, rendered as static markup (it is never hydrated), and carries no
 * <script> at all: nothing on it needs script (a guest
 * sees only links), so its Content-Security-Policy nonce (fresh per rendered response) allows
 * nothing, and a copy served from a shared cache holds no reusable nonce.
 *
 * Anything else (another method, an unknown or malformed id, a Remix data request "….data") is left
 * to Remix, which renders the 404 page for unknown ids.
 *
 * The Worker reaches this module through the server build's entry module (app/entry.server.tsx
 * re-exports {@link serveSharePage}), so it shares the build's React and asset URLs.
 */
import { renderToStaticMarkup } from "react-dom/server";
import { createPath, parsePath, Router, type Navigator } from "react-router-dom";
import { Footer } from "~/components/footer";
import { Header } from "~/components/header";
import { SharedItemArticle, sharedItemMeta } from "~/components/sharing/shared-pages";
import type { SharedItem, SharedKind } from "~/lib/sharing";
import stylesheet from "~/tailwind.css?url";
import { appContentSecurityPolicy, createNonce } from "../http/csp";
import { PUBLIC_SHARE_CACHE_CONTROL } from "./public";
import { getSharedItem } from "./store";

/** The document paths this renderer answers: kind and public id. */
const LEAN_SHARE_PATH = /^\/(answer|workout|meal-plan)\/([0-9a-f]{32})$/;

/**
 * The router context the shared header's and footer's links need, for a document that never
 * navigates (what react-router's StaticRouter does; the package's main entry is the copy Remix
 * uses, so its Link sees this context).
 */
const STATIC_NAVIGATOR: Navigator = {
  createHref: (to) => (typeof to === "string" ? to : createPath(to)),
  encodeLocation: (to) => {
    const path = typeof to === "string" ? parsePath(to) : to;
    return { pathname: path.pathname ?? "", search: path.search ?? "", hash: path.hash ?? "" };
  },
  go: refuseNavigation,
  push: refuseNavigation,
  replace: refuseNavigation,
};

function refuseNavigation(): never {
  throw new Error("A server-rendered share page cannot navigate.");
}

/** The signature of {@link serveSharePage}, as the Worker (workers/app.ts) calls it. */
export type ServeSharePage = (request: Request, kv: KVNamespace) => Promise<Response | null>;

function Head({ item, url }: { item: SharedItem; url: string }) {
  return (
    <head>
      <meta charSet="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      {sharedItemMeta(item, url).map((tag) =>
        "title" in tag ? (
          <title key="title">{tag.title}</title>
        ) : "name" in tag ? (
          <meta key={tag.name} name={tag.name} content={tag.content} />
        ) : (
          <meta key={tag.property} property={tag.property} content={tag.content} />
        ),
      )}
      <link rel="stylesheet" href={stylesheet} />
      <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
    </head>
  );
}

/** The whole document of a shared item's page at `url` (as root.tsx lays out a guest's page). */
export function SharePageDocument({ item, url }: { item: SharedItem; url: string }) {
  return (
    <html lang="en">
      <Head item={item} url={url} />
      <body className="flex min-h-screen flex-col">
        <Router location={new URL(url).pathname} navigator={STATIC_NAVIGATOR} static>
          <Header user={null} />
          <main className="flex-1">
            <SharedItemArticle item={item} />
          </main>
          <Footer />
        </Router>
      </body>
    </html>
  );
}

/**
 * Answers a document GET of a stored share page, or null to leave the request to Remix.
 * @param kv the KV namespace holding `shared:{id}` payloads (store.ts).
 * @returns 200 text/html with the public Cache-Control (public.ts) and the app's nonce CSP, or
 *   null (not a share page path, not GET, unknown/malformed id or another kind's id).
 */
export const serveSharePage: ServeSharePage = async (request, kv) => {
  if (request.method !== "GET") return null;
  const match = LEAN_SHARE_PATH.exec(new URL(request.url).pathname);
  if (!match) return null;
  const item = await getSharedItem(kv, { kind: match[1] as SharedKind, id: match[2]! });
  if (!item) return null;
  const html = `<!DOCTYPE html>${renderToStaticMarkup(<SharePageDocument item={item} url={request.url} />)}`;
  return new Response(html, {
    status: 200,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": PUBLIC_SHARE_CACHE_CONTROL,
      "Content-Security-Policy": appContentSecurityPolicy(createNonce(), { dev: import.meta.env.DEV }),
    },
  });
};
