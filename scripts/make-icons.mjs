/**
 * Renders the app icons of the web app manifest (public/icons/*.png) from the favicon's design
 * (public/favicon.svg: the white "M" stroke on brand blue #1f58d6) with Debian's chromium through
 * Playwright. Run once when the logo changes and commit the PNGs: `node scripts/make-icons.mjs`.
 *
 * - icon-192.png, icon-512.png: purpose "any", rounded square on a transparent background.
 * - maskable-512.png: purpose "maskable", full-bleed blue with the glyph inside the 80 % safe zone
 *   (W3C Manifest "maskable" icons; the launcher crops to its own shape).
 * - apple-touch-icon.png: 180 × 180, opaque and square (iOS rounds the corners itself).
 */
import { chromium } from "@playwright/test";

const GLYPH = `<path d="M8 23V9l8 8 8-8v14" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/>`;

/** SVG of one icon; `inset` shrinks the glyph around the centre (maskable safe zone). */
function svg({ rounded, inset = 1 }) {
  const offset = 16 * (1 - inset);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="100%" height="100%">
<rect width="32" height="32" ${rounded ? 'rx="7"' : ""} fill="#1f58d6"/>
<g transform="translate(${offset} ${offset}) scale(${inset})">${GLYPH}</g></svg>`;
}

const ICONS = [
  { file: "icon-192.png", size: 192, rounded: true },
  { file: "icon-512.png", size: 512, rounded: true },
  { file: "maskable-512.png", size: 512, rounded: false, inset: 0.75 },
  { file: "apple-touch-icon.png", size: 180, rounded: false, inset: 0.85 },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless"],
});
try {
  for (const icon of ICONS) {
    const page = await browser.newPage({ viewport: { width: icon.size, height: icon.size } });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg(icon)}</body></html>`);
    const path = new URL(`../public/icons/${icon.file}`, import.meta.url).pathname;
    await page.screenshot({ path, omitBackground: true, clip: { x: 0, y: 0, width: icon.size, height: icon.size } });
    await page.close();
    console.log(`wrote ${path}`);
  }
} finally {
  await browser.close();
}
