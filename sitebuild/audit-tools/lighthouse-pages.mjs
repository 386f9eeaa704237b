// Lighthouse over a list of pages with one Chromium: `node lighthouse-pages.mjs JOBS.json`.
// JOBS.json: {"chrome": "/usr/bin/chromium", "jobs": [{"url": ..., "categories": [...]}]}.
// Prints one JSON line per job: url, scores per category, the failing audits, and the
// figures sitebuild/audit_pages.py checks on every page (DOM size, bytes, requests made on
// load), with the timings of a performance audit when the job asks for one.
// Called by sitebuild/audit_pages.py, which splits the pages over a few of these processes:
// one Lighthouse run at a time per Chromium, as Lighthouse requires.
import fs from "node:fs";
import lighthouse from "lighthouse";
import * as chromeLauncher from "chrome-launcher";
import { pageFunctions } from "lighthouse/core/lib/page-functions.js";

// Before every page Lighthouse runs a CPU benchmark in it (about a second of busy loop)
// that only a performance audit's figures read: the other jobs skip it.
const benchmark = pageFunctions.computeBenchmarkIndex;
const noBenchmark = function computeBenchmarkIndex() { return -1; };

const { chrome: chromePath, jobs } = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
// What a page weighs and requests on load: diagnostics that time nothing.
const WEIGHT_AUDITS = ["dom-size", "total-byte-weight", "network-requests"];
const chrome = await chromeLauncher.launch({
  chromePath,
  // Never a downloaded browser; nothing but the local server is reachable.
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"],
});
try {
  for (const job of jobs) {
    const performance = job.categories.includes("performance");
    pageFunctions.computeBenchmarkIndex = performance ? benchmark : noBenchmark;
    const result = await lighthouse(job.url, {
      port: chrome.port, output: "json", logLevel: "error", onlyCategories: job.categories,
      // The page's weight is read on every page: counts, not timings, so cheap.
      onlyAudits: WEIGHT_AUDITS,
      disableFullPageScreenshot: true,  // nothing here reads it; it costs seconds per page
      // Without a performance audit nothing is timed: the page is checked once loaded,
      // with none of the pauses that let a load settle before it is measured. The
      // throttling stays "simulate" (the default), which slows no load: any other
      // method makes Lighthouse wait at least 5.25 s after each of four events.
      ...(performance ? {} : {
        skipAboutBlank: true, pauseAfterFcpMs: 0, pauseAfterLoadMs: 0,
        networkQuietThresholdMs: 0, cpuQuietThresholdMs: 0,
      }),
    });
    const lhr = result.lhr;
    const audit = (id) => lhr.audits[id] || {};
    const failing = [];
    for (const category of Object.values(lhr.categories)) {
      for (const ref of category.auditRefs) {
        const a = lhr.audits[ref.id];
        // Weighted audits decide the score; a binary one that fails is named with its items.
        if (ref.weight > 0 && a.score !== null && a.score < 1 && a.scoreDisplayMode === "binary") {
          const items = ((a.details && a.details.items) || []).slice(0, 5).map(
            (item) => (item.node && (item.node.snippet || item.node.selector)) || item.url || "");
          failing.push({ id: ref.id, category: category.id, title: a.title, items });
        }
      }
    }
    const requests = ((audit("network-requests").details || {}).items || []).map((r) => r.url);
    console.log(JSON.stringify({
      url: job.url,
      scores: Object.fromEntries(Object.values(lhr.categories).map((c) => [c.id, c.score])),
      failing,
      runtimeError: lhr.runtimeError ? lhr.runtimeError.message : null,
      metrics: {
        dom_elements: audit("dom-size").numericValue,
        total_bytes: audit("total-byte-weight").numericValue,
        requests,
        ...(performance ? {
          total_blocking_time_ms: audit("total-blocking-time").numericValue,
          largest_contentful_paint_ms: audit("largest-contentful-paint").numericValue,
          style_and_layout_ms: (((audit("mainthread-work-breakdown").details || {}).items || [])
            .find((i) => i.group === "styleLayout") || {}).duration,
        } : {}),
      },
    }));
  }
} finally {
  await chrome.kill();
}
