import type { MetaFunction } from "@remix-run/cloudflare";
import { Link, useSearchParams } from "@remix-run/react";
import { CircleCheck, Crown, ShieldAlert } from "lucide-react";
import { useEffect } from "react";
import { Button } from "~/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/components/ui/card";
import { SUBSCRIPTION_UPDATED_EVENT } from "~/browser/installed-app";

export const meta: MetaFunction = () => [{ title: "Payment success · MetaMind" }];

/** SPEC §2 Subscription success: the six features Professional unlocks. */
export const UNLOCKED_FEATURES = [
  "Unlimited AI analyses",
  "PDF upload and full-text analysis",
  "Multi-database search across 6 databases",
  "Advanced exports (BibTeX, RIS, PDF)",
  "Specialized AI analysis",
  "Enhanced meta-analysis reports",
];

/**
 * /subscription/success: Stripe Checkout returns here with `success=true&session_id=…`. Without
 * either parameter it is 'Invalid Access'. The plan itself is set by the verified webhook, never
 * by this page; on load it fires the global 'subscription updated' event so open views refetch.
 */
export default function SubscriptionSuccessPage() {
  const [params] = useSearchParams();
  const valid = params.get("success") === "true" || Boolean(params.get("session_id"));

  useEffect(() => {
    if (valid) window.dispatchEvent(new CustomEvent(SUBSCRIPTION_UPDATED_EVENT));
  }, [valid]);

  if (!valid) {
    return (
      <div className="mx-auto max-w-md px-4 py-16">
        <Card>
          <CardHeader className="text-center">
            <ShieldAlert className="mx-auto size-10 text-amber-600" aria-hidden />
            <CardTitle as="h1">Invalid Access</CardTitle>
            <CardDescription>This page is shown after a completed checkout.</CardDescription>
          </CardHeader>
          <CardContent>
            <Button asChild className="w-full">
              <Link to="/settings">Go to Settings</Link>
            </Button>
          </CardContent>
        </Card>
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-xl px-4 py-16">
      <Card>
        <CardHeader className="text-center">
          <Crown className="mx-auto size-10 text-amber-600" aria-hidden />
          <CardTitle as="h1" className="text-2xl">
            Welcome to Professional!
          </CardTitle>
          <CardDescription>Your 7-day free trial has started. Everything below is now unlocked.</CardDescription>
        </CardHeader>
        <CardContent className="space-y-6">
          <ul className="space-y-2" data-testid="unlocked-features">
            {UNLOCKED_FEATURES.map((feature) => (
              <li key={feature} className="flex items-center gap-2 text-slate-800">
                <CircleCheck className="size-4 text-emerald-600" aria-hidden /> {feature}
              </li>
            ))}
          </ul>
          <div className="flex flex-col gap-2 sm:flex-row">
            <Button asChild className="flex-1">
              <Link to="/search">Start Searching</Link>
            </Button>
            <Button asChild variant="outline" className="flex-1">
              <Link to="/settings">Go to Settings</Link>
            </Button>
          </div>
        </CardContent>
      </Card>
    </div>
  );
}
