import { Link } from "@remix-run/react";
import { Sparkles } from "lucide-react";
import { Button } from "~/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "~/components/ui/dialog";
import { GUEST_TRIAL_LIMIT, type GuestFeature } from "~/browser/guest-usage";

export interface GuestTrialDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The exhausted guest counter (shown as data-feature for tests), if known. */
  feature?: GuestFeature;
}

/**
 * The guest trial dialog (SPEC §4 Guest trial, §8 'Trial Limit Reached' 5/5): shown when the
 * server refuses a guest's AI action with 403 LIMIT_REACHED and `trial: true`. Offers
 * registration (/auth?tab=create) and sign-in (/auth).
 */
export function GuestTrialDialog({ open, onOpenChange, feature }: GuestTrialDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent data-testid="guest-trial-dialog" data-feature={feature} className="max-w-md">
        <DialogHeader>
          <DialogTitle className="flex items-center gap-2 text-xl font-semibold text-slate-900">
            <span className="flex size-9 items-center justify-center rounded-lg bg-brand-50 text-brand-700">
              <Sparkles className="size-5" aria-hidden />
            </span>
            Trial Limit Reached
          </DialogTitle>
        </DialogHeader>
        <DialogDescription className="mt-3 text-sm text-slate-700">
          {GUEST_TRIAL_LIMIT}/{GUEST_TRIAL_LIMIT} free uses of this feature in the last 24 hours on this device. Create
          a free account to keep using AI analyses.
        </DialogDescription>
        <div className="mt-6 grid gap-2 sm:grid-cols-2">
          <Button asChild>
            <Link to="/auth?tab=create" onClick={() => onOpenChange(false)}>
              Create a free account
            </Link>
          </Button>
          <Button variant="outline" asChild>
            <Link to="/auth" onClick={() => onOpenChange(false)}>
              Sign In
            </Link>
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}
