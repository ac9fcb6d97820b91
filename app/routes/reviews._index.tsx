import { redirect, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useNavigate } from "@remix-run/react";
import { ListChecks, Loader2, Plus } from "lucide-react";
import { useState, type FormEvent } from "react";
import { getUser } from "~/.server/auth/session";
import { listReviews } from "~/.server/reviews/service";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardContent } from "~/components/ui/card";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { ReviewApiError, reviewsApi } from "~/browser/reviews-client";
import { toast } from "~/browser/toast";

export const meta: MetaFunction = () => [{ title: "Systematic reviews · MetaMind" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(context.app, request);
  if (!user) throw redirect("/auth");
  return { reviews: await listReviews(context.app, { userId: user.id }), isPro: user.plan === "pro" };
}

const textarea =
  "w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm shadow-sm focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:outline-none";

/** /reviews: the user's systematic reviews and the form that starts one (title, PICO, criteria). */
export default function ReviewsPage() {
  const { reviews, isPro } = useLoaderData<typeof loader>();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const get = (k: string) => String(data.get(k) ?? "").trim();
    setBusy(true);
    setError(null);
    try {
      const { review } = await reviewsApi.create({
        title: get("title"),
        question: Object.fromEntries(
          ["text", "population", "intervention", "comparator", "outcomes"].map((k) => [k, get(k)]).filter(([, v]) => v),
        ),
        criteria: { inclusion: get("inclusion"), exclusion: get("exclusion") },
      });
      navigate(`/reviews/${review.id}`);
    } catch (e) {
      const message = e instanceof ReviewApiError ? e.message : "The review could not be created. Please try again.";
      setError(message);
      toast({ title: "Review not created", description: message, variant: "destructive" });
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="mx-auto max-w-5xl px-4 py-8">
      <div className="mb-6 flex items-center gap-3">
        <ListChecks className="size-7 text-brand-600" aria-hidden />
        <div>
          <h1 className="text-2xl font-semibold text-slate-900">Systematic reviews</h1>
          <p className="text-sm text-slate-600">
            Import records, screen them with active learning, assess full texts and get the PRISMA 2020 flow from your
            decisions.
          </p>
        </div>
      </div>

      <div className="grid gap-6 md:grid-cols-[1fr_1.1fr]">
        <section aria-labelledby="your-reviews">
          <h2 id="your-reviews" className="mb-3 text-lg font-semibold text-slate-900">
            Your reviews
          </h2>
          {reviews.length === 0 ? (
            <p className="text-sm text-slate-600">No reviews yet. Start one with the form.</p>
          ) : (
            <ul className="space-y-3" data-testid="review-list">
              {reviews.map((r) => (
                <li key={r.id}>
                  <Card>
                    <CardContent className="p-4">
                      <Link to={`/reviews/${r.id}`} className="font-medium text-brand-700 hover:underline">
                        {r.title}
                      </Link>
                      <div className="mt-2 flex flex-wrap gap-2 text-xs">
                        <Badge variant="secondary">{r.counts.records} records</Badge>
                        <Badge variant="secondary">
                          {r.counts.screened} of {r.counts.records} screened
                        </Badge>
                        <Badge variant="secondary">{r.counts.fullTextIncluded} included</Badge>
                        {r.role !== "owner" && <Badge variant="outline">shared with you · {r.role}</Badge>}
                      </div>
                    </CardContent>
                  </Card>
                </li>
              ))}
            </ul>
          )}
          {!isPro && (
            <p className="mt-4 text-xs text-slate-500">
              Free plan: one review of up to 500 records. Professional: unlimited.
            </p>
          )}
        </section>

        <section aria-labelledby="new-review">
          <Card>
            <CardContent className="p-5">
              <h2 id="new-review" className="mb-4 text-lg font-semibold text-slate-900">
                New review
              </h2>
              <form onSubmit={onSubmit} className="space-y-3">
                <div>
                  <Label htmlFor="title">Title</Label>
                  <Input
                    id="title"
                    name="title"
                    required
                    maxLength={300}
                    placeholder="Exercise for adults with depression"
                  />
                </div>
                <div>
                  <Label htmlFor="text">Question</Label>
                  <Input
                    id="text"
                    name="text"
                    maxLength={4000}
                    placeholder="Does exercise reduce depressive symptoms in adults?"
                  />
                </div>
                <div className="grid grid-cols-2 gap-3">
                  {(
                    [
                      ["population", "Population"],
                      ["intervention", "Intervention"],
                      ["comparator", "Comparator"],
                      ["outcomes", "Outcomes"],
                    ] as const
                  ).map(([name, label]) => (
                    <div key={name}>
                      <Label htmlFor={name}>{label}</Label>
                      <Input id={name} name={name} maxLength={2000} />
                    </div>
                  ))}
                </div>
                <div>
                  <Label htmlFor="inclusion">Inclusion criteria (one per line)</Label>
                  <textarea id="inclusion" name="inclusion" rows={3} className={textarea} />
                </div>
                <div>
                  <Label htmlFor="exclusion">Exclusion criteria (one per line)</Label>
                  <textarea id="exclusion" name="exclusion" rows={2} className={textarea} />
                </div>
                {error && (
                  <p role="alert" className="text-sm text-red-700">
                    {error}
                  </p>
                )}
                <Button type="submit" disabled={busy}>
                  {busy ? <Loader2 className="animate-spin" aria-hidden /> : <Plus aria-hidden />}
                  Create review
                </Button>
              </form>
            </CardContent>
          </Card>
        </section>
      </div>
    </div>
  );
}
