// The serving views in headless Chromium at 1366 px: no script error; per device one
// load-latency curve of three panels, its markers on screen (a hollow one per INVALID run
// and percentile), the objective drawn in the TTFT and TPOT panels, the sustainable rate in
// each; the curve at least 1000 px wide with its ticks at least 9 px high (it reads without
// zooming); the decode step's points on the roofline beside it; the procurement rows in the
// machine comparison; no sideways scrolling at 1366 or 390 px. Screenshots of the curve.
//
// usage: node serve_curve_test.js SPEC.json   (serve_curve.py writes it)
"use strict";
const fs = require("fs");
const path = require("path");
const { run, watch } = require("./chromium");

const spec = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));

run(async (browser, problems) => {
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  watch(page, (text) => problems.push(text));
  await page.goto("file://" + path.resolve(spec.report));
  const curves = page.locator("div.serve-curve");
  if ((await curves.count()) !== 2) problems.push(`${await curves.count()} curves, expected one per device (2)`);
  const curve = curves.first();
  await curve.scrollIntoViewIfNeeded();
  const box = await curve.boundingBox();
  if (!box || box.width < 1000) problems.push(`the curve is ${box && box.width} px wide at 1366 px, under 1000`);
  const tick = await curve.locator(".tick").first().boundingBox();
  if (!tick || tick.height < 9) problems.push(`the curve's ticks are ${tick && tick.height} px high`);
  for (const metric of ["TTFT", "TPOT", "E2E"]) {
    const panel = curve.locator(`g.panel[data-metric="${metric}"]`);
    const shown = await panel.locator("circle.curve-point").evaluateAll((cs) => cs.filter((c) => {
      const b = c.getBoundingClientRect();
      return b.width > 0 && b.height > 0;
    }).length);
    if (shown !== 3 * spec.rates) problems.push(`${metric}: ${shown} markers drawn, expected ${3 * spec.rates}`);
    const hollow = await panel.locator("circle.curve-point.invalid").evaluateAll((cs) => cs.filter((c) => getComputedStyle(c).fill === "rgb(255, 255, 255)").length);
    if (hollow !== 3 * spec.invalid) problems.push(`${metric}: ${hollow} hollow markers, expected ${3 * spec.invalid}`);
    const objective = await panel.locator("line.objective").count();
    if (objective !== (metric === "E2E" ? 0 : 1)) problems.push(`${metric}: ${objective} objective lines`);
    if (objective) {
      const stroke = await panel.locator("line.objective").evaluate((l) => [getComputedStyle(l).stroke, l.getBoundingClientRect().width]);
      if (stroke[0] !== "rgb(198, 40, 40)" || stroke[1] < 250) problems.push(`${metric}: the objective line is ${stroke}`);
    }
    if ((await panel.locator("line.sustainable").count()) !== 1) problems.push(`${metric}: no sustainable-rate line`);
  }
  // Throughput against the offered rate: goodput under the offered rate's diagonal, and the
  // output tokens a second, a marker a rate each.
  for (const metric of ["Goodput (requests/s)", "Output tokens/s"]) {
    const panel = curve.locator(`g.panel[data-metric="${metric}"]`);
    const shown = await panel.locator("circle.curve-point").count();
    if (shown !== spec.rates) problems.push(`${metric}: ${shown} markers, expected ${spec.rates}`);
  }
  if ((await curve.locator(`g.panel[data-metric="Goodput (requests/s)"] line.offered`).count()) !== 1)
    problems.push("the goodput panel has no offered-rate diagonal");
  const decode = page.locator("svg.decode-roofline").first();
  const points = await decode.locator(".point").count();
  if (points !== spec.steps) problems.push(`the decode roofline has ${points} points, expected ${spec.steps}`);
  const rows = await page.locator("#serve-procurement tbody tr").count();
  if (rows !== 2) problems.push(`${rows} procurement rows, expected 2`);
  const perJoule = await page.locator("#serve-procurement tbody tr").nth(1).textContent();
  if (!perJoule.includes("tokens/J (measured")) problems.push(`the priced, measured device's row reads '${perJoule.trim().slice(0, 200)}'`);
  await curve.evaluate((e) => e.closest("section").scrollIntoView({ block: "start" }));
  await page.screenshot({ path: path.join(spec.shots, "serve-curve-1366.png") });
  for (const [width, height] of [[1366, 768], [390, 844]]) {
    await page.setViewportSize({ width, height });
    const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    if (scroll > inner + 1) problems.push(`at ${width} px the page scrolls sideways (${scroll} px wide)`);
  }
  await curve.evaluate((e) => e.closest("section").scrollIntoView({ block: "start" }));
  const phoneTick = await curve.locator(".tick").first().boundingBox();
  if (!phoneTick || phoneTick.height < 8) problems.push(`at 390 px the curve's ticks are ${phoneTick && phoneTick.height} px high`);
  await page.screenshot({ path: path.join(spec.shots, "serve-curve-390.png") });
  console.log(`serve curve: ${spec.rates} rates, ${spec.invalid} INVALID, ${points} decode points, ${rows} procurement rows`);
});
