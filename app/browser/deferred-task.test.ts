import { afterEach, describe, expect, it, vi } from "vitest";
import { deferredTask } from "~/browser/deferred-task";

describe("deferredTask", () => {
  afterEach(() => vi.useRealTimers());

  it("runs the work in a later task, not in the caller's", () => {
    vi.useFakeTimers();
    const log: string[] = [];
    const task = deferredTask();
    task.defer(() => log.push("url"));
    log.push("request");
    expect(log).toEqual(["request"]);
    vi.runAllTimers();
    expect(log).toEqual(["request", "url"]);
  });

  it("flush runs waiting work first and only once, so a later write keeps the last word", () => {
    vi.useFakeTimers();
    const store: string[] = [];
    const task = deferredTask();
    task.defer(() => store.push("no results yet"));
    task.flush();
    store.push("results");
    vi.runAllTimers();
    expect(store).toEqual(["no results yet", "results"]);
    task.flush();
    expect(store).toHaveLength(2);
  });

  it("a newer defer replaces the waiting work; cancel drops it", () => {
    vi.useFakeTimers();
    const log: string[] = [];
    const task = deferredTask();
    task.defer(() => log.push("first search"));
    task.defer(() => log.push("second search"));
    vi.runAllTimers();
    expect(log).toEqual(["second search"]);
    task.defer(() => log.push("left the page"));
    task.cancel();
    vi.runAllTimers();
    expect(log).toEqual(["second search"]);
  });

  it("uses the timers it is given", () => {
    const scheduled: (() => void)[] = [];
    const cleared: unknown[] = [];
    const task = deferredTask(
      (run) => scheduled.push(run),
      (handle) => cleared.push(handle),
    );
    const log: string[] = [];
    task.defer(() => log.push("a"));
    expect(scheduled).toHaveLength(1);
    scheduled[0]();
    expect(log).toEqual(["a"]);
    expect(cleared).toEqual([1]);
  });
});
