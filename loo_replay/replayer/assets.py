"""The replay page's stylesheet and script, inlined into every page (no external file).

The script reads the steps from ``#replay-data`` and builds every node with
``createElement``/``textContent``; it never parses log text as HTML.
"""

from __future__ import annotations

PAGE_CSS = """
:root {
  --felt: #1f6b43; --felt-dark: #0f3d25; --rim: #5a3a1f; --ink: #23201a;
  --paper: #f8f4ea; --red: #c0262d; --black: #1c1c1c; --gold: #f2c14e; --bad: #b3202a;
}
* { box-sizing: border-box; }
html, body { margin: 0; }
body {
  background: #1a1d1b; color: var(--ink);
  font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
.noscript { color: #fff; padding: 2em; }
header { color: #f4efe2; padding: 14px 24px 6px; }
header h1 { font: 600 22px/1.2 Georgia, "Times New Roman", serif; margin: 0 0 4px; }
header .facts { color: #c9c2ad; margin: 0; font-size: 14px; }
header .facts span + span::before { content: " · "; color: #7d7766; }
bdi, .name, .id { unicode-bidi: isolate; }
header nav { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 0 0 6px; font-size: 14px; }
header nav a { color: var(--gold); text-decoration: none; overflow-wrap: anywhere; }
header nav a:hover { text-decoration: underline; }
header h1, header .facts { overflow-wrap: anywhere; }
main { display: grid; grid-template-columns: minmax(980px, 1fr) 340px; gap: 18px; padding: 10px 24px 24px; }
.table {
  position: relative; height: 720px; border-radius: 50% / 46%;
  background: radial-gradient(ellipse at 50% 42%, #2e8a57 0%, var(--felt) 45%, var(--felt-dark) 100%);
  border: 16px solid var(--rim);
  box-shadow: inset 0 0 40px rgba(0,0,0,.55), 0 10px 30px rgba(0,0,0,.6), 0 0 0 3px #3b2512;
}
.seat {
  position: absolute; transform: translate(-50%, -50%); width: 250px;
  background: rgba(10, 30, 18, .72); color: #f4efe2; border-radius: 12px;
  padding: 7px 10px 9px; border: 2px solid rgba(255,255,255,.12);
  transition: border-color .15s, box-shadow .15s;
}
.seat.on-turn { border-color: var(--gold); box-shadow: 0 0 0 3px rgba(242,193,78,.35), 0 0 18px rgba(242,193,78,.45); }
.seat.actor { background: rgba(20, 52, 32, .9); }
.seat.offender { border-color: #ff5a5f; box-shadow: 0 0 0 3px rgba(255,90,95,.35); }
.seat.passed .hand, .seat.retired .hand { opacity: .38; filter: grayscale(.6); }
.seat .who { display: flex; align-items: baseline; gap: 6px; overflow: hidden; white-space: nowrap; }
.seat .name { font-weight: 650; overflow: hidden; text-overflow: ellipsis; }
.seat .id { color: #a9c7b3; font-size: 12px; }
.seat .tags { display: flex; flex-wrap: wrap; gap: 4px; margin: 3px 0 6px; min-height: 18px; }
.tag { font-size: 11px; padding: 1px 7px; border-radius: 9px; background: rgba(255,255,255,.14); }
.tag.dealer { background: #e8dcc0; color: #3a2a12; font-weight: 600; }
.tag.turn { background: var(--gold); color: #3a2a12; font-weight: 700; }
.tag.tricks { background: #0b2818; color: var(--gold); }
.tag.out { background: #6d1b1f; }
.hand { display: flex; gap: 4px; min-height: 58px; flex-wrap: wrap; }
.card {
  display: inline-flex; flex-direction: column; align-items: center; justify-content: center;
  width: 40px; height: 56px; border-radius: 6px; background: #fffdf6; border: 1px solid #cfc6b0;
  box-shadow: 0 2px 3px rgba(0,0,0,.35); font-family: Georgia, "Times New Roman", serif;
  line-height: 1; position: relative; transition: transform .12s, opacity .12s;
}
.card .rank { font-size: 17px; font-weight: 700; }
.card .suit { font-size: 19px; margin-top: 2px; }
.card.red { color: var(--red); }
.card.pam::after { content: "Pam"; position: absolute; bottom: -1px; right: 2px; font: 700 8px system-ui; color: #7a5a00; }
.card.black { color: var(--black); }
.card.legal { transform: translateY(-6px); border-color: var(--gold); box-shadow: 0 0 0 2px var(--gold), 0 6px 10px rgba(0,0,0,.4); }
.card.barred { opacity: .45; }
.card.big { width: 54px; height: 76px; }
.card.big .rank { font-size: 22px; }
.card.big .suit { font-size: 26px; }
.none { color: #a9c7b3; font-style: italic; font-size: 13px; align-self: center; }
.centre {
  position: absolute; left: 50%; top: 50%; transform: translate(-50%, -50%);
  width: 400px; text-align: center; color: #f4efe2;
}
.centre h2 { font: 600 16px Georgia, serif; margin: 0 auto 8px; letter-spacing: .02em; width: fit-content; }
.trick { display: flex; flex-wrap: wrap; justify-content: center; gap: 6px; min-height: 100px; }
.play { display: flex; flex-direction: column; align-items: center; gap: 4px; position: relative; }
.play .by { font-size: 12px; color: #d8e6dc; max-width: 70px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.play.winner .card { box-shadow: 0 0 0 3px var(--gold), 0 0 16px rgba(242,193,78,.8); }
.play.dead .card { transform: rotate(-12deg); opacity: .55; }
.play.flagged .card { box-shadow: 0 0 0 3px #ff5a5f, 0 0 16px rgba(255,90,95,.8); }
.play .badge { position: absolute; top: -8px; right: -8px; background: var(--bad); color: #fff; border-radius: 50%; width: 20px; height: 20px; font: 700 13px/20px system-ui; }
.trick-note { min-height: 20px; width: fit-content; margin: 6px auto 0; color: var(--gold); font-weight: 600; font-size: 14px; }
.extras { display: flex; flex-wrap: wrap; justify-content: center; gap: 10px 18px; margin-top: 10px; align-items: flex-end; }
.extra { display: flex; flex-direction: column; align-items: center; gap: 3px; font-size: 12px; color: #d8e6dc; }
.extra .cards { display: flex; gap: 3px; }
.trumps { font: 600 15px Georgia, serif; color: #fff; background: rgba(0,0,0,.28); border-radius: 8px; padding: 4px 10px; }
.trumps .sym.red { color: #ff7b7b; }
aside { background: var(--paper); border-radius: 10px; padding: 14px 16px; box-shadow: 0 6px 20px rgba(0,0,0,.5); display: flex; flex-direction: column; max-height: 752px; }
.controls { display: flex; gap: 6px; }
.controls button {
  flex: 1; font: 600 15px system-ui; padding: 7px 0; border-radius: 7px; cursor: pointer;
  border: 1px solid #b9ad90; background: #fffaf0; color: var(--ink);
}
.controls button:hover:not(:disabled) { background: #f3e6c4; }
.controls button:disabled { opacity: .4; cursor: default; }
.counter { margin: 10px 0 2px; font-size: 13px; color: #6b6353; }
.now { font: 600 16px/1.35 Georgia, serif; margin: 2px 0 8px; min-height: 44px; }
.now .detail { font: 13px/1.4 system-ui, sans-serif; color: #6b6353; margin-top: 2px; }
.now .lost, .settlement .advice { color: #8a5300; font: 13px/1.4 system-ui, sans-serif; margin-top: 3px; }
.play.mistake .card { box-shadow: 0 0 0 3px #e0a100, 0 0 16px rgba(224,161,0,.8); }
.play.mistake .badge { background: #b87800; }
.tag.g { background: #f3d77a; color: #3b2a00; font-weight: 700; }
p.analysis { margin: 4px 0 0; font-size: 13px; }
.now .ev { font: 600 12px system-ui; background: #e7dcc2; border-radius: 6px; padding: 1px 6px; margin-right: 6px; color: #4b3f24; }
.now .red, .log .red, .finding .red, .settlement .red { color: var(--red); }
.trick-note .red { color: #ff9a9a; }
.log li.current .red { color: #ffc4c4; }
.finding { border-left: 5px solid var(--bad); background: #fdecea; border-radius: 6px; padding: 8px 10px; margin-bottom: 8px; }
.finding .code { font-weight: 700; color: var(--bad); }
.finding .msg { margin-top: 3px; font-size: 14px; }
.finding .pen { margin-top: 3px; font-size: 12px; color: #6b2b2b; }
.settlement { background: #fff; border: 1px solid #d9cfb6; border-radius: 8px; padding: 8px 10px; margin-bottom: 8px; }
.settlement h3 { margin: 0 0 6px; font: 600 15px Georgia, serif; }
.settlement table { width: 100%; border-collapse: collapse; font-size: 13px; }
.settlement th, .settlement td { text-align: right; padding: 2px 4px; border-bottom: 1px solid #eee5d0; }
.settlement th:first-child, .settlement td:first-child { text-align: left; }
.settlement .pool { margin-top: 6px; font-weight: 600; }
.settlement .disc { color: #8a5300; font-size: 13px; margin-top: 4px; }
.settlement .note { color: #6b6353; font-size: 12px; margin-top: 3px; }
.log { list-style: none; margin: 6px 0 0; padding: 0; overflow-y: auto; flex: 1; border-top: 1px solid #e2d8c0; font-size: 13px; }
.log li { padding: 3px 6px; border-radius: 5px; cursor: pointer; display: flex; gap: 6px; }
.log li:hover { background: #f1e8d2; }
.log li.current { background: #2e6b47; color: #fff; }
.log li.flag { color: var(--bad); font-weight: 600; }
.log li.current.flag { background: var(--bad); color: #fff; }
.log .ev { color: #8a7f66; min-width: 30px; }
.log li.current .ev { color: #dfe9e2; }
.hint { font-size: 12px; color: #7b725f; margin-top: 6px; }
[hidden] { display: none !important; }
/* Narrower than the table beside the steps: the steps go below the table.  Narrower than
   the oval table needs (980 px) for six seats to clear the trick: the seats in a grid, the
   trick, turn-up and Miss above them, so nothing overlaps down to a 390 px phone. */
@media (max-width: 1385px) {
  main { grid-template-columns: minmax(0, 1fr); }
  aside { max-height: none; }
  .log { max-height: 360px; }
}
@media (max-width: 1027px) {
  header { padding: 12px 12px 4px; }
  main { padding: 8px 10px 18px; gap: 12px; }
  .table {
    height: auto; border-radius: 22px; border-width: 8px; padding: 10px; display: grid; gap: 10px;
    grid-template-columns: repeat(auto-fill, minmax(min(100%, 250px), 1fr));
  }
  .seat { position: static; transform: none; width: auto; min-width: 0; }
  .centre { position: static; transform: none; width: auto; grid-column: 1 / -1; order: -1; }
  .trick { min-height: 0; }
}
@media print {
  body { background: #fff; }
  header { color: var(--ink); }
  header nav { display: none; }
  main { display: block; }
  .table { break-inside: avoid; }
  .controls, .hint { display: none; }
  aside { box-shadow: none; max-height: none; }
  .log { max-height: none; overflow: visible; }
}
"""

