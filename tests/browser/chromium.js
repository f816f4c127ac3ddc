// What the browser tests share: Debian's headless Chromium (exit 4, CTest's SKIP, where it
// is missing), and a watch on a page for script errors, console errors and any request
// that leaves the file system (a report must be self-contained).
"use strict";
const fs = require("fs");
const { chromium } = require("playwright-core");

async function launch() {
  const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
  if (!fs.existsSync(executablePath)) {
    console.log(`SKIP: no Chromium at ${executablePath} (install Debian's chromium)`);
    process.exit(4);
  }
  return chromium.launch({
    executablePath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

function watch(page, says) {
  page.on("pageerror", (e) => says(`script error: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") says(`console error: ${m.text()}`); });
  page.on("request", (r) => { if (!r.url().startsWith("file:")) says(`network request: ${r.url()}`); });
}

// Runs a test's body with a browser and a list of problems; closes the browser, prints the
// problems and exits 1 when there are any (or when the body throws).
function run(body) {
  (async () => {
    const browser = await launch();
    const problems = [];
    try {
      await body(browser, problems);
    } finally {
      await browser.close();
    }
    if (problems.length) {
      console.log(problems.join("\n"));
      process.exit(1);
    }
  })().catch((e) => { console.log(e.stack || String(e)); process.exit(1); });
}

module.exports = { launch, watch, run };
