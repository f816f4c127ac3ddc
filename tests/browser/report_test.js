// Loads a rooftop HTML report in headless Chromium (Debian's /usr/bin/chromium) and checks:
// no script errors, one SVG point per plotted result, the table sorts, clicking a row
// highlights its point and brings it into view; saves a screenshot.
//
// usage: node report_test.js REPORT.html EXPECTED_POINTS SCREENSHOT.png
"use strict";
const path = require("path");
const { run, watch } = require("./chromium");

const [report, expectedPoints, screenshot] = process.argv.slice(2);

run(async (browser, problems) => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  watch(page, (text) => problems.push(text));
  await page.goto("file://" + path.resolve(report));

  const points = await page.locator(".roofline .point").count();
  if (points !== Number(expectedPoints)) problems.push(`${points} points in the SVG, expected ${expectedPoints}`);
  const rows = await page.locator("#results tbody tr").count();

  // Sort by compute (scaled cells, sorted on their raw data-sort): ascending, then descending.
  const column = await page.locator("#results thead th").evaluateAll((ths) => ths.findIndex((th) => th.textContent.trim() === "compute"));
  const values = async () => page.locator("#results tbody tr").evaluateAll((trs, col) =>
    trs.map((tr) => parseFloat(tr.cells[col].getAttribute("data-sort"))).filter((v) => !isNaN(v) && v >= 0), column);
  const header = page.locator("#results thead th").nth(column);
  await header.click();
  let v = await values();
  if (v.some((x, i) => i > 0 && v[i - 1] > x)) problems.push("compute not ascending after one click");
  await header.click();
  v = await values();
  if (v.some((x, i) => i > 0 && v[i - 1] < x)) problems.push("compute not descending after two clicks");

  // A row links to its point, and brings it into view where it was off the screen.
  await page.locator("#results tbody tr").first().click();
  const box = await page.locator(".roofline .point.hl").first().evaluate((p) => { const b = p.getBoundingClientRect(); return [b.top, b.bottom]; });
  if (!(box[0] >= 0 && box[1] <= 900)) problems.push(`the clicked row's point is at ${box[0]}-${box[1]} px, off the screen`);
  // The filter matches names, not the diagnosis's words.
  await page.fill("#filter", "far from the peak");
  const shown = await page.locator("#results tbody tr:visible").count();
  if (shown !== 0) problems.push(`the filter matched ${shown} rows on diagnosis text`);
  await page.fill("#filter", "");
  const highlighted = await page.locator(".roofline .point.hl").count();
  if (highlighted !== 1) problems.push(`${highlighted} points highlighted after clicking a row, expected 1`);

  // No page-level horizontal scrolling on a 1366 px laptop screen, nor on a 390 px phone.
  for (const width of [1366, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 768 });
    const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    if (scroll > inner + 1) problems.push(`at ${width} px the page scrolls sideways (${scroll} px wide)`);
  }
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: screenshot, fullPage: false });
  console.log(`${points} points, ${rows} rows, sorted both ways, screenshot ${screenshot}`);
});
