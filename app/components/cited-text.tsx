import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import type { Citation } from "~/lib/grounding";
import { cn } from "~/lib/utils";

/**
 * Renders a grounded AI text (app/.server/ai/grounding.ts): citation marks at their anchors, each
 * a small superscript button that shows the quoted source sentence on hover, focus or click;
 * numbers marked `⟦unverified: x⟧` as dotted-underlined spans that are not presented as facts;
 * and a `⟦framing: …⟧` lead-in set apart as the model's own words. Also renders text that is still
 * streaming: raw [Sx] markers are hidden and a half-received ⟦…⟧ is shown without its prefix.
 */

/** Tooltip of an unverified number. */
export const UNVERIFIED_TITLE = "Not found in the source — not shown as a fact";
/** Tooltip of the model's framing sentence. */
export const FRAMING_TITLE = "The model's own framing, not a statement from the source";

/** A citation as the API returns it (anchors may be missing in older or third-party data). */
export type CitationLike = Pick<Citation, "id" | "quote"> & Partial<Pick<Citation, "start" | "end" | "anchors">>;

type Piece =
  | { kind: "text"; text: string }
  | { kind: "unverified"; text: string }
  | { kind: "framing"; text: string }
  | { kind: "cite"; indexes: number[]; key: string };

/** Raw citation markers ("[S3]", "[S2, S5]", "[S3-S5]") as they appear in a streaming text. */
const RAW_MARKER = /\s?\[\s*[Ss]\d+(?:\s*(?:[-–—,;&]|to|and)\s*[Ss]?\d+)*\s*\]/g;
const MARKUP = /⟦(unverified|framing): ([^⟧]*)⟧/g;

/** Splits text into plain, unverified and framing pieces; an unclosed "⟦kind: …" tail is shown as text. */
function markupPieces(text: string, cuts: number[]): { piece: Piece; start: number; end: number }[] {
  const out: { piece: Piece; start: number; end: number }[] = [];
  const plain = (from: number, to: number) => {
    // Plain text is split at citation anchors so marks can go between the parts.
    let at = from;
    for (const cut of cuts) {
      if (cut <= at || cut >= to) continue;
      out.push({ piece: { kind: "text", text: text.slice(at, cut) }, start: at, end: cut });
      at = cut;
    }
    if (to > at) out.push({ piece: { kind: "text", text: text.slice(at, to) }, start: at, end: to });
  };
  let last = 0;
  for (const m of text.matchAll(MARKUP)) {
    plain(last, m.index);
    const kind = m[1] === "unverified" ? "unverified" : "framing";
    out.push({ piece: { kind, text: m[2]! }, start: m.index, end: m.index + m[0].length });
    last = m.index + m[0].length;
  }
  const tail = text.slice(last);
  const open = /⟦(?:unverified|framing): ?|⟦[a-z]*$/.exec(tail);
  if (open) {
    plain(last, last + open.index);
    const rest = tail.slice(open.index + open[0].length);
    if (rest) out.push({ piece: { kind: "text", text: rest }, start: last + open.index, end: text.length });
  } else {
    plain(last, text.length);
  }
  return out;
}

/** The pieces of a grounded text with citation marks inserted after their anchors. */
function buildPieces(text: string, citations: readonly CitationLike[]): { pieces: Piece[]; unanchored: number[] } {
  const byAnchor = new Map<number, number[]>();
  const unanchored: number[] = [];
  citations.forEach((c, i) => {
    const anchors = (c.anchors ?? []).filter((a) => Number.isInteger(a) && a >= 0 && a <= text.length);
    if (anchors.length === 0) unanchored.push(i);
    for (const a of anchors) byAnchor.set(a, [...(byAnchor.get(a) ?? []), i]);
  });
  const anchors = [...byAnchor.keys()].sort((a, b) => a - b);
  const positioned = markupPieces(text, anchors);
  const pieces: Piece[] = [];
  const placed = new Set<number>();
  const place = (at: number) => {
    const indexes = byAnchor.get(at);
    if (!indexes || placed.has(at)) return;
    placed.add(at);
    pieces.push({ kind: "cite", indexes, key: `cite-${at}` });
  };
  place(0);
  for (const { piece, start, end } of positioned) {
    pieces.push(piece);
    // Anchors at the end of this piece, or inside a ⟦…⟧ span (they move to its end).
    for (const at of anchors) if (at > start && at <= end) place(at);
  }
  for (const at of byAnchor.keys()) place(at);
  return { pieces, unanchored };
}

/**
 * One citation mark: a superscript button with a tooltip holding the quote. `numbers` overrides
 * the number shown per citation (default: position + 1); `quiet` draws the label with CSS only, so
 * it is not part of the surrounding element's text content.
 */
