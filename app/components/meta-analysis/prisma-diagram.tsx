import { isFiniteNumber } from "~/lib/meta-analysis/display";
import { wrapText } from "~/lib/meta-analysis/plot-scale";
import type { PrismaCounts } from "~/lib/meta-analysis/types";
import { PROVIDER_LABELS } from "~/lib/format";

export interface PrismaDiagramProps {
  /** Unique prefix for the SVG's title/desc ids. */
  id: string;
  counts: PrismaCounts;
  /**
   * PRISMA 2020's template for updated reviews: `counts` are then the flow of the records the
   * update(s) identified, beside the studies included before and the total.
   */
  update?: PrismaUpdate;
}

/** The counts the updated-review template adds: studies included before the update(s), and the total. */
export interface PrismaUpdate {
  previousStudies: number;
  totalStudies: number;
}

const WIDTH = 720;
const MAIN_X = 110;
const MAIN_W = 290;
const SIDE_X = 440;
const SIDE_W = 270;
/** The updated-review template's "Previous studies" column, left of the main column (which moves right by PREV_SHIFT). */
const PREV_X = 110;
const PREV_W = 190;
const PREV_SHIFT = 220;
const LINE = 15;
const PAD = 10;
const GAP = 30;
const FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";

/** A count as printed in the diagram ("n = 1,234"), "n = not reported" when unknown. */
export function prismaN(n: number | null | undefined): string {
  return isFiniteNumber(n) && n >= 0 ? `n = ${Math.round(n).toLocaleString("en")}` : "n = not reported";
}

/**
 * The derived boxes of the PRISMA 2020 flow: identification per database, register or file,
 * duplicates removed, records screened and excluded, reports sought, not retrieved, assessed and
 * excluded with reasons, and studies included. Reports sought and not retrieved are taken from
 * the counts when given (a review's decisions); otherwise sought = records screened − excluded −
 * maybe and not retrieved = sought − assessed (never negative).
 *
 * A review in progress also has records not yet decided (awaiting a decision or marked maybe).
 * They are stated beside the exclusions of their stage, so that each main box is the sum of the
 * box below it and its side box at every moment: records to screen = excluded + not yet decided
 * + sought; sought = not retrieved + reports to assess; reports to assess = excluded (all
 * reasons) + not yet decided + included. When nothing is undecided the boxes read as in the
 * PRISMA 2020 template ("Records screened", "Reports assessed for eligibility").
 */
export function prismaBoxes(counts: PrismaCounts, update?: PrismaUpdate) {
  const databases = Object.entries(counts.identified).filter(([, n]) => isFiniteNumber(n));
  const identified = databases.reduce((sum, [, n]) => sum + n, 0);
  const awaiting = counts.awaitingScreening ?? 0;
  const maybe = counts.maybe ?? 0;
  const sought = counts.sought ?? Math.max(0, counts.screened - counts.excluded - maybe);
  const notRetrieved = counts.notRetrieved ?? Math.max(0, sought - counts.reportsAssessed);
  const awaitingFt = counts.awaitingFullText ?? 0;
  const maybeFt = counts.fullTextMaybe ?? 0;
  const undecided = (a: number, m: number) =>
    a + m === 0
      ? []
      : [`Not yet decided (${prismaN(a + m)}):`, `awaiting a decision (${prismaN(a)})`, `marked maybe (${prismaN(m)})`];
  return {
    identification: [
      update
        ? "New records identified by the update(s) from databases, registers and files"
        : "Records identified from databases, registers and files",
      `(${prismaN(identified)})`,
      ...databases.map(([db, n]) => `${PROVIDER_LABELS[db] ?? db} (${prismaN(n)})`),
    ],
    removed: ["Records removed before screening:", `Duplicate records removed (${prismaN(counts.duplicatesRemoved)})`],
    screened:
      awaiting + maybe === 0
        ? [`Records screened (${prismaN(counts.screened)})`]
        : [
            `Records to screen (${prismaN(counts.screened + awaiting)})`,
            `screened so far (${prismaN(counts.screened)})`,
          ],
    excluded: [`Records excluded (${prismaN(counts.excluded)})`, ...undecided(awaiting, maybe)],
    sought: [`Reports sought for retrieval (${prismaN(sought)})`],
    notRetrieved: [`Reports not retrieved (${prismaN(notRetrieved)})`],
    assessed:
      awaitingFt + maybeFt === 0
        ? [`Reports assessed for eligibility (${prismaN(counts.reportsAssessed)})`]
        : [
            `Reports to assess for eligibility (${prismaN(counts.reportsAssessed + awaitingFt)})`,
            `assessed so far (${prismaN(counts.reportsAssessed)})`,
          ],
    reportsExcluded: [
      "Reports excluded:",
      ...(counts.reportsExcluded.length === 0
        ? ["none (n = 0)"]
        : counts.reportsExcluded.map((r) => `${r.reason} (${prismaN(r.count)})`)),
      ...undecided(awaitingFt, maybeFt),
    ],
    included: [`${update ? "New studies" : "Studies"} included in review (${prismaN(counts.included)})`],
    previous: update
      ? [
          "Previous studies:",
          `Studies included in the review before the update(s) (${prismaN(update.previousStudies)})`,
        ]
      : [],
    total: update ? [`Total studies included in review (${prismaN(update.totalStudies)})`] : [],
  };
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
  lines: string[];
  testId: string;
}

