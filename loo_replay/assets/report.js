
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
