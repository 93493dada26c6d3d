"""The style sheet and script every report page shares, written once beside the pages.

They are files, not inline, so the pages' Content Security Policy can allow
scripts from the report's own folder only (``script-src 'self'``): text from
a log that slipped into the markup still could not run.
"""

from __future__ import annotations

REPORT_CSS = """
:root {
  --felt: #1f4d3a; --felt-dark: #163a2b; --paper: #f6f3ea; --card: #ffffff;
  --ink: #22302a; --muted: #5f6f66; --line: #e3ddcf; --accent: #c0392b;
  --warn: #b7791f; --good: #2f7d4f; --shadow: 0 1px 2px rgba(20,40,30,.08), 0 4px 14px rgba(20,40,30,.06);
}
* { box-sizing: border-box; }
html { background: var(--paper); }
body {
  margin: 0; color: var(--ink); background: var(--paper);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
a { color: #1d5fa0; text-decoration: none; }
a:hover { text-decoration: underline; }
.masthead {
  background: linear-gradient(135deg, var(--felt) 0%, var(--felt-dark) 100%);
  color: #f4f1e6; padding: 18px 32px 22px; border-bottom: 4px solid #c9a227;
}
.masthead nav { font-size: 13px; opacity: .9; margin-bottom: 6px; }
.masthead nav a { color: #f4e7b5; margin-right: 14px; }
.masthead h1 { margin: 2px 0 10px; font-size: 26px; font-weight: 650; letter-spacing: .2px;
  overflow-wrap: anywhere; }
.masthead .kicker { text-transform: uppercase; font-size: 11px; letter-spacing: 1.5px; color: #c9d8cf; }
.facts { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 0; }
.facts div { min-width: 0; }
.facts dt { font-size: 11px; text-transform: uppercase; letter-spacing: 1px; color: #b8cbbf; }
.facts dd { margin: 0; font-size: 15px; overflow-wrap: anywhere; }
.masthead .muted { color: #a9c0b3; font-style: italic; }
main { max-width: 1280px; margin: 0 auto; padding: 22px 28px 40px; }
.tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 12px;
  margin-bottom: 18px; }
.tile { background: var(--card); border-radius: 10px; padding: 12px 14px; box-shadow: var(--shadow);
  border-top: 3px solid var(--line); }
.tile .n { font-size: 24px; font-weight: 650; font-variant-numeric: tabular-nums;
  overflow-wrap: anywhere; }
.tile .what { color: var(--muted); font-size: 12px; }
.tile.bad { border-top-color: var(--accent); }
.tile.bad .n { color: var(--accent); }
.tile.warn { border-top-color: var(--warn); }
.tile.warn .n { color: var(--warn); }
.tile.good { border-top-color: var(--good); }
.panel { background: var(--card); border-radius: 12px; box-shadow: var(--shadow); padding: 14px 18px;
  margin-bottom: 18px; min-width: 0; }
.panel h2 { font-size: 16px; margin: 2px 0 10px; font-weight: 650; }
.panel p.lead { margin: -4px 0 10px; color: var(--muted); }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }
.grid2 > .panel { margin-bottom: 0; }
.grid2 { margin-bottom: 18px; }
@media (max-width: 1000px) { .grid2 { grid-template-columns: 1fr; } }
.figure { width: 100%; min-height: 150px; }
.notice { background: #fff7e0; border: 1px solid #ecd9a0; border-radius: 8px; padding: 10px 14px;
  margin-bottom: 18px; color: #6b5310; }
.wide { overflow-x: auto; }
.scroll { max-height: 520px; overflow: auto; border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 6px 10px; text-align: left; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f1ede2; font-weight: 600; font-size: 12px; color: #46554d; position: sticky; top: 0;
  z-index: 1; }
td.num, th.num { text-align: right; }
td.nowrap, th { white-space: nowrap; }
td.player { white-space: nowrap; }
tbody tr:hover { background: #faf8f2; }
tr.violation td:first-child { box-shadow: inset 3px 0 0 var(--accent); }
tr.discrepancy td:first-child { box-shadow: inset 3px 0 0 var(--warn); }
tr.rejected { color: var(--muted); background: #f7f5f0; }
tr.rejected td:first-child { box-shadow: inset 3px 0 0 #8d8d8d; }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 6px;
  vertical-align: 0; }
.code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px;
  background: #f3efe6; border-radius: 4px; padding: 1px 5px; white-space: nowrap; }
.code.revoke { background: #f3e6f7; color: #5b2a78; }
.red { color: #c0392b; }
.muted { color: var(--muted); }
.msg { max-width: 560px; }
.pill { display: inline-block; border-radius: 999px; padding: 1px 8px; font-size: 12px; background: #eef3ef; }
.pill.bad { background: #fbe9e7; color: #a3281d; }
.pill.warn { background: #fdf3dc; color: #8a5a00; }
footer { max-width: 1280px; margin: 0 auto; padding: 0 28px 30px; color: var(--muted); font-size: 12px; }
@media (max-width: 600px) {
  .masthead { padding: 14px 14px 16px; }
  .masthead h1 { font-size: 21px; }
  main { padding: 14px 10px 30px; }
  footer { padding: 0 10px 24px; }
  .panel { padding: 10px 10px; }
  .tiles { grid-template-columns: repeat(auto-fill, minmax(112px, 1fr)); gap: 8px; }
  .tile .n { font-size: 19px; }
}
/* On paper every table is whole: no scroll box cuts it, its head repeats on each page. */
@media print {
  html, body { background: #fff; }
  .masthead { background: none; color: var(--ink); border-bottom: 2px solid var(--ink); padding: 0 0 8px; }
  .masthead nav, noscript { display: none; }
  .masthead .kicker, .facts dt, .masthead .muted { color: var(--muted); }
  main, footer { max-width: none; padding: 8px 0; }
  .panel, .tile { box-shadow: none; border: 1px solid var(--line); }
  .scroll, .wide { max-height: none; overflow: visible; border: 0; }
  th { position: static; }
  thead { display: table-header-group; }
  tr, .figure, .tile { break-inside: avoid; }
  .grid2 { grid-template-columns: 1fr; }
  td.nowrap, td.player, th { white-space: normal; }
}
"""

