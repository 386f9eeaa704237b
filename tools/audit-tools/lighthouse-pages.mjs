// Lighthouse over a list of pages with one Chromium: `node lighthouse-pages.mjs JOBS.json`.
// JOBS.json: {"chrome": "/usr/bin/chromium", "jobs": [{"url": ..., "categories": [...]}]}.
// Prints one JSON line per job: url, scores per category, the failing audits, and the
// figures tools/audit_pages.py checks on every page (DOM size, bytes, requests made on
// load), with the timings of a performance audit when the job asks for one.
// Called by tools/audit_pages.py, which splits the pages over a few of these processes:
// one Lighthouse run at a time per Chromium, as Lighthouse requires.
import fs from "node:fs";
import lighthouse from "lighthouse";
import * as chromeLauncher from "chrome-launcher";
import puppeteer from "puppeteer-core";
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
// axe-core (the accessibility audit) finds the colours behind a piece of text by asking
// the browser what is painted at its place. A page's sections and code blocks off screen
// are laid out only as the reader nears them (content-visibility: auto, stylesheets/
// extra.css): unpainted, axe would read the footer's colour behind them, and measure a
// link's size against placeholders. Without a performance audit, which must time the page
// as it is, the page is audited with everything laid out, as a reader scrolling sees it.
const LAY_OUT_ALL = () => document.addEventListener("DOMContentLoaded", () => {
  const style = document.createElement("style");
  style.textContent = "* { content-visibility: visible !important; }";
  document.head.append(style);
}, { once: true });  // Material's loader dispatches the event again (sitebuild/page_markup.py)
const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}`, defaultViewport: null });
async function audit(url, categories, timed) {
  pageFunctions.computeBenchmarkIndex = timed ? benchmark : noBenchmark;
  const page = await browser.newPage();
  if (!timed) await page.evaluateOnNewDocument(LAY_OUT_ALL);
  const result = await lighthouse(url, {
    output: "json", logLevel: "error", onlyCategories: categories,
    // The page's weight is read on every page: counts, not timings, so cheap.
    onlyAudits: WEIGHT_AUDITS,
    disableFullPageScreenshot: true,  // nothing here reads it; it costs seconds per page
    // Without a performance audit nothing is timed: the page is checked once loaded,
    // with none of the pauses that let a load settle before it is measured. The
    // throttling stays "simulate" (the default), which slows no load: any other
    // method makes Lighthouse wait at least 5.25 s after each of four events.
    ...(timed ? {} : {
      skipAboutBlank: true, pauseAfterFcpMs: 0, pauseAfterLoadMs: 0,
      networkQuietThresholdMs: 0, cpuQuietThresholdMs: 0,
    }),
  }, undefined, page);
  await page.close();
  return result.lhr;
}
// A fresh Chromium's first performance audit runs slower than the next ones of the same
// page (its own start-up, not the page's): one audit, discarded, warms it up first.
const firstTimed = jobs.find((job) => job.categories.includes("performance"));
try {
  if (firstTimed) await audit(firstTimed.url, ["performance"], true);
  for (const job of jobs) {
    const performance = job.categories.includes("performance");
    const others = job.categories.filter((c) => c !== "performance");
    // A page timed and checked is audited twice: as it loads, then laid out (LAY_OUT_ALL).
    const results = [];
    if (performance) results.push(await audit(job.url, ["performance"], true));
    if (others.length) results.push(await audit(job.url, others, false));
    const lhr = {
      categories: Object.assign({}, ...results.map((r) => r.categories)),
      audits: Object.assign({}, ...results.map((r) => r.audits).reverse()),  // where both ran one, the timed one
      runtimeError: results.map((r) => r.runtimeError).find(Boolean),
    };
    const found = (id) => lhr.audits[id] || {};
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
    const requests = ((found("network-requests").details || {}).items || []).map((r) => r.url);
    console.log(JSON.stringify({
      url: job.url,
      scores: Object.fromEntries(Object.values(lhr.categories).map((c) => [c.id, c.score])),
      failing,
      runtimeError: lhr.runtimeError ? lhr.runtimeError.message : null,
      metrics: {
        dom_elements: found("dom-size").numericValue,
        total_bytes: found("total-byte-weight").numericValue,
        requests,
        ...(performance ? {
          total_blocking_time_ms: found("total-blocking-time").numericValue,
          largest_contentful_paint_ms: found("largest-contentful-paint").numericValue,
          style_and_layout_ms: (((found("mainthread-work-breakdown").details || {}).items || [])
            .find((i) => i.group === "styleLayout") || {}).duration,
        } : {}),
      },
    }));
  }
} finally {
  await browser.disconnect();
  await chrome.kill();
}
