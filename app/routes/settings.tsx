import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useRevalidator, useSearchParams } from "@remix-run/react";
import { AlertTriangle, Crown, Download, Trash2 } from "lucide-react";
import { useEffect, useState } from "react";
import { getUser, toPublicUser } from "~/.server/auth/session";
import { getSubscriptionStatus } from "~/.server/billing/usage";
import { getUserSettings } from "~/.server/settings/queries";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/components/ui/card";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { detectInstalledApp, STORE_LABELS, SUBSCRIPTION_UPDATED_EVENT } from "~/browser/installed-app";
import { OfflineQueuedError } from "~/browser/offline-sync";
import { displayName, saveSettings, type SettingsState } from "~/browser/settings-client";
import { toast } from "~/browser/toast";

export const meta: MetaFunction = () => [{ title: "Settings · MetaMind" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const app = context.app;
  const user = await getUser(app, request);
  if (!user) return { user: null };
  const [settings, subscription] = await Promise.all([
    getUserSettings(app, { userId: user.id }),
    getSubscriptionStatus(app, { user, now: new Date() }),
  ]);
  const billing = {
    paymentsEnabled: Boolean(app.env.STRIPE_SECRET_KEY),
    appStoreUrl: app.env.APP_STORE_URL ?? null,
    playStoreUrl: app.env.PLAY_STORE_URL ?? null,
  };
  return { user: toPublicUser(user), settings, subscription, billing };
}

type Data = ReturnType<typeof useLoaderData<typeof loader>>;
type SignedIn = Extract<Data, { settings: unknown }>;

const PROVIDERS = [
  { value: "pubmed", label: "PubMed" },
  { value: "crossref", label: "Crossref" },
  { value: "europepmc", label: "Europe PMC" },
  { value: "core", label: "CORE" },
  { value: "semanticscholar", label: "Semantic Scholar" },
  { value: "doaj", label: "DOAJ" },
  { value: "multi", label: "Multi-Database (Pro)" },
];
const PER_PAGE = [10, 25, 50, 100];
const FORMATS = [
  { value: "csv", label: "CSV" },
  { value: "json", label: "JSON" },
  { value: "html", label: "HTML" },
  { value: "pdf", label: "PDF (Pro)" },
  { value: "bibtex", label: "BibTeX (Pro)" },
  { value: "ris", label: "RIS (Pro)" },
];
const SELECT =
  "h-10 w-full rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900 shadow-sm focus-visible:ring-2 focus-visible:ring-brand-500/30 focus-visible:outline-none";

export default function SettingsPage() {
  const data = useLoaderData<typeof loader>();
  if (!("settings" in data) || !data.user) {
    return (
      <div className="mx-auto max-w-md px-4 py-16 text-center">
        <Card>
          <CardContent className="pt-6">
            <h1 className="text-slate-700">Please sign in to access Settings</h1>
            <Button asChild className="mt-4">
              <a href="/auth">Sign In</a>
            </Button>
          </CardContent>
        </Card>
      </div>
    );
  }
  return <Settings data={data} />;
}

function Settings({ data }: { data: SignedIn }) {
  const user = data.user!;
  const [settings, setSettings] = useState<SettingsState>(data.settings);
  const [saving, setSaving] = useState(false);
  const [params, setParams] = useSearchParams();
  const revalidator = useRevalidator();

  useEffect(() => {
    const refresh = () => revalidator.revalidate();
    window.addEventListener(SUBSCRIPTION_UPDATED_EVENT, refresh);
    return () => window.removeEventListener(SUBSCRIPTION_UPDATED_EVENT, refresh);
  }, [revalidator]);

  useEffect(() => {
    if (params.get("success") === "true") {
      toast({
        title: "Payment Successful!",
        description: "Your Professional subscription is now active. All features are unlocked.",
        duration: 10_000,
      });
      setParams({}, { replace: true });
      window.dispatchEvent(new CustomEvent(SUBSCRIPTION_UPDATED_EVENT));
    } else if (params.get("canceled") === "true") {
      toast({ title: "Checkout canceled", description: "Your plan has not changed." });
      setParams({}, { replace: true });
    }
  }, [params, setParams]);

  async function persist(patch: Partial<SettingsState>) {
    setSaving(true);
    try {
      setSettings(await saveSettings(patch));
      toast({ title: "Settings Updated", description: "Your preferences have been saved successfully." });
    } catch (error) {
      if (error instanceof OfflineQueuedError) {
        toast({ title: "Saved offline", description: error.message });
        return;
      }
      console.warn("settings save failed", error);
      toast({
        title: "Update Failed",
        description: "Failed to save settings. Please try again.",
        variant: "destructive",
      });
    } finally {
      setSaving(false);
    }
  }

  /** SPEC §4: each change updates local state at once and sends a partial save. */
  function change<K extends keyof SettingsState>(key: K, value: SettingsState[K]) {
    if (key === "defaultSearchProvider" && value === "multi" && !user.isPro) {
      toast({
        title: "Professional required",
        description: "Multi-database search requires Professional subscription",
        variant: "destructive",
      });
      return;
    }
    setSettings((s) => ({ ...s, [key]: value }));
    void persist({ [key]: value } as Partial<SettingsState>);
  }

  return (
    <div className="mx-auto max-w-3xl space-y-6 px-4 py-10 sm:px-6">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">Settings</h1>

      <Card>
        <CardHeader>
          <CardTitle as="h2">Account Information</CardTitle>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          <dl className="contents" data-testid="account-information">
            <div className="min-w-0 space-y-1">
              <dt className="text-sm font-medium text-slate-700">Email</dt>
              <dd className="truncate text-sm text-slate-900" data-testid="account-email">
                {user.email}
              </dd>
            </div>
            <div className="min-w-0 space-y-1">
              <dt className="text-sm font-medium text-slate-700">Display name</dt>
              <dd className="truncate text-sm text-slate-900" data-testid="account-display-name">
                {displayName(user)}
              </dd>
            </div>
          </dl>
          <div>
            <Badge variant={user.isPro ? "default" : "secondary"} data-testid="plan-badge">
              {user.isPro ? "Professional" : "Free"}
            </Badge>
          </div>
        </CardContent>
      </Card>

      <SubscriptionCard data={data} />

      <Card>
        <CardHeader>
          <CardTitle as="h2">Search Preferences</CardTitle>
          <CardDescription>Used as the starting point on the search page.</CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2">
          <div className="space-y-1">
            <Label htmlFor="default-provider">Default database</Label>
            <select
              id="default-provider"
              className={SELECT}
              value={settings.defaultSearchProvider}
              onChange={(e) => change("defaultSearchProvider", e.target.value)}
            >
              {PROVIDERS.map((p) => (
                <option key={p.value} value={p.value} disabled={p.value === "multi" && !user.isPro}>
                  {p.label}
                </option>
              ))}
            </select>
          </div>
          <div className="space-y-1">
            <Label htmlFor="per-page">Results per page</Label>
            <select
              id="per-page"
              className={SELECT}
              value={settings.searchResultsPerPage}
              onChange={(e) => change("searchResultsPerPage", Number(e.target.value))}
            >
              {PER_PAGE.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </div>
          <label className="flex items-center gap-2 text-sm text-slate-700 sm:col-span-2">
            <input
              type="checkbox"
              checked={settings.saveSearchHistory}
              onChange={(e) => change("saveSearchHistory", e.target.checked)}
            />
            Save search history
          </label>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle as="h2">Export &amp; Download Preferences</CardTitle>
        </CardHeader>
        <CardContent>
          <div className="max-w-xs space-y-1">
            <Label htmlFor="export-format">Default export format</Label>
            <select
              id="export-format"
              className={SELECT}
              value={settings.defaultExportFormat}
              onChange={(e) => change("defaultExportFormat", e.target.value)}
            >
              {FORMATS.map((f) => (
                <option key={f.value} value={f.value}>
                  {f.label}
                </option>
              ))}
            </select>
          </div>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle as="h2">Notifications</CardTitle>
        </CardHeader>
        <CardContent>
          <label className="flex items-center gap-2 text-sm text-slate-700">
            <input
              type="checkbox"
              checked={settings.emailNotifications}
              onChange={(e) => change("emailNotifications", e.target.checked)}
            />
            Email notifications
          </label>
        </CardContent>
      </Card>

      <DataPrivacyCard />

      <div className="flex justify-end">
        <Button onClick={() => persist(settings)} disabled={saving} data-testid="save-all-settings">
          {saving ? "Saving..." : "Save All Settings"}
        </Button>
      </div>
    </div>
  );
}

function SubscriptionCard({ data }: { data: SignedIn }) {
  const { subscription, billing } = data;
  const [pending, setPending] = useState<"monthly" | "annual" | "portal" | null>(null);

  /** In an installed iOS / Android app the upgrade goes through the platform's store (SPEC §1). */
  function openStore(): boolean {
    const platform = detectInstalledApp();
    if (!platform) return false;
    const url = platform === "ios" ? billing.appStoreUrl : billing.playStoreUrl;
    try {
      if (!url) throw new Error(`no ${STORE_LABELS[platform].name} URL configured`);
      window.location.assign(url);
    } catch (error) {
      console.warn("store link failed", error);
      toast({ title: "Upgrade Error", description: STORE_LABELS[platform].failure, variant: "destructive" });
    }
    return true;
  }

  async function checkout(priceId: "monthly" | "annual") {
    if (openStore()) return;
    setPending(priceId);
    try {
      const res = await fetch("/api/subscription/create-checkout", {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          priceId,
          successUrl: `${window.location.origin}/subscription/success?success=true`,
          cancelUrl: `${window.location.origin}/settings?canceled=true`,
        }),
      });
      const body = (await res.json().catch(() => ({}))) as { url?: string; message?: string };
      if (!res.ok) {
        toast({
          title: "Payment Error",
          description: body.message || "Failed to start subscription process",
          variant: "destructive",
        });
        return;
      }
      if (!body.url) {
        toast({ title: "Redirect Error", description: "No payment URL received from server", variant: "destructive" });
        return;
      }
      window.location.assign(body.url);
    } catch {
      toast({ title: "Upgrade Error", description: "Could not start upgrade process.", variant: "destructive" });
    } finally {
      setPending(null);
    }
  }

  async function portal() {
    setPending("portal");
    try {
      const res = await fetch("/api/subscription/create-portal", { method: "POST", credentials: "include" });
      const body = (await res.json().catch(() => ({}))) as { url?: string; message?: string };
      if (!res.ok || !body.url) throw new Error(body.message || "Failed to open billing portal");
      window.location.assign(body.url);
    } catch (error) {
      toast({
        title: "Portal Error",
        description: error instanceof Error ? error.message : "Failed to open billing portal",
        variant: "destructive",
      });
    } finally {
      setPending(null);
    }
  }

  if (subscription.isPro) {
    const web = (subscription.subscription.platform ?? "web") === "web";
    return (
      <Card>
        <CardHeader>
          <CardTitle as="h2" className="flex items-center gap-2">
            <Crown className="size-5 text-amber-600" aria-hidden /> Subscription Management
          </CardTitle>
        </CardHeader>
        <CardContent className="space-y-2 text-sm text-slate-700">
          <p className="font-semibold text-slate-900">Professional Active</p>
          <p>{web ? "Web Subscription" : "Mobile App Subscription"}</p>
          <p>Monthly AI analyses: Unlimited</p>
          <p>All features unlocked</p>
          {web && (
            <Button variant="outline" onClick={portal} disabled={pending !== null}>
              {pending === "portal" ? "Processing..." : "Manage Billing"}
            </Button>
          )}
        </CardContent>
      </Card>
    );
  }
  const limit = subscription.limits.AI_SUMMARIES_PER_MONTH ?? 20;
  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">Subscription Management</CardTitle>
      </CardHeader>
      <CardContent className="space-y-3 text-sm text-slate-700">
        <p className="font-semibold text-slate-900">Current Plan: Free</p>
        <p data-testid="usage">
          {subscription.usage.aiSummaries} / {limit} AI Analyses
        </p>
        <div className="flex flex-wrap gap-2">
          <Button onClick={() => checkout("monthly")} disabled={pending !== null}>
            {pending === "monthly" ? "Processing..." : "Monthly - $9.99/month"}
          </Button>
          <Button variant="outline" onClick={() => checkout("annual")} disabled={pending !== null}>
            {pending === "annual" ? "Processing..." : "Annual - $99/year"}
          </Button>
        </div>
        {billing.paymentsEnabled ? (
          <p className="text-slate-600">7-day free trial. Credit card required, cancel anytime.</p>
        ) : (
          <p className="flex items-start gap-2 rounded-md border border-amber-200 bg-amber-50 p-3 text-amber-900">
            <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
            The subscription service is under development. Upgrades will be available soon.
          </p>
        )}
      </CardContent>
    </Card>
  );
}

