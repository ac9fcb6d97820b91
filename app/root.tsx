import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import { getUser, toPublicUser, type PublicUser } from "~/.server/auth/session";
import { PUBLIC_SHARE_PATH } from "~/.server/sharing/public";
import { Footer } from "~/components/footer";
import { Header } from "~/components/header";
import { InstallBannerHost } from "~/components/install-banner-host";
import { NotFound } from "~/components/not-found";
import { Toaster } from "~/components/ui/toaster";
import { useNonce } from "~/browser/nonce";
import type { ReactNode } from "react";
import { AfterHydration, lazyComponent } from "~/components/on-demand";
import stylesheet from "~/tailwind.css?url";

/** Signed-in pages only, after hydration: not part of any page's initial JavaScript. */
const SessionGuard = lazyComponent(() => import("~/components/session-guard").then((m) => m.SessionGuard));

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
  // Installable app (pwa.config.ts): the manifest and the home-screen icon iOS reads instead.
  { rel: "manifest", href: "/manifest.webmanifest" },
  { rel: "apple-touch-icon", href: "/icons/apple-touch-icon.png", sizes: "180x180" },
];

export const meta: MetaFunction = () => [
  { title: "MetaMind — search six databases, AI summaries, meta-analysis" },
  {
    name: "description",
    content:
      "Search PubMed, Crossref, Europe PMC, CORE, Semantic Scholar and DOAJ at once, read AI summaries and build meta-analysis reports.",
  },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  // Public share pages are cached by shared caches: they must not carry the signed-in user.
  if (PUBLIC_SHARE_PATH.test(new URL(request.url).pathname)) return { user: null };
  const user = await getUser(context.app, request);
  return { user: user ? toPublicUser(user) : null };
}

/** The signed-in user as loaded by the root route (null for guests). */
export function useOptionalUser(): PublicUser | null {
  const data = useRouteLoaderData<typeof loader>("root");
  return data?.user ?? null;
}

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#1f58d6" />
        <Meta />
        <Links />
      </head>
      <body className="flex min-h-screen flex-col">
        <Header user={data?.user ?? null} />
        <main className="flex-1">{children}</main>
        <Footer />
        <Toaster />
        <InstallBannerHost userId={data?.user?.id ?? null} />
        {data?.user && (
          <AfterHydration fallback={null}>
            <SessionGuard userId={data.user.id} />
          </AfterHydration>
        )}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  const message = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : "Something went wrong. Please try again.";
  return (
    <div className="mx-auto max-w-2xl px-4 py-16 text-center">
      <h1 className="text-2xl font-semibold">Unexpected error</h1>
      <p className="mt-2 text-slate-600">{message}</p>
      <a href="/" className="mt-6 inline-block text-brand-600 underline">
        Go to the home page
      </a>
    </div>
  );
}
