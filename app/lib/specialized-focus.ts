/** The seven focus values (SPEC §1). */
export const FOCUS_VALUES = [
  "nutrition",
  "exercise",
  "longevity",
  "cognitive",
  "cardiovascular",
  "musculoskeletal",
  "mechanisms",
] as const;
export type Focus = (typeof FOCUS_VALUES)[number];
