// A 10,000-result report in headless Chromium: how long it takes to load, to sort and to
// filter, and that a point's row is found beyond the first page.
//
// usage: node large_report.js REPORT.html
"use strict";
const path = require("path");
const { launch } = require("./chromium");

(async () => {
  const browser = await launch();
  const problems = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    page.on("pageerror", (e) => problems.push(`script error: ${e.message}`));
    let t = Date.now();
    await page.goto("file://" + path.resolve(process.argv[2]), { waitUntil: "load" });
    const load = Date.now() - t;
    const times = await page.evaluate(() => {
      const th = Array.from(document.querySelectorAll("#results thead th")).find((x) => x.textContent.trim() === "compute");
      let t0 = performance.now();
      th.click();
      document.body.offsetHeight;  // the layout the sort causes
      const sort = performance.now() - t0;
      const f = document.getElementById("filter");
      t0 = performance.now();
      f.value = "m256";
      f.dispatchEvent(new Event("input"));
      document.body.offsetHeight;
      const filter = performance.now() - t0;
      f.value = "";
      f.dispatchEvent(new Event("input"));
      return { sort, filter, rows: document.querySelectorAll("#results tbody tr").length };
    });
    // The last point's row is not on the first page: clicking the point brings it.
    const last = page.locator(".roofline .point").last();
    await last.dispatchEvent("click");
    const found = await page.locator("#results tbody tr.hl").count();
    console.log(`load ${load} ms, sort ${times.sort.toFixed(0)} ms, filter ${times.filter.toFixed(0)} ms, ` +
                `${times.rows} rows in the table, the last point's row found: ${found === 1}`);
    if (times.sort > 1000) problems.push(`sorting took ${times.sort.toFixed(0)} ms`);
    if (times.filter > 1000) problems.push(`filtering took ${times.filter.toFixed(0)} ms`);
    if (times.rows > 1000) problems.push(`${times.rows} rows laid out at once`);
    if (found !== 1) problems.push("the last point's row was not found");
  } finally {
    await browser.close();
  }
  if (problems.length) {
    console.log(problems.join("\n"));
    process.exit(1);
  }
})();