function layoutLines(lines: string[], width: number): string[] {
  const maxChars = Math.floor((width - 2 * PAD) / 6.4);
  return lines.flatMap((l) => wrapText(l, maxChars));
}

/** Approximate width in px of a bold 11 px phase label, for sizing its (vertical) band. */
export function phaseLabelLength(label: string): number {
  return Math.ceil(label.length * 7.2) + 2 * PAD;
}

/**
 * Positions of the diagram's boxes and phase bands. A phase with one row (Identification,
 * Included) is made at least as tall as its rotated label, so the label never leaves its band.
 */
export function prismaLayout(counts: PrismaCounts, update?: PrismaUpdate) {
  const b = prismaBoxes(counts, update);
  const shift = update ? PREV_SHIFT : 0;
  const rows: [string[], string[] | null, string, string][] = [
    [b.identification, b.removed, "prisma-identified", "prisma-duplicates"],
    [b.screened, b.excluded, "prisma-screened", "prisma-excluded"],
    [b.sought, b.notRetrieved, "prisma-sought", "prisma-not-retrieved"],
    [b.assessed, b.reportsExcluded, "prisma-assessed", "prisma-reports-excluded"],
    [b.included, null, "prisma-included", ""],
    ...(update ? [[b.total, null, "prisma-total", ""] as [string[], null, string, string]] : []),
  ];
  const minHeight: Record<number, number> = { 0: phaseLabelLength("Identification"), 4: phaseLabelLength("Included") };
  const main: Box[] = [];
  const side: Box[] = [];
  let y = 20;
  const previousLines = update ? layoutLines(b.previous, PREV_W) : [];
  rows.forEach(([left, right, leftId, rightId], i) => {
    const l = layoutLines(left, MAIN_W);
    const r = right ? layoutLines(right, SIDE_W) : [];
    const h = Math.max(
      Math.max(l.length, r.length, i === 0 ? previousLines.length : 0) * LINE + 2 * PAD,
      minHeight[i] ?? 0,
    );
    main.push({ x: MAIN_X + shift, y, w: MAIN_W, h, lines: l, testId: leftId });
    if (right) side.push({ x: SIDE_X + shift, y, w: SIDE_W, h, lines: r, testId: rightId });
    y += h + GAP;
  });
  const height = y - GAP + 20;
  const last = main[main.length - 1]!;
  const phases: [string, number, number][] = [
    ["Identification", main[0]!.y, main[0]!.y + main[0]!.h],
    ["Screening", main[1]!.y, main[3]!.y + main[3]!.h],
    ["Included", main[4]!.y, last.y + last.h],
  ];
  const previous: Box | null = update
    ? { x: PREV_X, y: main[0]!.y, w: PREV_W, h: main[0]!.h, lines: previousLines, testId: "prisma-previous" }
    : null;
  return { boxes: b, main, side, height, phases, previous, width: WIDTH + shift };
}

