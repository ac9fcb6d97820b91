import { PageSizes, PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage } from "pdf-lib";
import { exportRecord, FIELD_LABELS } from "./formats";
import type { ExportOptions, ExportStudy } from "./types";

/** SPEC §9: A4 pages with 0.75 in margins (72 pt per inch). */
export const PDF_PAGE_SIZE = PageSizes.A4;
export const PDF_MARGIN_PT = 0.75 * 72;

/**
 * Text the standard (WinAnsi) fonts can draw: characters outside the font's set are decomposed
 * (é → e) when possible, else replaced by "?".
 */
function encodable(font: PDFFont): (text: string) => string {
  const supported = new Set(font.getCharacterSet());
  return (text) =>
    Array.from(text.replace(/\r\n?/g, "\n").replace(/\t/g, " "))
      .map((ch) => {
        if (ch === "\n" || supported.has(ch.codePointAt(0)!)) return ch;
        const base = ch.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
        return base && Array.from(base).every((c) => supported.has(c.codePointAt(0)!)) ? base : "?";
      })
      .join("");
}

/** Splits text into lines no wider than maxWidth at the given size (breaks long words). */
export function wrapText(text: string, font: PDFFont, size: number, maxWidth: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/ +/)) {
      let w = word;
      while (font.widthOfTextAtSize(w, size) > maxWidth) {
        let cut = w.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(w.slice(0, cut), size) > maxWidth) cut--;
        if (line) {
          lines.push(line);
          line = "";
        }
        lines.push(w.slice(0, cut));
        w = w.slice(cut);
      }
      const candidate = line ? `${line} ${w}` : w;
      if (font.widthOfTextAtSize(candidate, size) <= maxWidth) line = candidate;
      else {
        lines.push(line);
        line = w;
      }
    }
    lines.push(line);
  }
  return lines;
}

/**
 * The export as a PDF built on the server with pdf-lib (docs/decisions/0007): A4, 0.75 in
 * margins, Helvetica, one block per study with the fields chosen by the export options, page
 * numbers in the footer.
 */
export async function toPdf(
  studies: readonly ExportStudy[],
  options: ExportOptions,
  now: Date,
): Promise<Uint8Array<ArrayBuffer>> {
  const doc = await PDFDocument.create();
  doc.setTitle("MetaMind study export");
  doc.setCreator("MetaMind");
  doc.setProducer("MetaMind (pdf-lib)");
  doc.setCreationDate(now);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const clean = encodable(regular);
  const [pageWidth, pageHeight] = PDF_PAGE_SIZE;
  const width = pageWidth - 2 * PDF_MARGIN_PT;
  let page: PDFPage = doc.addPage(PDF_PAGE_SIZE);
  let y = pageHeight - PDF_MARGIN_PT;

  const write = (text: string, font: PDFFont, size: number, color = rgb(0.06, 0.09, 0.16), gapAfter = 2) => {
    const leading = size * 1.3;
    for (const line of wrapText(clean(text), font, size, width)) {
      if (y - leading < PDF_MARGIN_PT) {
        page = doc.addPage(PDF_PAGE_SIZE);
        y = pageHeight - PDF_MARGIN_PT;
      }
      y -= leading;
      page.drawText(line, { x: PDF_MARGIN_PT, y, size, font, color });
    }
    y -= gapAfter;
  };

  write("MetaMind study export", bold, 18, undefined, 4);
  write(
    `${studies.length} ${studies.length === 1 ? "study" : "studies"} · exported ${now.toISOString().slice(0, 10)}`,
    regular,
    10,
    rgb(0.4, 0.45, 0.53),
    12,
  );
  studies.forEach((study, index) => {
    const r = exportRecord(study, options);
    write(`${index + 1}. ${study.title}`, bold, 12, undefined, 2);
    if (study.authors.length) write(study.authors.join(", "), regular, 10, rgb(0.2, 0.25, 0.33));
    const meta = [r.journal, r.publicationDate].filter(Boolean).join(" · ");
    if (meta) write(String(meta), regular, 10, rgb(0.4, 0.45, 0.53));
    for (const [key, value] of Object.entries(r)) {
      if (["title", "authors", "journal", "publicationDate"].includes(key) || value === "") continue;
      write(`${FIELD_LABELS[key] ?? key}: ${String(value)}`, regular, 9.5, undefined, 1);
    }
    y -= 10;
  });

  const pages = doc.getPages();
  pages.forEach((p, i) => {
    const label = `Page ${i + 1} of ${pages.length}`;
    p.drawText(label, {
      x: pageWidth - PDF_MARGIN_PT - regular.widthOfTextAtSize(label, 8),
      y: PDF_MARGIN_PT / 2,
      size: 8,
      font: regular,
      color: rgb(0.5, 0.55, 0.6),
    });
  });
  return new Uint8Array(await doc.save());
}