PAGE_JS = """
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const steps = data.steps;
  const last = steps.length - 1;
  const RED = new Set(["\\u2665", "\\u2666"]);
  let current = 0;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function card(text, extra) {
    const suit = text.slice(-1);
    const node = el("span", "card " + (RED.has(suit) ? "red" : "black") + (extra ? " " + extra : ""));
    node.dataset.card = text;
    node.title = text;
    if (data.pam && text === "J\\u2663") {
      node.classList.add("pam");
      node.title = text + " (Pam)";
    }
    node.append(el("span", "rank", text.slice(0, -1)), el("span", "suit", suit));
    return node;
  }
  function who(seat) {
    // The name the log gives, else the id.
    return data.seats[seat].name || data.seats[seat].id;
  }
  const byId = {};
  data.seats.forEach(function (seat) { byId[seat.id] = seat.name || seat.id; });
  function named(id) {
    return byId[id] === undefined ? id : byId[id];
  }
  function redCards(node, text) {
    // Text with card names; hearts and diamonds in red, all as text nodes.
    const parts = String(text).split(/((?:10|[2-9AKQJ])[\\u2665\\u2666])/);
    parts.forEach(function (part, i) {
      node.append(i % 2 ? el("span", "red", part) : document.createTextNode(part));
    });
  }

  // -- the page's frame ----------------------------------------------------
  const header = el("header");
  if (data.links) {
    // Back to the session's report, on to the neighbouring deals that have a page.
    const nav = el("nav");
    const go = function (id, href, text, rel) {
      const a = el("a", null, text);
      a.id = id;
      a.href = href;
      if (rel) a.rel = rel;
      nav.append(a);
    };
    if (data.links.session) go("to-session", data.links.session, "\u2190 session " + data.session);
    if (data.links.previous) go("to-previous", data.links.previous[1], "\u2039 deal " + data.links.previous[0], "prev");
    if (data.links.next) go("to-next", data.links.next[1], "deal " + data.links.next[0] + " \u203a", "next");
    header.append(nav);
  }
  const h1 = el("h1", null, "Deal " + data.deal + " \\u00b7 " + data.session);
  const facts = el("p", "facts");
  [data.ruleset, data.venue, data.file].concat(data.facts).forEach(function (f) {
    if (f) facts.append(el("span", null, f));
  });
  header.append(h1, facts);
  if (data.analysis) {
    // The double-dummy analysis: each player's guarantee G at the start of play.
    const advice = el("p", "analysis");
    advice.id = "analysis";
    redCards(advice, "Analysis: " + data.analysis.heading +
      (data.analysis.stopped ? " \u00b7 stops early: " + data.analysis.stopped : ""));
    header.append(advice);
  }

  const main = el("main");
  const table = el("div", "table");
  table.id = "table";
  const aside = el("aside");
  main.append(table, aside);
  document.body.append(header, main);

  const n = data.seats.length;
  const seatBoxes = data.seats.map(function (seat, i) {
    const box = el("div", "seat");
    box.dataset.seat = seat.id;
    const angle = Math.PI / 2 + (((i - data.dealer) % n + n) % n) * 2 * Math.PI / n;
    box.style.left = (50 + 38 * Math.cos(angle)) + "%";
    box.style.top = (50 + 40 * Math.sin(angle)) + "%";
    const line = el("div", "who");
    const name = el("bdi", "name", seat.name || seat.id);
    name.title = seat.name || seat.id;
    line.append(name);
    if (seat.name) line.append(el("span", "id", seat.id));
    box.append(line, el("div", "tags"), el("div", "hand"));
    table.append(box);
    return box;
  });

  const centre = el("div", "centre");
  const trickTitle = el("h2");
  trickTitle.id = "trick-title";
  const trick = el("div", "trick");
  trick.id = "trick";
  const trickNote = el("div", "trick-note");
  trickNote.id = "trick-note";
  const extras = el("div", "extras");
  centre.append(trickTitle, trick, trickNote, extras);
  table.append(centre);

  const controls = el("div", "controls");
  const buttons = {};
  [["first", "\\u00ab First", "First step (Home)"], ["prev", "\\u2039 Back", "Back (\\u2190)"],
   ["next", "Next \\u203a", "Next (\\u2192)"], ["last", "Last \\u00bb", "Last step (End)"]].forEach(function (b) {
    const button = el("button", null, b[1]);
    button.id = b[0];
    button.type = "button";
    button.title = b[2];
    button.setAttribute("aria-label", b[2]);
    controls.append(button);
    buttons[b[0]] = button;
  });
  const counter = el("div", "counter");
  counter.id = "counter";
  const now = el("div", "now");
  now.id = "step-text";
  const finding = el("div", "finding");
  finding.id = "finding";
  const settlement = el("div", "settlement");
  settlement.id = "settlement";
  const log = el("ol", "log");
  log.id = "log";
  const hint = el("div", "hint", "Keys: \\u2190 \\u2192 step, Home/End first/last. Click a line to jump.");
  aside.append(controls, counter, now, finding, settlement, log, hint);

  const logItems = steps.map(function (s, i) {
    const item = el("li");
    if (s.findings.length) item.classList.add("flag");
    item.append(el("span", "ev", s.event === null ? "" : "#" + s.event));
    const text = el("span");
    redCards(text, (s.findings.length ? "\\u26a0 " : "") + s.text + (s.mark && s.mark.lost ? "?" : ""));
    item.append(text);
    item.addEventListener("click", function () { show(i); });
    log.append(item);
    return item;
  });

  // -- one step ------------------------------------------------------------
  function tagsFor(s, seat) {
    const tags = [];
    if (seat === data.dealer) tags.push(["dealer", "dealer"]);
    const decl = s.declarations[seat];
    if (decl === "pass") tags.push(["out", "passed"]);
    else if (decl === "take_miss") tags.push(["", "took the Miss"]);
    else if (decl === "defend") tags.push(["", "defends the pool"]);
    else if (decl === "play") tags.push(["", "plays"]);
    if (s.retired.indexOf(seat) >= 0) tags.push(["out", "retired"]);
    if (s.onTurn === seat) tags.push(["turn", "to play"]);
    if (s.mark && s.seat === seat) {
      const g = s.mark.before + (s.mark.after === s.mark.before ? "" : "\\u2192" + s.mark.after);
      tags.push(["g", "G " + g]);
    }
    if (s.active.indexOf(seat) >= 0) {
      const won = s.tricksWon[seat];
      tags.push(["tricks", won + (won === 1 ? " trick" : " tricks")]);
    }
    return tags;
  }

  function renderSeats(s) {
    const offenders = new Set(s.findings.map(function (f) { return f.player; }));
    seatBoxes.forEach(function (box, seat) {
      box.classList.toggle("on-turn", s.onTurn === seat);
      box.classList.toggle("actor", s.seat === seat);
      box.classList.toggle("passed", s.declarations[seat] === "pass");
      box.classList.toggle("retired", s.retired.indexOf(seat) >= 0);
      box.classList.toggle("offender", offenders.has(data.seats[seat].id));
      const tags = box.children[1];
      tags.replaceChildren();
      tagsFor(s, seat).forEach(function (t) { tags.append(el("span", "tag " + t[0], t[1])); });
      const hand = box.children[2];
      hand.replaceChildren();
      const legal = s.onTurn === seat ? new Set(s.legal) : null;
      s.hands[seat].forEach(function (c) {
        hand.append(card(c, legal ? (legal.has(c) ? "legal" : "barred") : ""));
      });
      if (!s.hands[seat].length) hand.append(el("span", "none", "no cards"));
    });
  }

  function renderTrick(s) {
    trick.replaceChildren();
    trickNote.textContent = "";
    const t = s.trick;
    const flagged = new Set(s.findings.map(function (f) { return f.card; }));
    if (!t) {
      trickTitle.textContent = s.kind === "end" ? "No trick was played" : "No card played yet";
      return;
    }
    trickTitle.textContent = "Trick " + t.number;
    t.plays.forEach(function (p) {
      const slot = el("div", "play");
      slot.dataset.seat = data.seats[p.seat].id;
      slot.dataset.card = p.card;
      if (p.dead) slot.classList.add("dead");
      if (t.winner === p.seat && !p.dead) slot.classList.add("winner");
      const mine = s.kind === "play" && s.seat === p.seat && s.card === p.card;
      if (mine && flagged.has(p.card)) {
        slot.classList.add("flagged");
        slot.append(el("span", "badge", "!"));
      } else if (mine && s.mark && s.mark.lost) {
        slot.classList.add("mistake");
        slot.append(el("span", "badge", "?"));
      }
      slot.append(card(p.card, "big"), el("span", "by", who(p.seat) + (p.dead ? " (dead)" : "")));
      trick.append(slot);
    });
    if (t.winner !== null && t.winner >= 0) {
      redCards(trickNote, who(t.winner) + " wins with " + t.winningCard);
    } else if (t.winner === -1) {
      trickNote.textContent = "nobody wins: all retired";
    }
  }

  function renderExtras(s) {
    extras.replaceChildren();
    const trumps = el("div", "trumps");
    if (s.trump) {
      trumps.append(document.createTextNode("Trumps "));
      trumps.append(el("span", "sym" + (RED.has(s.trump) ? " red" : ""), s.trump));
    } else {
      trumps.textContent = "No trumps yet";
    }
    extras.append(trumps);
    if (s.turned.length) {
      const box = el("div", "extra");
      const cards = el("div", "cards");
      s.turned.forEach(function (c) { cards.append(card(c)); });
      box.append(cards, el("span", null, "turn-up"));
      extras.append(box);
    }
    if (s.miss) {
      const box = el("div", "extra");
      const cards = el("div", "cards");
      s.miss.forEach(function (c) { cards.append(card(c)); });
      box.append(cards, el("span", null, "the Miss"));
      extras.append(box);
    } else if (s.missTaker !== null) {
      extras.append(el("div", "extra", "Miss taken by " + who(s.missTaker)));
    }
  }

  function renderFinding(s) {
    finding.replaceChildren();
    finding.hidden = !s.findings.length;
    s.findings.forEach(function (f) {
      const box = el("div");
      box.dataset.code = f.code;
      box.append(el("div", "code", "\\u26a0 " + f.code + " \\u2014 " + named(f.player)));
      const msg = el("div", "msg");
      redCards(msg, f.message);
      box.append(msg);
      let pen = f.penalty ? "penalty " + f.penalty : "no chips";
      if (!f.penalized) pen += ", not penalised";
      if (f.legal) pen += " \\u00b7 legal: " + (f.legal.join(" ") || "none");
      box.append(el("div", "pen", pen));
      finding.append(box);
    });
  }

  function amountRow(label, pairs) {
    const map = {};
    pairs.forEach(function (p) { map[p[0]] = p[1]; });
    return [label, map];
  }

  function renderSettlement(s) {
    settlement.replaceChildren();
    settlement.hidden = s.kind !== "end";
    if (settlement.hidden) return;
    const st = data.settlement;
    settlement.append(el("h3", null, "Settlement: " + st.outcome));
    if (st.poolStart === null) {
      settlement.append(el("div", "pool", "Pool unknown: continuity was lost, nothing is settled"));
    } else {
      const cols = [amountRow("tricks", st.tricks), amountRow("payout", st.payouts),
        amountRow("looed", st.looed), amountRow("penalty", st.penalties)];
      const tbl = el("table");
      const head = el("tr");
      head.append(el("th", null, "player"));
      cols.forEach(function (c) { head.append(el("th", null, c[0])); });
      tbl.append(head);
      data.clockwise.forEach(function (seat) {
        const id = data.seats[seat].id;
        const row = el("tr");
        row.dataset.player = id;
        row.append(el("td", null, who(seat)));
        cols.forEach(function (c) {
          const cell = el("td", c[0], c[1][id] === undefined ? "\\u2014" : c[1][id]);
          row.append(cell);
        });
        tbl.append(row);
      });
      settlement.append(tbl);
      const pool = el("div", "pool");
      pool.append(document.createTextNode("Pool " + st.poolStart + " at the start \\u2192 "));
      const next = el("span", null, st.poolNext);
      next.id = "pool-next";
      pool.append(next, document.createTextNode(" carried to the next deal"));
      settlement.append(pool);
    }
    st.discrepancies.forEach(function (d) {
      settlement.append(el("div", "disc", "discrepancy: " + d.text));
    });
    st.notes.forEach(function (note) { settlement.append(el("div", "note", "note: " + note)); });
    (data.analysis ? data.analysis.closing : []).forEach(function (c) {
      const line = el("div", "advice");
      redCards(line, c[0] + ": " + c[1]);
      settlement.append(line);
    });
  }

  function show(i) {
    current = Math.max(0, Math.min(last, i));
    const s = steps[current];
    renderSeats(s);
    renderTrick(s);
    renderExtras(s);
    renderFinding(s);
    renderSettlement(s);
    counter.textContent = "Step " + (current + 1) + " of " + steps.length;
    now.replaceChildren();
    if (s.event !== null) now.append(el("span", "ev", "#" + s.event));
    redCards(now, s.text);
    if (s.playedLegal) {
      const legal = el("div", "detail");
      redCards(legal, "held " + s.held.join(" ") + " \\u00b7 legal " + (s.playedLegal.join(" ") || "none"));
      now.append(legal);
    }
    if (s.mark) {
      // G before the card (and after it, when the card lowered it); "?" when it lost a trick.
      const g = el("div", "detail");
      g.id = "guarantee";
      g.textContent = "sure of " + s.mark.before + " trick(s) before this card (G)" +
        (s.mark.after === s.mark.before ? "" : ", " + s.mark.after + " after it");
      now.append(g);
      if (s.mark.lost) {
        const lost = el("div", "lost");
        lost.id = "lost-trick";
        redCards(lost, "? lost trick: " + s.mark.lost);
        now.append(lost);
      }
    }
    logItems.forEach(function (item, k) { item.classList.toggle("current", k === current); });
    const item = logItems[current];
    const top = item.offsetTop - log.offsetTop;
    if (top < log.scrollTop || top + item.offsetHeight > log.scrollTop + log.clientHeight) {
      log.scrollTop = top - log.clientHeight / 2;
    }
    buttons.first.disabled = buttons.prev.disabled = current === 0;
    buttons.next.disabled = buttons.last.disabled = current === last;
    document.body.dataset.step = String(current);
  }

  buttons.first.addEventListener("click", function () { show(0); });
  buttons.prev.addEventListener("click", function () { show(current - 1); });
  buttons.next.addEventListener("click", function () { show(current + 1); });
  buttons.last.addEventListener("click", function () { show(last); });
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const moves = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last };
    if (e.key in moves) {
      e.preventDefault();
      show(moves[e.key]);
    }
  });
  show(0);
})();
"""
