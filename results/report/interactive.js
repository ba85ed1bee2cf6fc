// The interactive charts of a run report (uPlot): hover shows every series' value at the
// interval under the cursor, drag selects a time range to zoom into (double-click zooms out),
// a click on a series in the legend hides or shows it, and the crosshair is shared by both
// charts. Each value holds for the interval that ends at its time: the lines are steps.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("chart-data").textContent);
  var sync = uPlot.sync("overloadsim-run");
  var charts = {};
  function make(chart, title, ylabel) {
    var el = document.getElementById("chart-" + chart);
    var picked = data.series.filter(function (s) { return s.chart === chart; });
    var width = Math.max(480, Math.min(el.clientWidth || 900, 1100));
    var opts = {
      title: title,
      width: width,
      height: chart === "rates" ? 320 : 200,
      cursor: { sync: { key: sync.key }, drag: { x: true, y: false } },
      scales: { x: { time: false } },
      axes: [{ label: "time (s)" }, { label: ylabel }],
      series: [{ label: "time (s)", value: function (u, v) { return v == null ? "–" : v.toFixed(3) + " s"; } }].concat(picked.map(function (s) {
        return {
          label: s.label, stroke: s.color, width: 1.75,
          paths: uPlot.paths.stepped({ align: -1 }),
          value: function (u, v) { return v == null ? "–" : (chart === "rates" ? v.toFixed(1) + "/s" : v.toFixed(3)); },
        };
      })),
    };
    var cols = [data.x].concat(picked.map(function (s) { return s.y; }));
    charts[chart] = new uPlot(opts, cols, el);
  }
  make("rates", "All client groups: rates per second", "per second");
  make("amplification", "Retry amplification: attempts ÷ operations", "attempts per operation");
  // For tests and the curious: the charts, by name.
  window.overloadsimCharts = charts;
})();
