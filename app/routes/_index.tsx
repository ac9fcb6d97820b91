import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { HealthQuestion } from "~/components/health-question";
import { Link, useLoaderData, useNavigate } from "@remix-run/react";
import {
  ArrowRight,
  Bot,
  ChartColumn,
  Database,
  FileUp,
  ListChecks,
  Search,
  Sparkles,
  type LucideIcon,
} from "lucide-react";
import { useState, type FormEvent } from "react";
import { getUser, toPublicUser } from "~/.server/auth/session";
import type { PublicUser } from "~/lib/public-user";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "~/components/ui/card";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { cn } from "~/lib/utils";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  {
    title: data?.user ? "Dashboard — MetaMind" : "MetaMind — research evidence, searched and synthesised",
  },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(context.app, request);
  return { user: user ? toPublicUser(user) : null };
}

export default function Index() {
  const { user } = useLoaderData<typeof loader>();
  return user ? <Dashboard user={user} /> : <Landing />;
}

const DATABASES = ["PubMed", "Crossref", "Europe PMC", "CORE", "Semantic Scholar", "DOAJ"];

const HOW_IT_WORKS: { icon: LucideIcon; title: string; text: string }[] = [
  {
    icon: Database,
    title: "Six databases, one search",
    text: `${DATABASES.join(", ")}. Duplicates are merged by DOI, PMID and title.`,
  },
  {
    icon: Sparkles,
    title: "AI summaries that stream",
    text: "Summaries appear word by word as they are written, so you can start reading at once.",
  },
  {
    icon: Bot,
    title: "Always labelled",
    text: "Every AI-written text shows the model that wrote it, so you know what you are reading.",
  },
];

interface Feature {
  icon: LucideIcon;
  title: string;
  text: string;
  action: string;
  to: string;
}

const FEATURES: Feature[] = [
  {
    icon: Search,
    title: "Search",
    text: "Query six academic databases at once and filter by date, study type and open access.",
    action: "Start Searching",
    to: "/search",
  },
  {
    icon: FileUp,
    title: "Upload",
    text: "Add your own PDFs and get AI summaries and full-text analyses of each study.",
    action: "Upload Studies",
    to: "/auth",
  },
  {
    icon: ListChecks,
    title: "Systematic reviews",
    text: "Import RIS, PubMed, BibTeX or CSV exports (or add a search), merge duplicates with the reason for each, screen titles and abstracts with active learning, then full texts, and get a PRISMA 2020 diagram that adds up.",
    action: "Start a Review",
    to: "/reviews",
  },
  {
    icon: ChartColumn,
    title: "Analyze",
    text: "Combine studies into a meta-analysis report with pooled effects and quality grading.",
    action: "Create Analysis",
    to: "/auth",
  },
];

function Landing() {
  return (
    <div>
      <section className="border-b border-slate-200 bg-gradient-to-b from-brand-50 to-slate-50">
        <div className="mx-auto max-w-4xl px-4 py-16 text-center sm:px-6 sm:py-24">
          <span className="inline-flex items-center rounded-full border border-brand-100 bg-white px-2.5 py-0.5 text-center text-xs font-medium text-brand-700">
            Six databases · AI summaries · Systematic reviews · Meta-analysis
          </span>
          <h1 className="mt-6 text-3xl font-bold tracking-tight text-balance text-slate-900 sm:text-5xl">
            Research evidence, searched and synthesised
          </h1>
          <p className="mx-auto mt-5 max-w-2xl text-lg text-pretty text-slate-600">
            MetaMind searches the literature for you, summarises what it finds, runs systematic reviews from import and
            screening to PRISMA, and helps you pool the results into a meta-analysis, for researchers, clinicians,
            students and curious readers alike.
          </p>
          <div className="mt-8 flex flex-wrap justify-center gap-3">
            <Button asChild size="lg">
              <Link to="/auth?tab=create">Create Free Account</Link>
            </Button>
            <Button asChild size="lg" variant="outline">
              <Link to="/search">Search as Guest</Link>
            </Button>
          </div>
        </div>
      </section>

      <section className="mx-auto max-w-6xl px-4 py-16 sm:px-6" aria-labelledby="features-heading">
        <h2 id="features-heading" className="sr-only">
          What you can do
        </h2>
        <div className="grid gap-6 md:grid-cols-2 lg:grid-cols-4">
          {FEATURES.map((feature) => (
            <FeatureCard key={feature.title} feature={feature} />
          ))}
        </div>
      </section>

      <section className="border-t border-slate-200 bg-white">
        <div className="mx-auto max-w-6xl px-4 py-16 sm:px-6">
          <h2 className="text-2xl font-semibold tracking-tight text-slate-900">How it works</h2>
          <HowItWorks className="mt-8" />
        </div>
      </section>
    </div>
  );
}

