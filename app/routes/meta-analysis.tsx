import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { getUser } from "~/.server/auth/session";
import { MetaAnalysisPage } from "~/components/meta-analysis/page/meta-analysis-page";

export const meta: MetaFunction = () => [{ title: "Meta-Analysis · MetaMind" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(context.app, request);
  return { signedIn: !!user, userLabel: user?.email ?? "guest" };
}

/** /meta-analysis (SPEC §2): the page lives in components/meta-analysis/page (hooks and one component per step). */
export default function MetaAnalysisRoute() {
  const { signedIn, userLabel } = useLoaderData<typeof loader>();
  return <MetaAnalysisPage signedIn={signedIn} userLabel={userLabel} />;
}