/**
 * PRISMA 2020 flow diagram (SVG) for a review searching databases: the identification,
 * screening and included phases, with exclusion boxes to the right and arrows between them.
 */
export function PrismaDiagram({ id, counts, update }: PrismaDiagramProps) {
  const { boxes: b, main, side, height, phases, previous, width: WIDTH } = prismaLayout(counts, update);
  const description = [
    ...b.previous,
    ...b.identification,
    ...b.removed,
    ...b.screened,
    ...b.excluded,
    ...b.sought,
    ...b.notRetrieved,
    ...b.assessed,
    ...b.reportsExcluded,
    ...b.included,
    ...b.total,
  ].join(". ");
  const total = update ? main[main.length - 1]! : null;

  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${WIDTH} ${height}`}
      width="100%"
      role="img"
      aria-labelledby={`${id}-title ${id}-desc`}
      data-testid="prisma-diagram"
      fontFamily={FONT}
      fontSize={11}
      style={{ maxWidth: WIDTH }}
    >
      <title id={`${id}-title`}>
        {update ? "PRISMA 2020 flow diagram for updated systematic reviews" : "PRISMA 2020 flow diagram"}
      </title>
      <desc id={`${id}-desc`}>{description}</desc>
      <defs>
        <marker id={`${id}-arrow`} viewBox="0 0 10 10" refX={9} refY={5} markerWidth={7} markerHeight={7} orient="auto">
          <path d="M0,0 L10,5 L0,10 z" fill="#334155" />
        </marker>
      </defs>
      <rect x={0} y={0} width={WIDTH} height={height} fill="#ffffff" />
      {phases.map(([label, top, bottom]) => (
        <g key={label}>
          <rect x={20} y={top} width={60} height={bottom - top} rx={6} fill="#dbeafe" stroke="#93c5fd" />
          <text
            x={50}
            y={(top + bottom) / 2}
            textAnchor="middle"
            dominantBaseline="middle"
            fontWeight={600}
            fill="#1e3a8a"
            transform={`rotate(-90 50 ${(top + bottom) / 2})`}
          >
            {label}
          </text>
        </g>
      ))}
      {main.slice(0, -1).map((box, i) => (
        <line
          key={`down-${i}`}
          x1={box.x + box.w / 2}
          x2={box.x + box.w / 2}
          y1={box.y + box.h}
          y2={main[i + 1]!.y}
          stroke="#334155"
          markerEnd={`url(#${id}-arrow)`}
        />
      ))}
      {previous && total && (
        <path
          d={`M${previous.x + previous.w / 2},${previous.y + previous.h} V${total.y + total.h / 2} H${total.x}`}
          fill="none"
          stroke="#334155"
          markerEnd={`url(#${id}-arrow)`}
        />
      )}
      {side.map((box, i) => (
        <line
          key={`side-${i}`}
          x1={main[0]!.x + MAIN_W}
          x2={box.x}
          y1={box.y + box.h / 2}
          y2={box.y + box.h / 2}
          stroke="#334155"
          markerEnd={`url(#${id}-arrow)`}
        />
      ))}
      {[...(previous ? [previous] : []), ...main, ...side].map((box) => (
        <g key={box.testId} data-testid={box.testId}>
          <rect x={box.x} y={box.y} width={box.w} height={box.h} fill="#ffffff" stroke="#334155" />
          <text x={box.x + PAD} y={box.y + PAD + 11} fill="#0f172a">
            {box.lines.map((line, i) => (
              <tspan key={i} x={box.x + PAD} dy={i === 0 ? 0 : LINE}>
                {line}
              </tspan>
            ))}
          </text>
        </g>
      ))}
    </svg>
  );
}
