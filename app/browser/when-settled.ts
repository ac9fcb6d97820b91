/**
 * Runs `task` once the page has loaded and the main thread is idle: after the window's `load`
 * event (at once when it has fired), in the first idle period that follows (`requestIdleCallback`,
 * at most `timeoutMs` later; a `timeoutMs` timer where the API is missing, as in Safari). React's
 * hydration posts its next slice before yielding, so that idle period comes after hydration's
 * render. For start-up work no first render needs — the service worker's precache download, chunks
 * fetched ahead of use — so that it does not compete with hydration for the CPU of a slow phone
 * (Jeff Posnick, "Service worker registration", web.dev: register after load, later still when
 * the page's own start-up is busy). Browser only.
 */
export function whenPageSettled(task: () => void, timeoutMs = 4000): void {
  const idle = () => {
    if (typeof window.requestIdleCallback === "function")
      window.requestIdleCallback(() => task(), { timeout: timeoutMs });
    else window.setTimeout(task, timeoutMs);
  };
  if (document.readyState === "complete") idle();
  else window.addEventListener("load", idle, { once: true });
}
