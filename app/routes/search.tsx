import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { getUser } from "~/.server/auth/session";
import { getSubscriptionStatus } from "~/.server/billing/usage";
import { getUserSettings } from "~/.server/settings/queries";
import { isDevelopment } from "~/.server/env";
import { SearchPage } from "~/components/search/page/search-page";

export const meta: MetaFunction = () => [{ title: "Search Studies · MetaMind" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const app = context.app;
  const user = await getUser(app, request);
  // Development only: a failed search names `npm run start:offline` (recorded responses, no network).
  const development = isDevelopment(app.env);
  if (!user) return { signedIn: false, isPro: false, defaults: null, usage: null, development };
  const [settings, subscription] = await Promise.all([
    getUserSettings(app, { userId: user.id }),
    getSubscriptionStatus(app, { user, now: new Date() }),
  ]);
  return {
    signedIn: true,
    isPro: user.plan === "pro",
    defaults: { provider: settings.defaultSearchProvider, limit: settings.searchResultsPerPage },
    usage: { used: subscription.usage.aiSummaries, limit: subscription.limits.AI_SUMMARIES_PER_MONTH },
    development,
  };
}

/** /search (SPEC §4): the page lives in components/search/page (the search-run hook, form state). */
export default function SearchRoute() {
  const data = useLoaderData<typeof loader>();
  return <SearchPage data={data} />;
}
