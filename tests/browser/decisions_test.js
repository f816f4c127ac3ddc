// The decisions of issue 40 in headless Chromium: a low ceiling's banner at the top, a gate
// with UNRESOLVED-above-tau rows amber (never green) with those rows first, per watt never a
// measured power against a TDP, one filter for the whole page (the chart follows it), a row
// click that brings its point into view; at 390 px results as cards, legible chart text, a
// tapped point described under its chart. Screenshots at 1920, 1366 and 390 px.
//
// usage: node decisions_test.js SPEC.json   (decisions.py writes it)
"use strict";
const fs = require("fs");
const path = require("path");
const { run, watch } = require("./chromium");

const spec = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const widths = [[1920, 760], [1366, 768], [390, 844]];

run(async (browser, problems) => {
  const open = async (name, html) => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    watch(page, (text) => problems.push(`${name}: ${text}`));
    await page.goto("file://" + path.resolve(html));
    return page;
  };
  const text = async (page, selector) => ((await page.locator(selector).count()) ? (await page.locator(selector).first().textContent()).trim() : "");
  // At each width: no sideways scrolling, and a screenshot with `selector` at the top.
  const shots = async (page, name, selector) => {
    for (const [width, height] of widths) {
      await page.setViewportSize({ width, height });
      const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      if (scroll > inner + 1) problems.push(`${name}: at ${width} px the page scrolls sideways (${scroll} px wide)`);
      await page.locator(selector).first().evaluate((e) => e.scrollIntoView({ block: "start" }));
      await page.screenshot({ path: path.join(spec.shots, `${name}-${width}.png`) });
    }
  };

  // A ceiling the results beat: one banner, above every chart, with the command.
  let page = await open("low-ceiling", spec.low);
  const banner = await text(page, "#ceiling-banner");
  if ((await page.locator("#ceiling-banner").count()) !== 1) problems.push("low-ceiling: no single #ceiling-banner");
  for (const needed of ["fp32_vector_fma", "rooftop characterize --backend cpu --merge", "12 results reach"])
    if (!banner.includes(needed)) problems.push(`low-ceiling: the banner lacks '${needed}': ${banner.slice(0, 200)}`);
  const [bannerTop, chartTop] = await page.evaluate(() => [document.getElementById("ceiling-banner").getBoundingClientRect().top,
    document.querySelector("svg.roofline").getBoundingClientRect().top]);
  if (!(bannerTop < chartTop && bannerTop < 768)) problems.push(`low-ceiling: the banner at ${bannerTop} px, the chart at ${chartTop}`);
  await shots(page, "low-ceiling", "h1");
  await page.close();

  // UNRESOLVED above tau: amber with exit 6 and the count, those rows first, never green.
  page = await open("gate-above-tau", spec.gate);
  const gate = await text(page, "#gate-banner");
  if (!gate.startsWith("UNRESOLVED: 3 benchmarks likely slower than tau") || !gate.includes("(gate exit 6)"))
    problems.push(`gate-above-tau: the banner reads '${gate.slice(0, 120)}'`);
  const colour = await page.locator("#gate-banner").evaluate((e) => getComputedStyle(e).backgroundColor);
  if (colour !== "rgb(179, 92, 0)") problems.push(`gate-above-tau: the banner is ${colour}, not amber`);
  if (await page.locator(".banner-green").count()) problems.push("gate-above-tau: a green banner");
  const first = await page.locator("#gate tbody tr").evaluateAll((trs) => trs.slice(0, 4).map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]));
  for (let i = 0; i < 3; ++i)
    if (!first[i][0].includes("above tau") || !spec.slowed.includes(first[i][1])) problems.push(`gate-above-tau: row ${i + 1} is ${first[i]}`);
  if (first[3][0].includes("above tau")) problems.push("gate-above-tau: a fourth row above tau");
  await shots(page, "gate-above-tau", "h1");
  await page.close();

  // Per watt: the same H100 run, energy removed from one copy: TDP on both sides (x1.00);
  // without a datasheet either: not comparable.
  for (const [name, html, starts] of [["per-watt-tdp", spec.tdp, "x1.00 (datasheet TDP, both"], ["per-watt-refused", spec.refused, "not comparable:"]]) {
    page = await open(name, html);
    const cell = (await page.locator("#procurement tbody tr").nth(1).locator("td").nth(4).textContent()).trim();
    if (!cell.startsWith(starts)) problems.push(`${name}: per W reads '${cell}', expected '${starts}...'`);
    if (name === "per-watt-refused") await shots(page, name, "h3");
    await page.close();
  }

  // One filter for the whole page: the chart's points follow it, and the other tables.
  page = await open("filter", spec.filter);
  const visible = (selector) => page.locator(selector).evaluateAll((es) => es.filter((e) => getComputedStyle(e).display !== "none").length);
  const points = await visible(".roofline .point");
  await page.fill("#filter", "int8");
  const narrowed = await visible(".roofline .point"), rows = await visible("#results tbody tr");
  if (!(narrowed > 0 && narrowed < points)) problems.push(`filter: 'int8' left ${narrowed} of ${points} points`);
  if (narrowed !== rows) problems.push(`filter: ${narrowed} points but ${rows} rows shown`);
  const strays = await page.locator(".roofline .point").evaluateAll((ps) => ps.filter((p) => getComputedStyle(p).display !== "none" && p.getAttribute("data-dtype") !== "int8").length);
  if (strays) problems.push(`filter: ${strays} points of other dtypes still shown`);
  if (!(await text(page, "#filter-status")).startsWith(`${rows} of `)) problems.push(`filter: the status reads '${await text(page, "#filter-status")}'`);
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.locator(".filterbar").evaluate((e) => e.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: path.join(spec.shots, "filter-1366.png") });
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.fill("#filter", "");
  if ((await visible(".roofline .point")) !== points) problems.push("filter: clearing it did not bring every point back");

  // A row click far below the chart brings its point into view.
  const last = page.locator("#results tbody tr").last();
  await last.scrollIntoViewIfNeeded();
  await last.click();
  const box = await page.locator(".roofline .point.hl").first().evaluate((p) => { const b = p.getBoundingClientRect(); return [b.top, b.bottom]; });
  if (!(box[0] >= 0 && box[1] <= 768)) problems.push(`filter: the clicked row's point is at ${box[0]}-${box[1]} px, off the screen`);

  // A phone: the results are cards (no table scrolling inside itself), the chart's text is
  // legible, and a tapped point says what it is under the chart.
  await page.setViewportSize({ width: 390, height: 844 });
  const [inner, outer] = await page.locator("#results").evaluate((t) => [t.scrollWidth, t.clientWidth]);
  if (inner > outer + 1) problems.push(`390 px: the results scroll inside themselves (${inner} px in ${outer})`);
  const tick = await page.locator(".roofline .tick").first().evaluate((t) => t.getBoundingClientRect().height);
  if (tick < 8) problems.push(`390 px: the roofline's tick labels are ${tick.toFixed(1)} px high`);
  const point = page.locator(".roofline .point").first();
  await point.scrollIntoViewIfNeeded();
  await point.dispatchEvent("click");
  const info = await text(page, ".point-info");
  if (!info.includes("|")) problems.push(`390 px: a tapped point left the line under its chart '${info}'`);
  await page.locator("#results").evaluate((e) => e.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: path.join(spec.shots, "results-cards-390.png") });
  await page.close();
  console.log("decisions: checked; screenshots in " + spec.shots);
});
