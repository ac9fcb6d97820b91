import { Check, Crown, Info } from "lucide-react";
import { useState } from "react";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogHeader,
  DialogTitle,
} from "~/components/ui/dialog";

/** The gated features of SPEC §6 that open the upgrade prompt. */
export type UpgradeFeature =
  | "pdf_upload"
  | "citation_export"
  | "pdf_export"
  | "multi_database"
  | "ai_summaries"
  | "specialized_analysis"
  | "full_text_analysis";

/** What Professional unlocks (SPEC §2 Subscription success). */
export const PRO_BENEFITS = [
  "Unlimited AI analyses",
  "PDF upload and full-text analysis",
  "Multi-database search across 6 databases",
  "Advanced exports (BibTeX, RIS, PDF)",
  "Specialized AI analysis",
  "Enhanced meta-analysis reports",
] as const;

const UNAVAILABLE_NOTICE = "The subscription service is under development. Upgrades will be available soon.";

export interface UpgradePromptProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  feature: UpgradeFeature;
  /** Why the prompt opened, e.g. 'Multi-database search requires Professional subscription'. */
  reason: string;
}

/**
 * The upgrade prompt (SPEC §1, §2, §6). No payment provider is configured in this build, so the
 * upgrade buttons explain that instead of starting a checkout.
 */
export function UpgradePrompt({ open, onOpenChange, feature, reason }: UpgradePromptProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        data-testid="upgrade-prompt"
        data-feature={feature}
        className="max-h-[90vh] max-w-lg overflow-y-auto"
      >
        <DialogHeader>
          <DialogTitle className="flex items-center gap-2 text-xl font-semibold text-slate-900">
            <span className="flex size-9 items-center justify-center rounded-lg bg-amber-100 text-amber-700">
              <Crown className="size-5" aria-hidden />
            </span>
            Upgrade to Professional
          </DialogTitle>
        </DialogHeader>
        <DialogDescription className="mt-3 rounded-lg bg-brand-50 px-4 py-3 text-sm font-medium text-brand-700">
          {reason}
        </DialogDescription>

        <h3 className="mt-5 text-sm font-semibold text-slate-900">Professional includes</h3>
        <ul className="mt-2 space-y-1.5">
          {PRO_BENEFITS.map((benefit) => (
            <li key={benefit} className="flex items-start gap-2 text-sm text-slate-700">
              <Check className="mt-0.5 size-4 shrink-0 text-emerald-600" aria-hidden />
              {benefit}
            </li>
          ))}
        </ul>

        <UpgradeOptions />

        <div className="mt-5 flex justify-end">
          <DialogClose asChild>
            <Button variant="ghost" size="sm">
              Maybe later
            </Button>
          </DialogClose>
        </div>
      </DialogContent>
    </Dialog>
  );
}

/** Plan buttons; mounted with the open dialog, so the notice resets each time it opens. */
function UpgradeOptions() {
  const [notice, setNotice] = useState(false);
  return (
    <>
      <div className="mt-6 grid gap-2 sm:grid-cols-2">
        <Button onClick={() => setNotice(true)}>Monthly - $9.99/month</Button>
        <Button variant="outline" onClick={() => setNotice(true)}>
          Annual - $99/year
        </Button>
      </div>
      <p className="mt-3 text-center text-xs text-slate-500">
        Annual billing saves 17%.
        <br />
        7-day free trial · Credit card required, cancel anytime
      </p>
      {notice && (
        <p
          role="status"
          className="mt-4 flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900"
        >
          <Info className="mt-0.5 size-4 shrink-0" aria-hidden />
          {UNAVAILABLE_NOTICE}
        </p>
      )}
    </>
  );
}
