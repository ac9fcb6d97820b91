import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { CitedText, FRAMING_TITLE, UNVERIFIED_TITLE } from "./cited-text";

const citations = [
  { id: "S4", quote: "Systolic blood pressure fell by 4 mmHg.", start: 10, end: 49, anchors: [29] },
  { id: "S1", quote: "Statins lower LDL cholesterol.", start: 0, end: 30 },
];

/** The visible text of rendered markup (tags removed, entities decoded). */
const visible = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");

describe("CitedText", () => {
  it("puts a superscript citation button at each anchor and lists unanchored ones at the end", () => {
    const text = "Blood pressure fell by 4 mmHg, and LDL was the target.";
    const html = renderToStaticMarkup(<CitedText text={text} citations={citations} />);
    const marks = [...html.matchAll(/<button[^>]*data-testid="citation-mark"[^>]*>([^<]*)<\/button>/g)].map(
      (m) => m[1],
    );
    expect(marks).toEqual(["[1]", "[2]"]);
    expect(html.indexOf('aria-label="Source S4"')).toBeGreaterThan(html.indexOf("4 mmHg"));
    expect(html.indexOf('aria-label="Source S4"')).toBeLessThan(html.indexOf(", and LDL"));
    expect(visible(html)).toContain("Sources (2)");
    expect(visible(html)).toContain("Statins lower LDL cholesterol.");
  });

  it("marks unverified numbers and the model's framing", () => {
    const html = renderToStaticMarkup(
      <CitedText text="⟦framing: The source does not discuss longevity directly; its central findings are:⟧ Strokes fell by ⟦unverified: 37%⟧." />,
    );
    expect(html).toContain(`title="${UNVERIFIED_TITLE}"`);
    expect(html).toContain(`title="${FRAMING_TITLE.replace(/'/g, "&#x27;")}"`);
    expect(visible(html)).toContain("Strokes fell by 37% (not found in the source).");
    expect(visible(html)).not.toContain("⟦");
  });

  it("hides raw markers and a half-received markup prefix while streaming", () => {
    const html = renderToStaticMarkup(
      <CitedText streaming text="Strokes fell [S4, S5]. Pressure fell by ⟦unverified: 3" />,
    );
    expect(visible(html)).toBe("Strokes fell. Pressure fell by 3");
    expect(html).not.toContain("citation-mark");
  });

  it("quiet marks keep the paragraph's text the text alone; numbers and test id can be set", () => {
    const text = "Blood pressure fell by 4 mmHg, and LDL was the target.";
    const html = renderToStaticMarkup(
      <CitedText
        text={text}
        citations={citations}
        quietMarks
        citationNumbers={[3, 7]}
        testId="ai-summary"
        showSources={false}
      />,
    );
    const paragraph = /<p data-testid="ai-summary"[^>]*>([\s\S]*?)<\/p>/.exec(html)![1]!;
    expect(visible(paragraph)).toBe(text);
    expect(html).toContain('data-label="[3]"');
    expect(html).toContain('data-label="[7]"');
    expect(html).toContain('aria-label="Source S4"');
  });
});
