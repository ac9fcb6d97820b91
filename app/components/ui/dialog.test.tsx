import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Dialog, DialogBody, DialogFooter, DialogHeader, DialogTitle } from "~/components/ui/dialog";

/** The header's text and buttons in document order (= focus order), e.g. ["h2:Title", "button:Close"]. */
function order(html: string): string[] {
  return [...html.matchAll(/<(h2|button)([^>]*)>([^<]*)/g)].map(
    ([, tag, attributes, text]) => `${tag}:${/aria-label="([^"]*)"/.exec(attributes!)?.[1] ?? text}`,
  );
}

describe("DialogHeader", () => {
  it("puts the close button after the title, and after the header's actions", () => {
    const plain = renderToString(
      <Dialog open>
        <DialogHeader>
          <DialogTitle>Save search</DialogTitle>
        </DialogHeader>
      </Dialog>,
    );
    expect(order(plain)).toEqual(["h2:Save search", "button:Close"]);
    const withActions = renderToString(
      <Dialog open>
        <DialogHeader actions={<button type="button">Download</button>}>
          <DialogTitle>Meta-analysis report</DialogTitle>
        </DialogHeader>
      </Dialog>,
    );
    expect(order(withActions)).toEqual(["h2:Meta-analysis report", "button:Download", "button:Close"]);
  });

  it("leaves the close button out when closeButton is false", () => {
    const html = renderToString(
      <Dialog open>
        <DialogHeader closeButton={false}>
          <DialogTitle>Report</DialogTitle>
        </DialogHeader>
      </Dialog>,
    );
    expect(order(html)).toEqual(["h2:Report"]);
  });
});

describe("DialogBody and DialogFooter outside a sectioned layout", () => {
  it("the body scrolls; the footer is a plain action row with no divider", () => {
    expect(renderToString(<DialogBody>x</DialogBody>)).toContain("overflow-y-auto");
    const footer = renderToString(<DialogFooter>x</DialogFooter>);
    expect(footer).toContain("mt-6");
    expect(footer).not.toContain("border-t");
  });
});
