import fs from "node:fs";
import lighthouse from "lighthouse";
import * as chromeLauncher from "chrome-launcher";
const [url, runs, out] = [process.argv[2], +process.argv[3], process.argv[4]];
const chrome = await chromeLauncher.launch({chromePath: "/usr/bin/chromium",
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]});
try {
  for (let i = 0; i < runs; i++) {
    const r = await lighthouse(url, {port: chrome.port, output: "json", logLevel: "error", onlyCategories: ["performance"], disableFullPageScreenshot: true});
    const a = r.lhr.audits;
    const m = {};
    for (const id of ["first-contentful-paint","largest-contentful-paint","speed-index","total-blocking-time","cumulative-layout-shift"]) m[id] = [Math.round(a[id].numericValue*1000)/1000, a[id].score];
    console.log(Math.round(r.lhr.categories.performance.score*100), JSON.stringify(m));
    if (out) fs.writeFileSync(out + i + ".json", JSON.stringify(r.lhr));
  }
} finally { await chrome.kill(); }
