import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { loadSharedPage, PUBLIC_SHARE_CACHE_CONTROL } from "~/.server/sharing/public";
import { SharedWorkoutArticle, sharedItemMeta } from "~/components/sharing/shared-pages";
import type { SharedItem } from "~/lib/sharing";

type Data = { item: Extract<SharedItem, { kind: "workout" }>; url: string };

/**
 * GET /workout/{id}: a shared 4-week training program, public and complete without JavaScript; 404 page for unknown ids. A
 * document request for a stored plan is answered by the Worker's lean renderer
 * (app/.server/sharing/share-page.tsx) before Remix; this route serves client-side navigation and
 * the 404 page.
 */
export async function loader({ params, request, context }: LoaderFunctionArgs) {
  const item = await loadSharedPage(context.app, { kind: "workout", id: params.id });
  return Response.json({ item, url: request.url }, { headers: { "Cache-Control": PUBLIC_SHARE_CACHE_CONTROL } });
}

export const headers: HeadersFunction = ({ loaderHeaders }) => ({
  "Cache-Control": loaderHeaders.get("Cache-Control") ?? "no-store",
});

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  const d = data as Data | undefined;
  if (!d) return [{ title: "404 Page Not Found | MetaMind" }];
  return sharedItemMeta(d.item, d.url);
};

export default function SharedWorkoutPage() {
  const { item } = useLoaderData<typeof loader>() as unknown as Data;
  return <SharedWorkoutArticle item={item} />;
}
