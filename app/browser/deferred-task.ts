/** A piece of work run in a task of its own, which a later step can run at once so that nothing overtakes it. */
export interface DeferredTask {
  /** Schedules `work` in a new task (`setTimeout` 0), replacing any work still waiting. */
  defer(work: () => void): void;
  /** Runs the waiting work now, if any (before a write that must come after it). */
  flush(): void;
  /** Drops the waiting work without running it. */
  cancel(): void;
}

/**
 * One deferred piece of work at a time: `defer` moves synchronous calls into the browser process (history,
 * localStorage) out of a task that has more to do, so each task stays short (Lighthouse's total blocking time counts
 * each task's time over 50 ms); `flush` keeps the order when a later write of the same state comes first.
 * `schedule`/`clear` default to the global timers (tests pass their own).
 */
export function deferredTask(
  schedule: (run: () => void) => unknown = (run) => setTimeout(run),
  clear: (handle: unknown) => void = (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
): DeferredTask {
  let waiting: { handle: unknown; work: () => void } | null = null;
  const cancel = () => {
    if (waiting) clear(waiting.handle);
    waiting = null;
  };
  const flush = () => {
    const current = waiting;
    cancel();
    current?.work();
  };
  return {
    defer(work) {
      cancel();
      waiting = { handle: schedule(flush), work };
    },
    flush,
    cancel,
  };
}