function FeatureCard({ feature }: { feature: Feature }) {
  const Icon = feature.icon;
  return (
    <Card className="flex flex-col">
      <CardHeader>
        <span className="mb-2 flex size-10 items-center justify-center rounded-lg bg-brand-50 text-brand-600">
          <Icon className="size-5" aria-hidden />
        </span>
        <CardTitle>{feature.title}</CardTitle>
        <CardDescription>{feature.text}</CardDescription>
      </CardHeader>
      <CardFooter className="mt-auto">
        <Button asChild variant="outline" className="w-full">
          <Link to={feature.to}>
            {feature.action}
            <ArrowRight aria-hidden />
          </Link>
        </Button>
      </CardFooter>
    </Card>
  );
}

function HowItWorks({ className }: { className?: string }) {
  return (
    <ul className={cn("grid gap-8 md:grid-cols-3", className)}>
      {HOW_IT_WORKS.map(({ icon: Icon, title, text }) => (
        <li key={title} className="flex gap-4">
          <span className="flex size-10 shrink-0 items-center justify-center rounded-full bg-slate-100 text-slate-700">
            <Icon className="size-5" aria-hidden />
          </span>
          <div>
            <h3 className="font-medium text-slate-900">{title}</h3>
            <p className="mt-1 text-sm text-slate-600">{text}</p>
          </div>
        </li>
      ))}
    </ul>
  );
}

function Dashboard({ user }: { user: PublicUser }) {
  return (
    <div className="mx-auto max-w-6xl px-4 py-10 sm:px-6">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">
        {`Welcome back, ${user.firstName || user.email}`}
      </h1>
      <p className="mt-2 text-slate-600">What would you like to research today?</p>

      <QuickSearch />

      <div className="mt-6">
        <HealthQuestion />
      </div>

      <div className="mt-6 grid gap-6 md:grid-cols-2">
        <Card className="flex flex-col">
          <CardHeader>
            <span className="mb-2 flex size-10 items-center justify-center rounded-lg bg-brand-50 text-brand-600">
              <Search className="size-5" aria-hidden />
            </span>
            <CardTitle>Search Studies</CardTitle>
            <CardDescription>
              Filter by date, study type, journal impact and open access, and read AI summaries of the results.
            </CardDescription>
          </CardHeader>
          <CardFooter className="mt-auto">
            <Button asChild variant="outline">
              <Link to="/search">
                Open Search
                <ArrowRight aria-hidden />
              </Link>
            </Button>
          </CardFooter>
        </Card>
        <PlanCard user={user} />
      </div>

      <Card className="mt-6">
        <CardHeader>
          <CardTitle>How it works</CardTitle>
        </CardHeader>
        <CardContent>
          <HowItWorks />
        </CardContent>
      </Card>
    </div>
  );
}

function QuickSearch() {
  const navigate = useNavigate();
  const [query, setQuery] = useState("");
  const trimmed = query.trim();

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (trimmed) navigate(`/search?${new URLSearchParams({ q: trimmed, db: "pubmed", source: "quick" })}`);
  }

  return (
    <Card className="mt-8">
      <CardContent className="pt-6">
        <form action="/search" method="get" role="search" onSubmit={onSubmit}>
          <input type="hidden" name="db" value="pubmed" />
          <input type="hidden" name="source" value="quick" />
          <Label htmlFor="quick-search">Quick search</Label>
          <div className="mt-2 flex flex-col gap-3 sm:flex-row">
            <Input
              id="quick-search"
              name="q"
              type="search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              placeholder="e.g. creatine supplementation and cognition"
              autoComplete="off"
              className="h-11"
            />
            <Button type="submit" size="lg" disabled={!trimmed}>
              <Search aria-hidden />
              Search
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}

function PlanCard({ user }: { user: PublicUser }) {
  return (
    <Card className="flex flex-col">
      <CardHeader>
        <div className="mb-2 flex items-center justify-between">
          <span className="flex size-10 items-center justify-center rounded-lg bg-brand-50 text-brand-600">
            <Sparkles className="size-5" aria-hidden />
          </span>
          <Badge variant={user.isPro ? "default" : "secondary"}>{user.isPro ? "Professional" : "Free"}</Badge>
        </div>
        <CardTitle>Your plan</CardTitle>
        <CardDescription>
          {user.isPro
            ? "All six databases, unlimited AI analyses, PDF upload, specialized analyses and BibTeX, RIS and PDF export."
            : "PubMed search, a monthly allowance of AI analyses, and CSV, JSON and HTML export."}
        </CardDescription>
      </CardHeader>
    </Card>
  );
}
