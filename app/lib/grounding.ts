/**
 * A source passage an AI text rests on: `quote === source.slice(start, end)` (UTF-16 offsets into
 * the source that was numbered).
 */
export interface Citation {
  /** The sentence id ("S3"). */
  id: string;
  quote: string;
  start: number;
  end: number;
  /**
   * Offsets in the grounded text right after the claims that cite this passage (where the UI puts
   * the citation mark). Optional: absent or empty means "cited somewhere in the text".
   */
  anchors?: number[];
}
