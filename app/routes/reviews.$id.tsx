import { redirect, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useNavigate, useRevalidator, useSearchParams } from "@remix-run/react";
import { ArrowLeft, FlaskConical } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import { getLanguageModel, modelConfigFromEnv } from "~/.server/ai/registry";
import { getUser } from "~/.server/auth/session";
import { AppError } from "~/.server/http/errors";
import { getReview } from "~/.server/reviews/service";
import { ReviewAnalysisPanel } from "~/components/reviews/analysis-tab";
import { CharacteristicsTab } from "~/components/reviews/characteristics-tab";
import { ExtractionTab } from "~/components/reviews/extraction-tab";
import { FullTextTab } from "~/components/reviews/fulltext-tab";
import { LivingPanel } from "~/components/reviews/living-panel";
import { PrismaTab } from "~/components/reviews/prisma-tab";
import { RecordsTab } from "~/components/reviews/records-tab";
import { RiskOfBiasTab } from "~/components/reviews/risk-of-bias-tab";
import { ScreeningTab } from "~/components/reviews/screening-tab";
import { TeamTab } from "~/components/reviews/team-tab";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "~/components/ui/tabs";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.review.title ?? "Review"} · MetaMind` },
];

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const user = await getUser(context.app, request);
  if (!user) throw redirect("/auth");
  try {
    const review = await getReview(context.app, { userId: user.id, reviewId: params.id });
    const aiConfigured =
      getLanguageModel(modelConfigFromEnv(context.app.env, context.app.fetch)).provider !== "offline";
    return { review, aiConfigured, userId: user.id };
  } catch (error) {
    if (error instanceof AppError && error.status === 404) throw new Response("Review not found", { status: 404 });
    throw error;
  }
}

const TABS = [
  "records",
  "screening",
  "fulltext",
  "extraction",
  "characteristics",
  "analysis",
  "prisma",
  "team",
  "risk-of-bias",
] as const;
type Tab = (typeof TABS)[number];

/** /reviews/{id}: one review with the tabs Records, Screening, Full text, Data extraction, Characteristics, Analysis, PRISMA, Team and Risk of bias. */
export default function ReviewPage() {
  const { review, aiConfigured, userId } = useLoaderData<typeof loader>();
  const navigate = useNavigate();
  const revalidator = useRevalidator();
  const [params] = useSearchParams();
  const [tab, setTab] = useState<Tab>(() =>
    (TABS as readonly string[]).includes(params.get("tab") ?? "") ? (params.get("tab") as Tab) : "records",
  );
  // The tab is kept in the address without a navigation (no loader run, no aborted revalidation).
  const selectTab = (value: string) => {
    if (!(TABS as readonly string[]).includes(value)) return;
    setTab(value as Tab);
    const url = new URL(window.location.href);
    url.searchParams.set("tab", value);
    window.history.replaceState(window.history.state, "", url);
  };
  // One revalidation at a time: a second one started while the first loads would abort it, and with
  // single fetch the aborted load surfaces as an unhandled AbortError. Calls meanwhile are coalesced
  // into one more revalidation once the current one has finished.
  const loading = useRef(false);
  const again = useRef(false);
  /** Bumped after a living update, so the PRISMA tab reloads its counts (the updated-review diagram). */
  const [prismaRevision, setPrismaRevision] = useState(0);
  const refresh = useCallback(() => {
    if (loading.current) {
      again.current = true;
      return;
    }
    loading.current = true;
    revalidator.revalidate();
  }, [revalidator]);
  // A revalidation has ended when the state is idle again or new loader data arrived: React may
  // render idle → loading → idle as one idle (a fast answer on a busy page), and then only the
  // data tells; without it every later refresh would wait for a transition that never comes.
  useEffect(() => {
    if (revalidator.state !== "idle" || !loading.current) return;
    loading.current = false;
    if (again.current) {
      again.current = false;
      refresh();
    }
  }, [revalidator.state, refresh, review]);
  const q = review.question;

  return (
    <div className="mx-auto max-w-6xl px-4 py-8">
      <Link to="/reviews" className="inline-flex items-center gap-1 text-sm text-brand-700 hover:underline">
        <ArrowLeft className="size-4" aria-hidden /> All reviews
      </Link>
      <h1 className="mt-2 text-2xl font-semibold text-slate-900">{review.title}</h1>
      {(q.text || q.population || q.intervention) && (
        <p className="mt-1 text-sm text-slate-600">
          {[
            q.text,
            q.population && `P: ${q.population}`,
            q.intervention && `I: ${q.intervention}`,
            q.comparator && `C: ${q.comparator}`,
            q.outcomes && `O: ${q.outcomes}`,
          ]
            .filter(Boolean)
            .join(" · ")}
        </p>
      )}
      <div className="mt-3 flex flex-wrap gap-2 text-xs" data-testid="review-counts">
        {review.role !== "owner" && <Badge variant="outline">Shared with you as {review.role}</Badge>}
        {review.screening.mode === "dual" && (
          <Badge variant="outline">Dual screening{review.screening.blind ? ", blind" : ""}</Badge>
        )}
        <Badge variant="secondary">{review.counts.records} records</Badge>
        <Badge variant="secondary">{review.counts.duplicates} duplicates merged</Badge>
        <Badge variant="secondary">{review.counts.screened} screened</Badge>
        <Badge variant="secondary">{review.counts.included} included at title/abstract</Badge>
        <Badge variant="secondary">{review.counts.fullTextIncluded} included at full text</Badge>
      </div>

      <Tabs value={tab} onValueChange={selectTab} className="mt-6">
        <TabsList>
          <TabsTrigger value="records">Records</TabsTrigger>
          <TabsTrigger value="screening">Screening</TabsTrigger>
          <TabsTrigger value="fulltext">Full text</TabsTrigger>
          <TabsTrigger value="extraction">Data extraction</TabsTrigger>
          <TabsTrigger value="characteristics">Characteristics</TabsTrigger>
          <TabsTrigger value="analysis">Analysis</TabsTrigger>
          <TabsTrigger value="prisma">PRISMA</TabsTrigger>
          <TabsTrigger value="team">Team</TabsTrigger>
          <TabsTrigger value="risk-of-bias">Risk of bias</TabsTrigger>
        </TabsList>
        <TabsContent value="records" className="mt-4">
          <RecordsTab review={review} onChanged={refresh} />
        </TabsContent>
        <TabsContent value="screening" className="mt-4">
          {tab === "screening" &&
            (review.role === "viewer" ? (
              <p className="text-sm text-slate-700">
                You are a viewer of this review: you can read its records and results but not screen.
              </p>
            ) : (
              <ScreeningTab review={review} aiConfigured={aiConfigured} onChanged={refresh} />
            ))}
        </TabsContent>
        <TabsContent value="fulltext" className="mt-4">
          {tab === "fulltext" && <FullTextTab review={review} onChanged={refresh} />}
        </TabsContent>
        <TabsContent value="extraction" className="mt-4">
          {tab === "extraction" && <ExtractionTab review={review} userId={userId} />}
        </TabsContent>
        <TabsContent value="characteristics" className="mt-4">
          {tab === "characteristics" && <CharacteristicsTab review={review} />}
        </TabsContent>
        <TabsContent value="analysis" className="mt-4">
          <section className="space-y-3">
            <p className="text-sm text-slate-700">
              {review.counts.fullTextIncluded === 1 ? "1 study is" : `${review.counts.fullTextIncluded} studies are`}{" "}
              included at full text. They are the studies of the meta-analysis: extract their effect data, pool them and
              get the report with this review&apos;s PRISMA 2020 diagram. Each outcome&apos;s arm-level data (2×2 or
              means/SDs/n) can be checked, corrected and pooled in{" "}
              <button type="button" className="text-brand-700 underline" onClick={() => selectTab("extraction")}>
                Data extraction
              </button>
              .
            </p>
            {review.counts.fullTextIncluded < 2 ? (
              <>
                <p
                  id="open-meta-analysis-reason"
                  className="text-sm text-amber-700"
                  data-testid="open-meta-analysis-reason"
                >
                  A meta-analysis needs at least 2 studies included at full text ({review.counts.fullTextIncluded} so
                  far).
                </p>
                <Button
                  type="button"
                  disabled
                  aria-describedby="open-meta-analysis-reason"
                  data-testid="open-meta-analysis"
                >
                  <FlaskConical aria-hidden /> Open in meta-analysis
                </Button>
              </>
            ) : (
              <Button asChild>
                <Link to={`/meta-analysis?review=${encodeURIComponent(review.id)}`} data-testid="open-meta-analysis">
                  <FlaskConical aria-hidden /> Open in meta-analysis
                </Link>
              </Button>
            )}
          </section>
          {tab === "analysis" && review.counts.fullTextIncluded >= 2 && (
            <div className="mt-6">
              <ReviewAnalysisPanel review={review} />
            </div>
          )}
        </TabsContent>
        <TabsContent value="prisma" className="mt-4">
          {tab === "prisma" && (
            <div className="space-y-6">
              <PrismaTab key={prismaRevision} reviewId={review.id} />
              {review.role === "owner" && (
                <LivingPanel review={review} onChanged={refresh} onUpdated={() => setPrismaRevision((n) => n + 1)} />
              )}
            </div>
          )}
        </TabsContent>
        <TabsContent value="team" className="mt-4">
          {tab === "team" && (
            <TeamTab review={review} userId={userId} onChanged={refresh} onLeft={() => navigate("/reviews")} />
          )}
        </TabsContent>
        <TabsContent value="risk-of-bias" className="mt-4">
          {tab === "risk-of-bias" && <RiskOfBiasTab review={review} />}
        </TabsContent>
      </Tabs>
    </div>
  );
}
