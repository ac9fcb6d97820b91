import { Link } from "@remix-run/react";
import { AlertTriangle, Sparkles } from "lucide-react";
import { Button } from "~/components/ui/button";
import { clsx } from "clsx";

/** Remaining analyses at or below which the free plan shows a warning (SPEC §8 Limits). */
export const LOW_USAGE_WARNING_AT = 5;

export interface UsageCounterCardProps {
  kind: "guest" | "free" | "pro";
  used: number;
  limit: number;
  /** Free plan only: shows an Upgrade button (e.g. opening the upgrade prompt). */
  onUpgrade?: () => void;
  /** Classes added to the card's own (layout such as a margin; they do not override its classes). */
  className?: string;
}

function plural(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

/** The search page's usage counter (SPEC §2, §8 Limits) for guests, Free and Professional. */
export function UsageCounterCard({ kind, used, limit, onUpgrade, className }: UsageCounterCardProps) {
  const safeLimit = Math.max(0, limit);
  const safeUsed = Math.min(Math.max(0, used), safeLimit);
  const left = safeLimit - safeUsed;
  const percent = safeLimit > 0 ? Math.round((safeUsed / safeLimit) * 100) : 100;

  if (kind === "pro") {
    return (
      <div
        data-testid="usage-card"
        data-kind={kind}
        className={clsx(
          "flex items-center gap-2 rounded-xl border border-slate-200 bg-white px-4 py-3 text-sm shadow-sm",
          className,
        )}
      >
        <Sparkles className="size-4 text-brand-600" aria-hidden />
        <span className="font-medium text-slate-900">AI analyses: Unlimited</span>
      </div>
    );
  }

  const reached = left === 0;
  const warn = !reached && left <= LOW_USAGE_WARNING_AT;
  const summary =
    kind === "guest"
      ? `Guest trial: ${safeUsed} of ${safeLimit} AI summaries used (resets every 24 hours)`
      : `${safeUsed} of ${safeLimit} AI analyses used this month`;

  return (
    <div
      data-testid="usage-card"
      data-kind={kind}
      className={clsx(
        "rounded-xl border bg-white px-4 py-3 shadow-sm",
        reached ? "border-red-200" : warn ? "border-amber-200" : "border-slate-200",
        className,
      )}
    >
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
        <p className="flex items-center gap-2 text-sm font-medium text-slate-900">
          <Sparkles className="size-4 text-brand-600" aria-hidden />
          {summary}
        </p>
        {kind === "free" && onUpgrade && (
          <Button size="sm" variant={reached ? "default" : "outline"} onClick={onUpgrade}>
            Upgrade
          </Button>
        )}
        {kind === "guest" && (
          <Link to="/auth?tab=create" className="text-sm font-medium text-brand-600 hover:underline">
            Create a free account
          </Link>
        )}
      </div>

      <div
        role="progressbar"
        aria-label={kind === "guest" ? "Guest trial AI summaries used" : "AI analyses used this month"}
        aria-valuemin={0}
        aria-valuemax={safeLimit}
        aria-valuenow={safeUsed}
        className="mt-2 h-2 overflow-hidden rounded-full bg-slate-100"
      >
        <div
          className={clsx(
            "h-full rounded-full transition-[width]",
            reached ? "bg-red-500" : warn ? "bg-amber-500" : "bg-brand-600",
          )}
          style={{ width: `${percent}%` }}
        />
      </div>

      {reached && (
        <div role="status" className="mt-2 flex items-start gap-2 text-sm text-red-700">
          <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
          <p>
            <span className="font-semibold">{kind === "guest" ? "Trial Limit Reached" : "Monthly limit reached"}</span>
            <span className="block">
              {kind === "guest"
                ? "Create a free account to keep using AI summaries."
                : "Upgrade to Professional for unlimited AI analyses."}
            </span>
          </p>
        </div>
      )}
      {warn && kind === "free" && (
        <p role="status" className="mt-2 flex items-center gap-2 text-sm text-amber-800">
          <AlertTriangle className="size-4" aria-hidden />
          Only {left} AI {plural(left, "analysis", "analyses")} left this month
        </p>
      )}
    </div>
  );
}
