import { useCallback, useMemo, useState, type ReactElement } from "react";
import { loadWhenOpen } from "~/components/on-demand";
import type { GuestFeature } from "~/browser/guest-usage";

/** The guest trial dialog, loaded the first time it opens (not part of a page's initial JavaScript). */
const GuestTrialDialog = loadWhenOpen(() => import("~/components/guest-trial-dialog").then((m) => m.GuestTrialDialog));

/**
 * State for one guest trial dialog per page: `open(feature)` shows it; render `element` once
 * anywhere in the page.
 */
export function useGuestTrialDialog(): {
  open: (feature?: GuestFeature) => void;
  element: ReactElement;
} {
  const [state, setState] = useState<{ open: boolean; feature?: GuestFeature }>({ open: false });
  const open = useCallback((feature?: GuestFeature) => setState({ open: true, feature }), []);
  const element = useMemo(
    () => (
      <GuestTrialDialog
        open={state.open}
        feature={state.feature}
        onOpenChange={(next) => setState((current) => ({ ...current, open: next }))}
      />
    ),
    [state],
  );
  return { open, element };
}
