import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ReportBody } from "./report-body";

describe("ReportBody", () => {
  it("renders section headings, sub-headings, Markdown and sources by title; raw HTML is never rendered", () => {
    const html = renderToStaticMarkup(
      <ReportBody
        sections={[
          {
            title: "Executive summary",
            blocks: [
              { text: "### Key point\nThe **pooled** risk ratio was lower.\n\n- first item\n- second item" },
              { heading: "Key outcomes", items: ["Frailty (outcome): in *2 of 2* studies"] },
              { text: "<script>alert(1)</script><img src=x onerror=alert(1)> plain" },
            ],
            sources: [
              { study: 1, title: "Walking and frailty", sentences: [2, 3], quotes: ["Walking slowed frailty."] },
            ],
          },
        ]}
      />,
    );
    expect(html).toContain('<h3 class="mb-1.5 text-base font-semibold text-slate-900">Executive summary</h3>');
    expect(html).toMatch(/<h4[^>]*>Key point<\/h4>/);
    expect(html).not.toContain("###");
    expect(html).toContain("<strong>pooled</strong>");
    expect(html).toMatch(/<li>first item<\/li>/);
    expect(html).toMatch(/<h4[^>]*>Key outcomes<\/h4>/);
    expect(html).toContain("<em>2 of 2</em>");
    expect(html).not.toMatch(/<script|<img|onerror/);
    expect(html).toContain("“Walking and frailty” (sentences 2 and 3)");
    expect(html).toContain("Walking slowed frailty.");
  });
});
