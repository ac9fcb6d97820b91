import { lazy, startTransition, Suspense, useEffect, useState, type ComponentType, type ReactNode } from "react";

/**
 * Code loaded on demand (issue 17 page budgets): what a page does not need at first paint — dialogs,
 * menus, toasts — is left out of the initial JavaScript and fetched with a dynamic `import()` the
 * first time it is wanted.
 */

/**
 * `React.lazy` for a component `load` resolves to, e.g.
 * `lazyComponent(() => import("~/components/export-dialog").then((m) => m.ExportDialog))`. A failed
 * import (offline, or a deploy replaced the chunk) renders `failed` (nothing by default) and logs a
 * warning instead of throwing to the route's error boundary, and the next mount tries again.
 * `preload()` starts the import ahead of the first render (its failure is ignored).
 */
export function lazyComponent<P extends object>(
  load: () => Promise<ComponentType<P>>,
  failed: ComponentType<P> = Nothing,
): ComponentType<P> & { preload: () => void } {
  const attempt = () =>
    lazy(async () => {
      try {
        return { default: (await load()) as ComponentType<object> };
      } catch (error) {
        console.warn("could not load a component on demand; will retry", error);
        current = attempt();
        return { default: failed as ComponentType<object> };
      }
    });
  let current = attempt();
  function OnDemandComponent(props: P) {
    const Loaded = current;
    return <Loaded {...props} />;
  }
  OnDemandComponent.preload = () => {
    load().catch(() => undefined);
  };
  return OnDemandComponent;
}

function Nothing() {
  return null;
}

/**
 * Wraps a dialog-like component whose props carry `open`: nothing is loaded or rendered until
 * `open` is first true; from then on the loaded component is rendered with every prop (so closing
 * still animates and returns focus). `load` resolves to the component, as for `lazyComponent`.
 */
export function loadWhenOpen<P extends { open: boolean }>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  const Loaded = lazyComponent(load);
  function OnDemand(props: P) {
    const [wanted, setWanted] = useState(props.open);
    if (props.open && !wanted) setWanted(true);
    if (!wanted) return null;
    return (
      <Suspense fallback={null}>
        <Loaded {...props} />
      </Suspense>
    );
  }
  OnDemand.displayName = "OnDemand";
  return OnDemand;
}

/**
 * True after the first client render (false on the server and while hydrating). The switch is a
 * transition: the re-render it causes is done in slices, not as one long task after hydration.
 */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => startTransition(() => setHydrated(true)), []);
  return hydrated;
}

/**
 * Renders `fallback` on the server and during hydration, then `children` (which may suspend on a
 * lazy component; `fallback` shows until it has loaded). For controls whose behaviour lives in a
 * chunk loaded after hydration while their look is server-rendered.
 */
export function AfterHydration({ fallback, children }: { fallback: ReactNode; children: ReactNode }) {
  const hydrated = useHydrated();
  return hydrated ? <Suspense fallback={fallback}>{children}</Suspense> : <>{fallback}</>;
}
