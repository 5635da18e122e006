// Opens demo-report.html in Debian's headless chromium (driven by playwright-core) and checks that its
// tables and SVG charts render with the recorded run's figures: visible text, non-zero sizes, and bar
// widths in the ratio of the figures they draw. expected.json comes from make_fixture.py.
//
// Usage: node report_browser_test.mjs PLAYWRIGHT_CORE_DIR PAGE.html EXPECTED.json SCREENSHOT.png
// Exit 0 when every check passes; 1 with each failed check listed.
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [playwrightDir, page, expectedFile, screenshot] = process.argv.slice(2);
const { chromium } = createRequire(join(resolve(playwrightDir), "noop.js"))("playwright-core");
const expected = JSON.parse(readFileSync(expectedFile, "utf8"));
const failures = [];
const check = (ok, what) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
};

// a fresh profile each run: nothing cached, no state from an earlier test
const profile = mkdtempSync(join(tmpdir(), "danki-report-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
  viewport: { width: 1000, height: 800 },
  timeout: 60_000,
});
try {
  const tab = await context.newPage();
  const requests = [];
  tab.on("request", (r) => { if (!r.url().startsWith("file:")) requests.push(r.url()); });
  await tab.goto(pathToFileURL(resolve(page)).href, { waitUntil: "load", timeout: 30_000 });

  const seen = await tab.evaluate(() => {
    const box = (el) => { const r = el.getBoundingClientRect(); return { w: r.width, h: r.height }; };
    const visible = (el) => { const s = getComputedStyle(el); const b = box(el); return s.visibility !== "hidden" && s.display !== "none" && b.w > 0 && b.h > 0; };
    const sections = {};
    for (const h2 of document.querySelectorAll("h2")) {
      let el = h2.nextElementSibling;
      while (el && el.tagName !== "H2" && !el.querySelector?.("table") && el.tagName !== "TABLE") el = el.nextElementSibling;
      const table = el && (el.tagName === "TABLE" ? el : el.querySelector("table"));
      if (table && el.tagName !== "H2") sections[h2.textContent] = { text: table.innerText, visible: visible(table), rows: table.rows.length, ...box(table) };
    }
    const svgs = [...document.querySelectorAll("svg")].map((svg) => ({
      title: svg.getAttribute("aria-label") || "",
      visible: visible(svg),
      ...box(svg),
      marks: [...svg.querySelectorAll("rect, circle, polyline")].filter((m) => { const b = box(m); return b.w > 0 && b.h > 0; }).length,
      bars: [...svg.querySelectorAll("rect")].map((r) => ({ w: r.getBoundingClientRect().width, label: r.nextElementSibling?.textContent || "" })),
    }));
    return { sections, svgs, verdict: document.querySelector(".verdict")?.innerText || "", verdictVisible: visible(document.querySelector(".verdict")) };
  });

  check(seen.verdictVisible && seen.verdict.includes(expected.verdict), `verdict shows "${expected.verdict}"`);
  for (const [heading, texts] of Object.entries(expected.tables)) {
    const table = seen.sections[heading];
    check(table && table.visible && table.rows > 1, `table under "${heading}" is visible with rows (${table ? `${table.rows} rows, ${Math.round(table.w)}x${Math.round(table.h)} px` : "missing"})`);
    const missing = texts.filter((t) => !table || !table.text.includes(t));
    check(missing.length === 0, `table under "${heading}" shows ${texts.length} figures${missing.length ? `; missing: ${missing.join(", ")}` : ""}`);
  }
  check(seen.svgs.length === expected.svgs, `${expected.svgs} SVG charts (found ${seen.svgs.length})`);
  for (const svg of seen.svgs) {
    check(svg.visible && svg.w > 300 && svg.h > 50 && svg.marks > 2, `chart "${svg.title.slice(0, 60)}" drawn: ${Math.round(svg.w)}x${Math.round(svg.h)} px, ${svg.marks} marks`);
  }
  for (const [title, [small, large]] of Object.entries(expected.bars)) {
    const svg = seen.svgs.find((s) => s.title.startsWith(title));
    const a = svg?.bars.find((b) => b.label === small);
    const b = svg?.bars.find((b) => b.label === large);
    const want = parseFloat(large.replace(/,/g, "")) / parseFloat(small.replace(/,/g, ""));
    const got = a && b ? b.w / a.w : NaN;
    check(Math.abs(got / want - 1) < 0.05, `"${title}": bar "${large}" is ${got.toFixed(1)}x bar "${small}" (figures: ${want.toFixed(1)}x)`);
  }
  check(requests.length === 0, `the page fetched nothing from the network (${requests.length} requests)`);
  if (screenshot) await tab.screenshot({ path: screenshot, fullPage: true });
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(failures.length ? `report browser test: ${failures.length} checks FAILED` : "report browser test: all checks passed");
process.exit(failures.length ? 1 : 0);
