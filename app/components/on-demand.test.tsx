import { renderToString } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { AfterHydration, loadWhenOpen } from "~/components/on-demand";

function Dialog({ open, title }: { open: boolean; title: string }) {
  return open ? <p>{title}</p> : null;
}

describe("loadWhenOpen", () => {
  it("loads nothing and renders nothing while the dialog has never been open", () => {
    const load = vi.fn(async () => Dialog);
    const OnDemand = loadWhenOpen(load);
    expect(renderToString(<OnDemand open={false} title="Export" />)).toBe("");
    expect(load).not.toHaveBeenCalled();
  });

  it("starts loading the component once it opens", () => {
    const load = vi.fn(async () => Dialog);
    const OnDemand = loadWhenOpen(load);
    renderToString(<OnDemand open title="Export" />);
    expect(load).toHaveBeenCalledTimes(1);
  });
});

describe("AfterHydration", () => {
  it("server-renders the fallback, not the children", () => {
    const html = renderToString(
      <AfterHydration fallback={<button type="button">Account</button>}>
        <span>menu</span>
      </AfterHydration>,
    );
    expect(html).toBe('<button type="button">Account</button>');
  });
});