function CitationMark({
  citations,
  indexes,
  numbers,
  quiet = false,
}: {
  citations: readonly CitationLike[];
  indexes: number[];
  numbers?: readonly number[];
  quiet?: boolean;
}) {
  const [hover, setHover] = useState(false);
  const [pinned, setPinned] = useState(false);
  const tooltipId = useId();
  const ref = useRef<HTMLSpanElement>(null);
  const open = hover || pinned;

  useEffect(() => {
    if (!pinned) return;
    const onDown = (event: PointerEvent) => {
      if (!ref.current?.contains(event.target as Node)) setPinned(false);
    };
    document.addEventListener("pointerdown", onDown);
    return () => document.removeEventListener("pointerdown", onDown);
  }, [pinned]);

  const label = `[${indexes.map((i) => numbers?.[i] ?? i + 1).join(",")}]`;
  return (
    <span ref={ref} className="relative inline-block align-super text-[0.7em] leading-none">
      <button
        type="button"
        data-testid="citation-mark"
        data-label={quiet ? label : undefined}
        className={cn(
          "ml-0.5 rounded px-0.5 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:outline-none",
          quiet && "after:content-[attr(data-label)]",
        )}
        aria-label={`Source ${indexes.map((i) => citations[i]!.id).join(", ")}`}
        aria-expanded={open}
        aria-describedby={open ? tooltipId : undefined}
        onMouseEnter={() => setHover(true)}
        onMouseLeave={() => setHover(false)}
        onFocus={() => setHover(true)}
        onBlur={() => setHover(false)}
        onClick={() => setPinned((p) => !p)}
        onKeyDown={(event) => {
          if (event.key === "Escape" && open) {
            event.stopPropagation(); // close the quote, not the surrounding dialog
            setPinned(false);
            setHover(false);
          }
        }}
      >
        {quiet ? null : label}
      </button>
      {open && (
        <span
          id={tooltipId}
          role="tooltip"
          data-testid="citation-quote"
          className="absolute bottom-full left-1/2 z-50 mb-1 block w-72 max-w-[80vw] -translate-x-1/2 rounded-md border border-slate-200 bg-white p-2 text-left text-xs leading-snug font-normal text-slate-700 shadow-lg"
        >
          {indexes.map((i) => (
            <span key={i} className="block [&+&]:mt-1.5">
              <span className="font-semibold text-slate-900">{citations[i]!.id}</span>{" "}
              <q className="italic">{citations[i]!.quote}</q>
            </span>
          ))}
        </span>
      )}
    </span>
  );
}

export interface CitedTextProps {
  /** The grounded text (⟦…⟧ markup allowed) or a streaming raw text. */
  text: string;
  citations?: readonly CitationLike[];
  /** The text is still arriving: hide raw [Sx] markers and show a cursor. */
  streaming?: boolean;
  /** List the quoted source sentences under the text (default true when there are citations). */
  showSources?: boolean;
  /** Heading of that list (default "Sources"). */
  sourcesLabel?: string;
  /** data-testid of the paragraph holding the text (default "cited-text"). */
  testId?: string;
  /**
   * Draw the marks' "[n]" labels with CSS, so the paragraph's text content is the text alone
   * (the marks stay buttons with an accessible name and their quotes).
   */
  quietMarks?: boolean;
  /** The number shown for each citation (index-aligned; default: its position + 1). */
  citationNumbers?: readonly number[];
  className?: string;
}

/** A grounded AI text with hover/click citation quotes and unverified numbers marked. */
export function CitedText({
  text,
  citations = [],
  streaming = false,
  showSources,
  sourcesLabel = "Sources",
  testId = "cited-text",
  quietMarks = false,
  citationNumbers,
  className,
}: CitedTextProps) {
  const shown = streaming ? text.replace(RAW_MARKER, "") : text;
  const { pieces, unanchored } = buildPieces(shown, streaming ? [] : citations);
  const nodes: ReactNode[] = pieces.map((piece, i) => {
    switch (piece.kind) {
      case "text":
        return <span key={i}>{piece.text}</span>;
      case "unverified":
        return (
          <span
            key={i}
            data-testid="unverified-number"
            title={UNVERIFIED_TITLE}
            className="cursor-help underline decoration-amber-500 decoration-dotted underline-offset-2"
          >
            {piece.text}
            <span className="sr-only"> (not found in the source)</span>
          </span>
        );
      case "framing":
        return (
          <span key={i} data-testid="model-framing" title={FRAMING_TITLE} className="text-slate-500 italic">
            <span className="mr-1 rounded bg-slate-100 px-1 py-0.5 text-[0.7em] font-medium tracking-wide text-slate-600 uppercase not-italic">
              Model&apos;s framing
            </span>
            {piece.text}
          </span>
        );
      case "cite":
        return (
          <CitationMark
            key={piece.key}
            citations={citations}
            indexes={piece.indexes}
            numbers={citationNumbers}
            quiet={quietMarks}
          />
        );
    }
  });
  const listSources = !streaming && (showSources ?? citations.length > 0) && citations.length > 0;
  return (
    <div className={cn("text-sm leading-relaxed text-slate-800", className)}>
      <p data-testid={testId} aria-live={streaming ? "polite" : undefined} className="whitespace-pre-line">
        {nodes}
        {!streaming && unanchored.length > 0 && (
          <CitationMark citations={citations} indexes={unanchored} numbers={citationNumbers} quiet={quietMarks} />
        )}
        {streaming && (
          <span aria-hidden className="ml-0.5 inline-block h-4 w-1.5 animate-pulse bg-brand-500 align-middle" />
        )}
      </p>
      {listSources && (
        <details className="mt-2 text-xs text-slate-600">
          <summary className="cursor-pointer font-medium text-slate-700">
            {sourcesLabel} ({citations.length})
          </summary>
          <ol className="mt-1 list-decimal space-y-1 pl-5">
            {citations.map((c, i) => (
              <li key={c.id} value={citationNumbers?.[i]}>
                <span className="font-semibold">{c.id}</span> <q className="italic">{c.quote}</q>
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}