function DataPrivacyCard() {
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState("");
  const [deleting, setDeleting] = useState(false);

  async function deleteAccount() {
    setDeleting(true);
    try {
      const res = await fetch("/api/user/delete", {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ confirm: typed }),
      });
      if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
      try {
        localStorage.clear();
        sessionStorage.clear();
      } catch (error) {
        console.warn("Could not clear browser storage", error);
      }
      window.location.assign("/");
    } catch (error) {
      console.warn("account deletion failed", error);
      toast({
        title: "Deletion Failed",
        description: "Your account could not be deleted. Please try again.",
        variant: "destructive",
      });
      setDeleting(false);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">Data &amp; Privacy</CardTitle>
        <CardDescription>
          Download everything stored for your account, or delete the account and all of it.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <Button asChild variant="outline">
          <a href="/api/user/data" download data-testid="download-data">
            <Download aria-hidden />
            Download my data (JSON)
          </a>
        </Button>
        {!confirming ? (
          <div>
            <Button variant="destructive" onClick={() => setConfirming(true)}>
              <Trash2 aria-hidden />
              Delete account
            </Button>
          </div>
        ) : (
          <div className="space-y-2 rounded-md border border-red-200 bg-red-50 p-3">
            <p className="text-sm text-red-800">
              This deletes your account, bookmarks, saved searches, history, reports, settings and uploaded files. This
              action cannot be undone. Type DELETE to confirm.
            </p>
            <Input aria-label="Type DELETE to confirm" value={typed} onChange={(e) => setTyped(e.target.value)} />
            <div className="flex gap-2">
              <Button variant="destructive" disabled={typed !== "DELETE" || deleting} onClick={deleteAccount}>
                {deleting ? "Deleting..." : "Delete my account"}
              </Button>
              <Button variant="ghost" onClick={() => setConfirming(false)}>
                Cancel
              </Button>
            </div>
          </div>
        )}
      </CardContent>
    </Card>
  );
}
