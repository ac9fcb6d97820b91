import { afterEach, describe, expect, it, vi } from "vitest";
import { whenPageSettled } from "./when-settled";

/** A window with an event target, optional requestIdleCallback and timers, and a document state. */
function fakePage(readyState: DocumentReadyState, withIdle: boolean) {
  const page = new EventTarget();
  const idle: { run: () => void; timeout?: number }[] = [];
  const timers: { run: () => void; ms: number }[] = [];
  const win = Object.assign(page, {
    requestIdleCallback: withIdle
      ? (run: () => void, options?: { timeout?: number }) => idle.push({ run, timeout: options?.timeout })
      : undefined,
    setTimeout: (run: () => void, ms: number) => timers.push({ run, ms }),
  });
  vi.stubGlobal("window", win);
  vi.stubGlobal("document", { readyState });
  return { page, idle, timers };
}

afterEach(() => vi.unstubAllGlobals());

describe("whenPageSettled", () => {
  it("waits for the load event, then for an idle period at most timeoutMs away", () => {
    const { page, idle, timers } = fakePage("interactive", true);
    const task = vi.fn();
    whenPageSettled(task, 3000);
    expect(idle).toHaveLength(0);
    page.dispatchEvent(new Event("load"));
    expect(idle).toEqual([{ run: expect.any(Function), timeout: 3000 }]);
    expect(task).not.toHaveBeenCalled();
    idle[0]!.run();
    expect(task).toHaveBeenCalledTimes(1);
    expect(timers).toHaveLength(0);
  });

  it("asks for the idle period at once when the page has already loaded", () => {
    const { idle } = fakePage("complete", true);
    const task = vi.fn();
    whenPageSettled(task);
    expect(idle).toHaveLength(1);
    expect(idle[0]!.timeout).toBe(4000);
    idle[0]!.run();
    expect(task).toHaveBeenCalledTimes(1);
  });

  it("falls back to a timer where requestIdleCallback is missing (Safari)", () => {
    const { timers } = fakePage("complete", false);
    const task = vi.fn();
    whenPageSettled(task, 2500);
    expect(timers).toEqual([{ run: task, ms: 2500 }]);
  });
});
