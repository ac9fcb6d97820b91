import { Suspense } from "react";
import { Writable } from "node:stream";
import { renderToPipeableStream, renderToString } from "react-dom/server";
import { describe, expect, it, vi } from "vitest";
import { AfterHydration, lazyComponent, loadWhenOpen } from "~/components/on-demand";

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

describe("lazyComponent", () => {
  /** Server-renders once every lazy component has settled; drops React's Suspense markers. */
  function render(node: JSX.Element): Promise<string> {
    return new Promise((resolve, reject) => {
      let html = "";
      const { pipe } = renderToPipeableStream(node, {
        onAllReady() {
          const sink = new Writable({
            write(chunk: Buffer, _encoding, done) {
              html += chunk.toString();
              done();
            },
            final(done) {
              resolve(html.replace(/<!--\/?\$-->/g, ""));
              done();
            },
          });
          pipe(sink);
        },
        onError: reject,
      });
    });
  }

  it("renders the `failed` component with the same props when the import fails, and retries on the next mount", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const load = vi
      .fn()
      .mockRejectedValueOnce(new TypeError("Failed to fetch dynamically imported module"))
      .mockResolvedValue(Dialog);
    const Plain = ({ title }: { open: boolean; title: string }) => <b>{title} (plain)</b>;
    const OnDemand = lazyComponent(load, Plain);
    expect(
      await render(
        <Suspense fallback={null}>
          <OnDemand open title="Saved" />
        </Suspense>,
      ),
    ).toBe("<b>Saved<!-- --> (plain)</b>");
    expect(
      await render(
        <Suspense fallback={null}>
          <OnDemand open title="Saved" />
        </Suspense>,
      ),
    ).toBe("<p>Saved</p>");
    expect(load).toHaveBeenCalledTimes(2);
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
  });
});
