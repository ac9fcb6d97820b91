import { describe, expect, it } from "vitest";
import { extractArms, parseReport } from "./index.ts";

const ON = { repairs: ["spanned-cells", "smart-dashes"] as const };
const question = (outcome: string) => ({ intervention: "Drug", comparator: "Placebo", outcome });

describe("round 12 converter repairs through the arm-level core (invented reports)", () => {
  it("reads a mean whose minus sign the converter wrote as '--' only with smart-dashes", () => {
    const md = [
      "Table 3 Change in cartilage volume",
      "",
      "  Outcome            Drug (n = 11)    Placebo (n = 6)",
      "  ------------------ ---------------- ----------------",
      "  Cartilage volume   --1.4 (4.2)      --3.3 (5.3)",
      "",
    ].join("\n");
    const off = extractArms(parseReport(md, "markdown"), question("Cartilage volume"), { abstainBelow: 0 });
    expect(off.intervention.mean).toBeNull();
    const on = extractArms(parseReport(md, "markdown", ON), question("Cartilage volume"), { abstainBelow: 0 });
    expect([on.intervention.mean, on.intervention.sd, on.comparator.mean, on.comparator.sd]).toEqual([
      -1.4, 4.2, -3.3, 5.3,
    ]);
  });
});
