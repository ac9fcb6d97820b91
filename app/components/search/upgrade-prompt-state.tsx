import { useCallback, useMemo, useState, type ComponentType, type ReactElement } from "react";
import { loadWhenOpen } from "~/components/on-demand";
import type { UpgradeFeature, UpgradePromptProps } from "~/components/search/upgrade-prompt";

/** The upgrade prompt, loaded the first time it opens (not part of a page's initial JavaScript). */
const LazyUpgradePrompt = loadWhenOpen(() => import("~/components/search/upgrade-prompt").then((m) => m.UpgradePrompt));

/**
 * State for one upgrade prompt per page: `open(feature, reason)` shows it; render `element`
 * once anywhere in the page.
 */
export function useUpgradePrompt(): { open: (feature: UpgradeFeature, reason: string) => void; element: ReactElement } {
  return useUpgradePromptWith(LazyUpgradePrompt);
}

/**
 * `useUpgradePrompt` rendering `UpgradePrompt`: code that is itself loaded on demand and hands
 * over from its own dialog to the prompt (the export dialog) passes the prompt imported
 * statically, so the prompt opens in the same render as the other dialog closes.
 */
export function useUpgradePromptWith(UpgradePrompt: ComponentType<UpgradePromptProps>): {
  open: (feature: UpgradeFeature, reason: string) => void;
  element: ReactElement;
} {
  const [state, setState] = useState<{ open: boolean; feature: UpgradeFeature; reason: string }>({
    open: false,
    feature: "multi_database",
    reason: "",
  });
  const open = useCallback((feature: UpgradeFeature, reason: string) => setState({ open: true, feature, reason }), []);
  const element = useMemo(
    () => (
      <UpgradePrompt
        open={state.open}
        feature={state.feature}
        reason={state.reason}
        onOpenChange={(next) => setState((current) => ({ ...current, open: next }))}
      />
    ),
    [state, UpgradePrompt],
  );
  return { open, element };
}
