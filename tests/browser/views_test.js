// Loads rendered reports in headless Chromium and checks each as its reader sees it: no
// script errors or network requests, the expected elements (counts of selectors, the text
// the first match starts with), no page-level sideways scrolling at 1920, 1366 and 390 px,
// and a screenshot of the view's section at each width.
//
// usage: node views_test.js SPEC.json
//   SPEC: [{"html": PATH, "name": NAME, "section": CSS selector to screenshot from,
//           "counts": {selector: n}, "starts": {selector: text}, "shots": DIR}]
"use strict";
const fs = require("fs");
const path = require("path");
const { run, watch } = require("./chromium");

const specs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));

run(async (browser, problems) => {
  for (const spec of specs) {
    const says = (text) => problems.push(`${spec.name}: ${text}`);
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    watch(page, says);
    await page.goto("file://" + path.resolve(spec.html));
    for (const [selector, n] of Object.entries(spec.counts || {})) {
      const found = await page.locator(selector).count();
      if (found !== n) says(`${found} of '${selector}', expected ${n}`);
    }
    for (const [selector, text] of Object.entries(spec.starts || {})) {
      const first = page.locator(selector).first();
      const got = (await first.count()) ? (await first.textContent()).trim() : "(none)";
      if (!got.startsWith(text)) says(`'${selector}' reads '${got.slice(0, 80)}', expected it to start '${text}'`);
    }
    for (const [width, height] of [[1920, 760], [1366, 768], [390, 844]]) {
      await page.setViewportSize({ width, height });
      const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      if (scroll > inner + 1) says(`at ${width} px the page scrolls sideways (${scroll} px wide)`);
      // The view's section at the top of the screen, as its reader lands on it.
      await page.locator(spec.section).first().evaluate((e) => e.scrollIntoView({ block: "start" }));
      await page.screenshot({ path: path.join(spec.shots, `${spec.name}-${width}.png`), fullPage: false });
    }
    await page.close();
    console.log(`${spec.name}: checked, screenshots in ${spec.shots}`);
  }
});