REPORT_JS = """
(function () {
  "use strict";
  var figures = Array.prototype.slice.call(document.querySelectorAll("div.figure[data-figure]"));
  if (typeof Plotly === "undefined") {
    figures.forEach(function (div) {
      div.textContent = "plotly.min.js did not load: keep it beside this page to see the figure.";
    });
    document.body.setAttribute("data-plotted", "failed");
    return;
  }
  var config = {displaylogo: false, responsive: true,
                modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"]};
  // Panels side by side (the loo figure's three) are stacked on a narrow screen, each
  // full width, its subtitle above it: side by side they would crowd each other's labels.
  function stack(layout, width) {
    var axes = Object.keys(layout).filter(function (k) { return /^xaxis[0-9]*$/.test(k); }).sort();
    if (width >= 600 || axes.length < 2) return;
    var gap = 0.16, share = (1 - gap * (axes.length - 1)) / axes.length;
    var notes = (layout.annotations || []).filter(function (a) {
      return a.xref === "paper" && a.yref === "paper" && a.yanchor === "bottom";
    });
    axes.forEach(function (name, k) {
      var top = 1 - k * (share + gap);
      layout[name].domain = [0, 1];
      layout["yaxis" + name.slice(5)].domain = [top - share, top];
      if (notes[k]) { notes[k].x = 0.5; notes[k].y = top; }
    });
    layout.height = 330 * axes.length;
  }
  var done = figures.map(function (div) {
    var spec = JSON.parse(document.getElementById(div.id + "-data").textContent);
    stack(spec.layout, div.clientWidth);
    return Plotly.newPlot(div, spec.data, spec.layout, config);
  });
  Promise.all(done).then(function () {
    document.body.setAttribute("data-plotted", "yes");
  }, function (error) {
    document.body.setAttribute("data-plotted", "failed");
    console.error(error);
  });
})();
"""
