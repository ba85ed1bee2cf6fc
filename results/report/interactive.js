// The interactive charts of a run report (uPlot): hover shows every series' value at the
// interval under the cursor, drag selects a time range to zoom into (double-click zooms out),
// a click on a series in the legend hides or shows it, and the crosshair is shared by the
// charts. Each value holds for the interval that ends at its time: the lines are steps. What a
// chart shows — its title, axis labels, height, shaded windows and reference lines — comes with
// the data (chart.Run.Charts); this file only draws it.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("chart-data").textContent);
  var sync = uPlot.sync("overloadsim-run");
  var charts = {};
  var rowHeight = 200; // pixels for a chart of weight 1

  // bands shades the chart's windows under its series, as the run figures do.
  function bands(c) {
    return function (u) {
      var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
      ctx.save();
      c.windows.forEach(function (w) {
        var x0 = u.valToPos(w.start, "x", true), x1 = u.valToPos(w.end, "x", true);
        if (w.end > w.start) {
          ctx.fillStyle = w.fill;
          ctx.fillRect(x0, top, x1 - x0, h);
        } else {
          ctx.strokeStyle = w.edge;
          ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
          ctx.beginPath();
          ctx.moveTo(x0, top);
          ctx.lineTo(x0, top + h);
          ctx.stroke();
        }
      });
      ctx.restore();
    };
  }

  // overlay draws the reference lines and the windows' labels over the series.
  function overlay(c) {
    return function (u) {
      var ctx = u.ctx, px = devicePixelRatio;
      ctx.save();
      ctx.font = 11 * px + "px sans-serif";
      c.refs.forEach(function (r) {
        var y = u.valToPos(r.y, "y", true);
        if (y < u.bbox.top || y > u.bbox.top + u.bbox.height) { return; }
        ctx.strokeStyle = r.color;
        ctx.lineWidth = 1.5 * px;
        ctx.setLineDash([2 * px, 3 * px]);
        ctx.beginPath();
        ctx.moveTo(u.bbox.left, y);
        ctx.lineTo(u.bbox.left + u.bbox.width, y);
        ctx.stroke();
        if (r.label) { // written on the line, at its right end, on a white ground
          ctx.textAlign = "right";
          ctx.textBaseline = "bottom";
          var w = ctx.measureText(r.label).width, x = u.bbox.left + u.bbox.width - 4 * px;
          ctx.fillStyle = "rgba(255,255,255,0.85)";
          ctx.fillRect(x - w - 2 * px, y - 14 * px, w + 4 * px, 13 * px);
          ctx.fillStyle = r.color;
          ctx.fillText(r.label, x, y - 2 * px);
        }
      });
      ctx.setLineDash([]);
      ctx.textBaseline = "top";
      ctx.textAlign = "left"; // uPlot leaves the y axis's right alignment set
      c.windows.forEach(function (w) {
        if (!w.label) { return; }
        var x = u.valToPos(w.start, "x", true);
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) { return; }
        ctx.fillStyle = w.edge;
        ctx.fillText(w.label, x + 3 * px, u.bbox.top + 3 * px);
      });
      ctx.restore();
    };
  }

  function make(c) {
    var el = document.getElementById("chart-" + c.name);
    var picked = data.series.filter(function (s) { return s.chart === c.name; });
    var width = Math.max(480, Math.min(el.clientWidth || 900, 1100));
    var rates = c.name === "rates";
    var opts = {
      title: c.title,
      width: width,
      height: Math.round(rowHeight * c.weight),
      cursor: { sync: { key: sync.key }, drag: { x: true, y: false } },
      // The y range covers the reference lines too (the configured ceiling above a goodput that
      // never reaches it), from 0.
      scales: { x: { time: false }, y: { range: function (u, lo, hi) {
        c.refs.forEach(function (r) { hi = Math.max(hi == null ? r.y : hi, r.y); lo = Math.min(lo == null ? r.y : lo, r.y); });
        return uPlot.rangeNum(Math.min(0, lo == null ? 0 : lo), hi == null ? 1 : hi, 0.1, true);
      } } },
      // A y axis wide enough for its tick labels and its title beside them.
      axes: [{ label: c.xLabel }, { label: c.yLabel, size: 60, labelSize: 20 }],
      hooks: { drawAxes: [bands(c)], draw: [overlay(c)] },
      series: [{ label: c.xLabel, value: function (u, v) { return v == null ? "–" : v.toFixed(3) + " s"; } }].concat(picked.map(function (s) {
        return {
          label: s.label, stroke: s.color, width: s.width, dash: s.dash,
          paths: uPlot.paths.stepped({ align: -1 }),
          value: function (u, v) { return v == null ? "–" : (rates ? v.toFixed(1) + "/s" : v.toFixed(3)); },
        };
      })),
    };
    var cols = [data.x].concat(picked.map(function (s) { return s.y; }));
    charts[c.name] = new uPlot(opts, cols, el);
  }
  data.charts.forEach(make);
  // For tests and the curious: the charts, by name.
  window.overloadsimCharts = charts;
})();
