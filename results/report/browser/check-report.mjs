// Drives headless Chromium (Debian's, through playwright-core) over a run report's interactive
// charts and prints what it found as JSON: the value the legend shows when the cursor is at a
// given time, whether the other chart's crosshair followed, the x range after a drag, whether a
// legend click hid a series, whether each chart's y-axis title fits and a fault window is shaded,
// and every console message, page error and request that was not for
// the file itself. go test ./results/report (TestInteractiveReport) runs it and judges the JSON.
//
//   node check-report.mjs REPORT.html TIME SERIES
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";

const [file, time, label] = process.argv.slice(2);
const url = pathToFileURL(file).href;
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND"],
});
const out = { console: [], errors: [], requests: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.on("console", (m) => out.console.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => out.errors.push(String(e)));
  page.on("request", (r) => { if (r.url() !== url) out.requests.push(r.url()); });
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => window.overloadsimCharts && window.overloadsimCharts.rates && window.overloadsimCharts.amplification, null, { timeout: 10000 });
  await page.locator("#chart-rates").scrollIntoViewIfNeeded();

  // Each chart's y-axis title fits along its plot (both in canvas pixels), and the first fault
  // window is shaded under the series: the colour just below the top of the rates chart, in the
  // middle of the window.
  out.labels = await page.evaluate(() => Object.entries(window.overloadsimCharts).map(([name, u]) => {
    const ctx = u.ctx;
    ctx.save();
    ctx.font = u.axes[1].labelFont[0];
    const width = ctx.measureText(u.axes[1].label).width;
    ctx.restore();
    return { name, width, room: u.bbox.height };
  }));
  out.band = await page.evaluate(() => {
    const u = window.overloadsimCharts.rates;
    const w = JSON.parse(document.getElementById("chart-data").textContent).charts[0].windows.find((w) => w.end > w.start);
    if (!w) return null;
    const x = Math.round(u.valToPos((w.start + w.end) / 2, "x", true));
    const y = Math.round(u.bbox.top + 0.05 * u.bbox.height);
    return Array.from(u.ctx.getImageData(x, y, 1, 1).data);
  });

  // Hover over the rates chart at the given time.
  const at = await page.evaluate((t) => {
    const u = window.overloadsimCharts.rates;
    const r = u.over.getBoundingClientRect();
    return { x: r.left + u.valToPos(t, "x"), y: r.top + r.height / 2 };
  }, Number(time));
  await page.mouse.move(at.x, at.y);
  await page.waitForTimeout(100);
  out.hover = await page.evaluate((label) => {
    const rows = [...document.querySelectorAll("#chart-rates .u-legend .u-series")];
    const row = rows.find((r) => r.querySelector(".u-label")?.textContent.trim() === label);
    return row ? row.querySelector(".u-value").textContent.trim() : null;
  }, label);
  out.hoverTime = await page.evaluate(() => document.querySelector("#chart-rates .u-legend .u-series .u-value").textContent.trim());
  out.synced = await page.evaluate(() => {
    const c = window.overloadsimCharts;
    return c.rates.cursor.idx != null && c.rates.cursor.idx === c.amplification.cursor.idx;
  });

  // Drag across the middle third of the rates chart: a zoom into that time range.
  const box = await page.evaluate(() => {
    const u = window.overloadsimCharts.rates;
    const r = u.over.getBoundingClientRect();
    return { left: r.left, top: r.top, width: r.width, height: r.height, min: u.scales.x.min, max: u.scales.x.max };
  });
  out.before = [box.min, box.max];
  await page.mouse.move(box.left + box.width / 3, box.top + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.left + (2 * box.width) / 3, box.top + box.height / 2, { steps: 8 });
  await page.mouse.up();
  await page.waitForTimeout(100);
  out.after = await page.evaluate(() => [window.overloadsimCharts.rates.scales.x.min, window.overloadsimCharts.rates.scales.x.max]);
  out.afterOther = await page.evaluate(() => [window.overloadsimCharts.amplification.scales.x.min, window.overloadsimCharts.amplification.scales.x.max]);

  // Click a series in the legend: it is hidden.
  await page.locator("#chart-rates .u-legend .u-series", { hasText: label }).first().click();
  out.shown = await page.evaluate((label) => window.overloadsimCharts.rates.series.find((s) => s.label === label).show, label);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
