
(function () {
  "use strict";
  // A table wider than its panel is stacked (report.css, table.stacked), checked each time
  // the window changes, since a panel's width is known only here.
  // Each cell is labelled with its column's name (data-label, shown by report.css) the
  // first time its table is stacked: here, not in the page, which stays as small as a
  // table of 100,000 deals can be.
  var tables = Array.prototype.slice.call(document.querySelectorAll("table.stackable"));
  function label(table) {
    if (table.dataset.labelled) return;
    var names = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) { return th.textContent; });
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      Array.prototype.forEach.call(row.cells, function (cell, i) { cell.dataset.label = names[i] || ""; });
    });
    table.dataset.labelled = "yes";
  }
  // The narrowest a table can be laid out as a table, measured once (at width 0 a table
  // takes its least width): laying out a table of 10,000 rows again at every resize, only
  // to measure it, took seconds.
  function least(table) {
    if (!table.dataset.least) {
      table.style.width = "0";
      table.dataset.least = String(table.scrollWidth);
      table.style.width = "";
    }
    return Number(table.dataset.least);
  }
  function fitTables() {
    tables.forEach(least);
    tables.forEach(function (table) {
      var wide = least(table) > table.parentElement.clientWidth + 1;
      if (wide) label(table);
      table.classList.toggle("stacked", wide);
    });
  }
  fitTables();
  var refits = [fitTables], resized = null;
  window.addEventListener("resize", function () {
    clearTimeout(resized);
    resized = setTimeout(function () { refits.forEach(function (refit) { refit(); }); }, 150);
  });
  window.addEventListener("beforeprint", fitTables);
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
    var gap = 0.2, share = (1 - gap * (axes.length - 1)) / axes.length;
    var notes = (layout.annotations || []).filter(function (a) {
      return a.xref === "paper" && a.yref === "paper" && a.yanchor === "bottom";
    });
    axes.forEach(function (name, k) {
      var top = 1 - k * (share + gap);
      layout[name].domain = [0, 1];
      layout["yaxis" + name.slice(5)].domain = [top - share, top];
      if (notes[k]) { notes[k].x = 0.5; notes[k].y = top; }
    });
    layout.height = 360 * axes.length;
  }
  // plotly.js does not wrap a title: one wider than the figure is broken into lines at
  // spaces, the top margin grown to hold them.
  function wrap(text, per) {
    var lines = [];
    text.split("<br>").forEach(function (given) {
      var line = "";
      given.split(" ").forEach(function (word) {
        if (line && (line + " " + word).length > per) {
          lines.push(line);
          line = word;
        } else {
          line = line ? line + " " + word : word;
        }
      });
      lines.push(line);
    });
    return lines;
  }
  function wrapTitle(layout, width) {
    var title = layout.title;
    if (!title?.text) return;
    var lines = wrap(title.text, Math.max(16, Math.floor((width - 30) / 9)));
    // A figure with nothing to draw says why in a note across it: wrapped the same way.
    (layout.annotations || []).forEach(function (note) {
      if (note.xref !== "paper" || note.x !== 0.5) return;
      var said = wrap(note.text, Math.max(16, Math.floor((width - 30) / 8)));
      note.text = said.join("<br>");
      layout.height += 18 * Math.max(0, said.length - 2);
    });
    if (lines.length < 2) return;
    title.text = lines.join("<br>");
    title.yref = "container";
    title.y = 1;
    title.yanchor = "top";
    title.pad = {t: 12};
    layout.margin.t += 20 * (lines.length - 1);
    layout.height += 20 * (lines.length - 1);
  }
  // Names on a category axis (the fairness tests) longer than half the figure's width are
  // cut with an ellipsis, whole in the hover, so that the plot keeps room beside them.
  function shortenNames(spec, width) {
    var budget = Math.max(12, Math.floor(width * 0.5 / 7));
    spec.data.forEach(function (trace) {
      var name = "yaxis" + (trace.yaxis || "y").slice(1);
      var values = Array.isArray(trace.y) ? trace.y : [];
      var axis = spec.layout[name];
      if (!axis || axis.tickvals || !values.some(function (v) { return typeof v === "string" && v.length > budget; })) return;
      var names = values.filter(function (v, i) { return typeof v === "string" && values.indexOf(v) === i; });
      axis.tickvals = names;
      axis.ticktext = names.map(function (v) {
        return v.length > budget ? v.slice(0, budget - 1).replace(/&[^;]*$/, "") + "\u2026" : v;
      });
    });
  }
  function box(el) { return el.getBoundingClientRect(); }
  // Text of the figure other than the legend's (tick labels, axis titles, notes) that the
  // legend covers; the legend then moves below the lowest of it (the margin grows with it),
  // measured after drawing since only the browser knows how deep slanted labels reach.
  function clearLegend(div) {
    var legend = div.querySelector(".legend");
    if (!legend) return null;
    var area = box(legend), deepest = area.top;
    div.querySelectorAll(".main-svg text").forEach(function (text) {
      if (legend.contains(text) || !text.textContent.trim()) return;
      var r = box(text);
      if (r.bottom > area.top && r.top < area.bottom && r.right > area.left && r.left < area.right) {
        deepest = Math.max(deepest, r.bottom);
      }
    });
    if (deepest <= area.top) return null;
    var shift = deepest - area.top + 6, layout = div.layout;
    if (layout.legend.yref === "container") {
      return Plotly.relayout(div, {"margin.b": layout.margin.b + shift, height: layout.height + shift});
    }
    var plot = box(div.querySelector(".nsewdrag"));
    return Plotly.relayout(div, {"legend.y": layout.legend.y - shift / plot.height,
                                 height: layout.height + shift});
  }
  // Tick labels of an axis that run into each other: upright first, then every second
  // (third...) label only, until they stand apart.
  function clearTicks(div) {
    var update = {};
    Object.keys(div.layout).filter(function (k) { return /^xaxis[0-9]*$/.test(k); }).forEach(function (name) {
      var texts = Array.prototype.filter.call(div.querySelectorAll(".x" + name.slice(5) + "tick text"),
        function (t) { return t.textContent.trim(); });
      var rects = texts.map(box).sort(function (a, b) { return a.left - b.left; });
      var axis = div.layout[name];
      // Slanted labels side by side are apart when the step between them, across their
      // slant, is at least a line of text; upright ones when their boxes are.
      var turned = texts.length ? /rotate\((-?[0-9.]+)/.exec(texts[0].getAttribute("transform") || "") : null;
      var slant = turned ? Math.abs(Math.sin(Number(turned[1]) * Math.PI / 180)) : 0;
      var line = texts.length ? texts[0].getBBox().height : 0;
      var crowded = rects.some(function (r, i) {
        if (!i) return false;
        var p = rects[i - 1];
        if (slant > 0.05 && slant < 0.999) return ((r.left + r.right) - (p.left + p.right)) / 2 * slant < line - 1;
        return r.left < p.right - 1 && r.top < p.bottom - 1 && p.top < r.bottom - 1;
      });
      if (!crowded) return;
      if (!turned || Math.abs(Number(turned[1])) !== 90) {
        update[name + ".tickangle"] = -90;
      } else {
        update[name + ".tickmode"] = "linear";
        update[name + ".tick0"] = 0;
        update[name + ".dtick"] = (axis.dtick || 1) + 1;
      }
    });
    return Object.keys(update).length ? Plotly.relayout(div, update) : null;
  }
  // Names beside points (the funnel's players) that would cover another text are left to
  // the hover, the first of the data kept first; again after every redraw.
  function clearPointLabels(div) {
    var kept = Array.prototype.filter.call(div.querySelectorAll(".main-svg text"), function (t) {
      return !t.closest(".textpoint");
    }).map(box);
    div.querySelectorAll(".textpoint text").forEach(function (text) {
      text.style.display = "";
      var r = box(text);
      var covers = kept.some(function (k) {
        return r.left < k.right - 1 && k.left < r.right - 1 && r.top < k.bottom - 1 && k.top < r.bottom - 1;
      });
      if (covers) text.style.display = "none";
      else kept.push(r);
    });
  }
  function settle(div, rounds) {
    var moved = rounds ? clearTicks(div) || clearLegend(div) : null;
    return moved ? moved.then(function () { return settle(div, rounds - 1); }) : div;
  }
  // A figure is drawn for the width it has: drawn again from its spec when that changes by
  // a tenth or more (a phone turned), since the wrapping and thinning above depend on it.
  function draw(div) {
    var spec = JSON.parse(document.getElementById(div.id + "-data").textContent);
    var width = div.clientWidth;
    div.dataset.width = String(width);
    stack(spec.layout, width);
    wrapTitle(spec.layout, width);
    shortenNames(spec, width);
    return Plotly.react(div, spec.data, spec.layout, config).then(function () {
      if (!div.dataset.watched) {
        div.on("plotly_afterplot", function () { clearPointLabels(div); });
        div.dataset.watched = "yes";
      }
      clearPointLabels(div);
      return settle(div, 6);
    });
  }
  function drawn(promises) {
    return Promise.all(promises).then(function () {
      document.body.setAttribute("data-plotted", "yes");
    }, function (error) {
      document.body.setAttribute("data-plotted", "failed");
      console.error(error);
    });
  }
  drawn(figures.map(draw));
  refits.push(function () {
    var changed = figures.filter(function (div) {
      return Math.abs(div.clientWidth - Number(div.dataset.width)) >= div.clientWidth / 10;
    });
    if (!changed.length) return;
    document.body.setAttribute("data-plotted", "redrawing");
    drawn(changed.map(draw));
  });
})();
