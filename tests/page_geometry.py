"""What a page looks like in the browser, measured: text over text, sideways scrolls, distances.

Scripts for Playwright's ``page.evaluate``, shared by the browser tests of the pages (and of
anything else that draws them).  A text box is a line of HTML text (a ``Range``'s client
rectangle, so two words of one cell never count) or an SVG ``<text>`` (Plotly's titles, tick
labels, legends and notes) as the rotated rectangle it is on screen: slanted tick labels
side by side are apart even when their upright bounding boxes meet.
"""

from __future__ import annotations

# Pairs of text boxes that cover one another by more than a pixel, as "what / what" strings.
TEXT_OVERLAPS_JS = """() => {
  const boxes = [];
  const seen = new Map();
  const visible = (el) => {
    if (!seen.has(el)) {
      seen.set(el, el.checkVisibility({opacityProperty: true, visibilityProperty: true}));
    }
    return seen.get(el);
  };
  const name = (el, text) => {
    const id = el.id ? "#" + el.id : "";
    const cls = typeof el.className === "string" && el.className ? "." + el.className.split(" ")[0] : "";
    return el.tagName.toLowerCase() + id + cls + " '" + text.trim().slice(0, 30) + "'";
  };
  const clips = new Map();
  const clipOf = (el) => {
    if (!el || el === document.body) return {left: -1e9, right: 1e9, top: -1e9, bottom: 1e9};
    if (!clips.has(el)) {
      const outer = clipOf(el.parentElement), s = getComputedStyle(el);
      let c = outer;
      if (s.overflowX !== "visible" || s.overflowY !== "visible") {
        const r = el.getBoundingClientRect();
        c = {left: Math.max(outer.left, r.left), right: Math.min(outer.right, r.right),
             top: Math.max(outer.top, r.top), bottom: Math.min(outer.bottom, r.bottom)};
      }
      clips.set(el, c);
    }
    return clips.get(el);
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.textContent.trim() || parent.closest("svg, script, style, noscript, dialog:not([open])")) continue;
    if (!visible(parent)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const clip = clipOf(parent);
    for (const line of range.getClientRects()) {
      // What a scrolling box (the replay's log) hides of its lines is not on screen.
      const r = {left: Math.max(line.left, clip.left), right: Math.min(line.right, clip.right),
                 top: Math.max(line.top, clip.top), bottom: Math.min(line.bottom, clip.bottom)};
      if (r.right - r.left < 1 || r.bottom - r.top < 1) continue;
      boxes.push({what: name(parent, node.textContent), owner: node,
        points: [[r.left, r.top], [r.right, r.top], [r.right, r.bottom], [r.left, r.bottom]]});
    }
  }
  document.querySelectorAll("svg text").forEach((el) => {
    if (!el.textContent.trim() || !visible(el)) return;
    const b = el.getBBox(), m = el.getScreenCTM();
    if (!m || b.width < 1 || b.height < 1) return;
    const at = (x, y) => { const p = new DOMPoint(x, y).matrixTransform(m); return [p.x, p.y]; };
    boxes.push({what: name(el, el.textContent), owner: el, points: [
      at(b.x, b.y), at(b.x + b.width, b.y), at(b.x + b.width, b.y + b.height), at(b.x, b.y + b.height)]});
  });
  // Separating axes: two convex boxes are apart when, along some edge's normal, their
  // projections are more than a pixel short of overlapping.
  const apart = (p, q) => {
    for (const poly of [p, q]) for (let i = 0; i < 4; i++) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
      const len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const nx = (y1 - y2) / len, ny = (x2 - x1) / len;
      const span = (pts) => pts.map(([x, y]) => x * nx + y * ny);
      const a = span(p), c = span(q);
      if (Math.min(Math.max(...a), Math.max(...c)) - Math.max(Math.min(...a), Math.min(...c)) <= 1) return true;
    }
    return false;
  };
  boxes.forEach((b) => { b.left = Math.min(...b.points.map((p) => p[0])); b.right = Math.max(...b.points.map((p) => p[0])); });
  boxes.sort((a, b) => a.left - b.left);
  const out = [];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length && boxes[j].left < boxes[i].right - 1; j++) {
      if (boxes[i].owner === boxes[j].owner) continue;
      if (!apart(boxes[i].points, boxes[j].points)) out.push(boxes[i].what + " / " + boxes[j].what);
    }
  }
  return out;
}"""

# Figure texts (titles, tick labels, legends) that reach outside their figure: cut off.
CUT_TEXT_JS = """() => Array.from(document.querySelectorAll(".figure svg text")).filter((t) => {
  const r = t.getBoundingClientRect(), f = t.closest(".figure").getBoundingClientRect();
  return t.textContent.trim() && r.width > 0 && (r.left < f.left - 1 || r.right > f.right + 1);
}).map((t) => t.textContent)"""

# Elements that scroll sideways inside the page (a table wider than its panel), and whether
# the page itself is wider than the window.
SIDEWAYS_JS = """() => {
  const inner = [];
  document.querySelectorAll("body *").forEach((el) => {
    const s = getComputedStyle(el).overflowX;
    if ((s === "auto" || s === "scroll") && el.scrollWidth > el.clientWidth + 1) {
      inner.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + el.className);
    }
  });
  return {page: document.documentElement.scrollWidth, inner: inner};
}"""

# Boxes that scroll up and down and hide rows (a table in a fixed-height box).
HIDDEN_ROWS_JS = """() => Array.from(document.querySelectorAll("table")).filter((t) => {
  for (let e = t.parentElement; e && e !== document.body; e = e.parentElement) {
    const s = getComputedStyle(e).overflowY;
    if ((s === "auto" || s === "scroll" || s === "hidden") && e.scrollHeight > e.clientHeight + 1) return true;
  }
  return false;
}).length"""


def span_js(first: str, second: str) -> str:
    """A script: the height, in CSS pixels, from the higher top of ``first`` and ``second``
    to the lower bottom (a window at least as tall shows both at once)."""
    return (
        f"() => {{ const a = document.querySelector({first!r}).getBoundingClientRect(),"
        f" b = document.querySelector({second!r}).getBoundingClientRect();"
        " return Math.max(a.bottom, b.bottom) - Math.min(a.top, b.top); }"
    )
