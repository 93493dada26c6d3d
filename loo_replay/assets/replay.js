
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const steps = data.steps;
  const last = steps.length - 1;
  const RED = new Set(["\u2665", "\u2666"]);
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
    if (data.pam && text === "J\u2663") {
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
    const parts = String(text).split(/((?:10|[2-9AKQJ])[\u2665\u2666])/);
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
    if (data.links.session) go("to-session", data.links.session, "← session " + data.session);
    if (data.links.previous) go("to-previous", data.links.previous[1], "‹ deal " + data.links.previous[0], "prev");
    if (data.links.next) go("to-next", data.links.next[1], "deal " + data.links.next[0] + " ›", "next");
    header.append(nav);
  }
  const h1 = el("h1", null, "Deal " + data.deal + " \u00b7 " + data.session);
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
      (data.analysis.stopped ? " · stops early: " + data.analysis.stopped : ""));
    header.append(advice);
  }
  if (data.decisions) {
    // How the decisions were judged (the options' chips over the possible deals), or why not.
    const judgedLine = el("p", "analysis");
    judgedLine.id = "decisions";
    judgedLine.textContent = "Decisions: " + data.decisions;
    header.append(judgedLine);
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

  // Where the deal is worth studying: a finding or an analysis note ("?"), and, once the
  // decisions are judged (the "judgement" hook), a mistake or a blunder.
  const WORTH = {
    finding: function (s) { return s.findings.length > 0 || Boolean(s.mark?.lost); },
    mistake: function (s) { return s.judgement === "mistake" || s.judgement === "blunder"; },
  };
  const views = data.views || [];
  let view = 0;

  const controls = el("div", "controls");
  controls.id = "controls";
  const buttons = {};
  function row(specs) {
    const line = el("div", "buttons");
    specs.forEach(function (b) {
      const button = el("button", null, b[1]);
      button.id = b[0];
      button.type = "button";
      button.title = b[2];
      button.setAttribute("aria-label", b[2]);
      button.setAttribute("aria-keyshortcuts", b[3]);
      line.append(button);
      buttons[b[0]] = button;
    });
    controls.append(line);
    return line;
  }
  row([["first", "\u00ab First", "First step (Home)", "Home"],
       ["prev", "\u2039 Back", "Back (\u2190)", "ArrowLeft"],
       ["next", "Next \u203a", "Next (\u2192)", "ArrowRight"],
       ["last", "Last \u00bb", "Last step (End)", "End"]]);
  row([["prev-finding", "\u2039 finding", "Previous finding (Shift+F)", "Shift+F"],
       ["next-finding", "finding \u203a", "Next finding (F)", "F"],
       ["keys", "? keys", "Keys (?)", "?"]]);
  const judged = row([["prev-mistake", "\u2039 mistake", "Previous mistake or blunder (Shift+M)", "Shift+M"],
                      ["next-mistake", "mistake \u203a", "Next mistake or blunder (M)", "M"],
                      ["view", "view", "Switch the seat view (V)", "V"]]);
  const anyMistake = steps.some(WORTH.mistake);
  buttons["prev-mistake"].hidden = buttons["next-mistake"].hidden = !anyMistake;
  buttons.view.hidden = views.length < 2;
  judged.hidden = !anyMistake && views.length < 2;
  const counter = el("div", "counter");
  counter.id = "counter";
  const now = el("div", "now");
  now.id = "step-text";
  const finding = el("div", "finding");
  finding.id = "finding";
  const decision = el("div", "decision");
  decision.id = "decision";
  const knew = el("div", "knew");
  knew.id = "knew";
  const settlement = el("div", "settlement");
  settlement.id = "settlement";
  const log = el("ol", "log");
  log.id = "log";
  const hint = el("div", "hint", "Keys: \u2190 \u2192 step, F finding" + (anyMistake ? ", M mistake" : "") +
    (views.length > 1 ? ", V seat view" : "") + ", ? every key. Click a line to jump.");
  aside.append(controls, counter, now, finding, decision, knew, settlement, log, hint);

  // On a narrow screen the table's seats stack in a column: the buttons, the step and its
  // finding go right under the trick, so that Next is never a screen away from it.
  const narrow = window.matchMedia("(max-width: 1027px)");
  function placeControls() {
    if (narrow.matches) centre.after(controls, counter, now, finding, decision, knew);
    else aside.prepend(controls, counter, now, finding, decision, knew);
  }
  narrow.addEventListener("change", placeControls);
  placeControls();

  // The keys, on ? (a dialog: Escape or ? closes it, focus returns where it was).
  const KEYS = [["\u2192 / \u2190", "next / previous step"], ["Home / End", "first / last step"],
    ["F / Shift+F", "next / previous finding (a violation or an analysis note)"],
    ["M / Shift+M", "next / previous mistake or blunder (when the decisions are judged)"],
    ["V", "switch the seat view (when the page has views)"], ["?", "show or hide these keys"],
    ["Tab", "move between the buttons and links; Enter or Space presses one"]];
  const help = el("dialog", "keys");
  help.id = "keys-help";
  help.setAttribute("aria-label", "Keys");
  help.append(el("h2", null, "Keys"));
  const keyTable = el("table");
  KEYS.forEach(function (k) {
    const line = el("tr");
    line.append(el("th", null, k[0]), el("td", null, k[1]));
    keyTable.append(line);
  });
  const close = el("button", null, "Close");
  close.type = "button";
  close.addEventListener("click", function () { help.close(); });
  help.append(keyTable, close);
  document.body.append(help);
  function toggleHelp() {
    if (help.open) help.close();
    else help.showModal();
  }

  const logItems = steps.map(function (s, i) {
    const item = el("li");
    if (s.findings.length) item.classList.add("flag");
    if (s.judgement) {
      item.dataset.judgement = s.judgement;
      item.classList.add("judged", s.judgement);
    }
    item.append(el("span", "ev", s.event === null ? "" : "#" + s.event));
    const text = el("span");
    redCards(text, (s.findings.length ? "\u26a0 " : "") + s.text + (s.mark?.lost ? "?" : ""));
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
    if (s.mark && s.seat === seat && known(s)) {
      const g = s.mark.before + (s.mark.after === s.mark.before ? "" : "\u2192" + s.mark.after);
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
      const hidden = viewer() !== null && viewer() !== seat && s.kind !== "end";
      box.classList.toggle("hidden-hand", hidden);
      s.hands[seat].forEach(function (c) {
        if (hidden) hand.append(el("span", "card back"));
        else hand.append(card(c, legal ? (legal.has(c) ? "legal" : "barred") : ""));
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
      } else if (mine && s.mark?.lost && known(s)) {
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
      // Face down in a seat's view: nobody at the table sees the Miss before it is taken.
      const down = viewer() !== null && s.kind !== "end";
      s.miss.forEach(function (c) { cards.append(down ? el("span", "card back") : card(c)); });
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
      box.append(el("div", "code", "\u26a0 " + f.code + " \u2014 " + named(f.player)));
      const msg = el("div", "msg");
      redCards(msg, f.message);
      box.append(msg);
      let pen = f.penalty ? "penalty " + f.penalty : "no chips";
      if (!f.penalized) pen += ", not penalised";
      if (f.legal) pen += " \u00b7 legal: " + (f.legal.join(" ") || "none");
      box.append(el("div", "pen", pen));
      finding.append(box);
    });
  }

  // The judged decision of the step: every option's chips with their standard error, the
  // chosen and the best marked, the loss and its class.  In another seat's view it stays
  // hidden: its options would show the player's hand.
  function renderDecision(s) {
    decision.replaceChildren();
    const d = s.decision;
    decision.hidden = !d;
    if (!d) return;
    decision.dataset.judgement = s.judgement;
    if (!known(s)) {
      decision.append(el("div", "msg", who(d.player) + "\u2019s decision, judged: shown in the open view and in " +
        who(d.player) + "\u2019s"));
      return;
    }
    decision.append(el("h3", null, "Judged: " + who(d.player) + " \u00b7 " + s.judgement));
    const tbl = el("table");
    const head = el("tr");
    ["option", "chips", "\u00b1 se", ""].forEach(function (h) { head.append(el("th", null, h)); });
    tbl.append(head);
    d.options.forEach(function (o) {
      const line = el("tr");
      if (o.chosen) line.classList.add("chosen");
      if (o.best) line.classList.add("best");
      const label = el("td");
      redCards(label, o.label);
      const marks = [o.chosen ? "chosen" : "", o.best ? "best" : ""].filter(Boolean).join(", ");
      line.append(label, el("td", null, o.shown), el("td", null, o.seShown),
        el("td", "mark", marks));
      tbl.append(line);
    });
    decision.append(tbl);
    decision.append(el("div", "loss", "loss " + d.lossShown + " chips" +
      (d.class ? ": " + d.class : "")));
    const msg = el("div", "msg");
    redCards(msg, d.message);
    decision.append(msg);
  }

  // What the viewer knew at this step: their own hand, how many cards each other hand held,
  // the Miss face down, every card played so far, and what the plays revealed of each hand.
  function renderKnew(s) {
    knew.replaceChildren();
    const me = viewer();
    knew.hidden = me === null;
    if (me === null) return;
    knew.append(el("h3", null, "What " + who(me) + " knew"));
    const own = el("div", "line");
    redCards(own, "own hand: " + (s.hands[me].join(" ") || "no cards"));
    knew.append(own);
    const others = data.clockwise.filter(function (seat) { return seat !== me; }).map(function (seat) {
      const held = s.hands[seat].length;
      return who(seat) + " " + held + (held === 1 ? " card" : " cards");
    });
    if (s.miss) others.push("the Miss " + s.miss.length + " cards");
    knew.append(el("div", "line", "face down: " + others.join(" \u00b7 ")));
    const tricks = [];
    for (let i = 1; i <= current; i++) {
      const p = steps[i];
      if (p.kind !== "play" || !p.judged || !p.trick) continue;
      const n = p.trick.number;
      if (!tricks[n]) tricks[n] = [];
      tricks[n].push(who(p.seat) + " " + p.card);
    }
    const played = el("div", "line");
    played.id = "played-so-far";
    const said = tricks.map(function (t, n) { return t ? "trick " + n + ": " + t.join(", ") : ""; })
      .filter(Boolean);
    redCards(played, "played: " + (said.join(" \u00b7 ") || "nothing yet"));
    knew.append(played);
    const facts = (s.revealed || []).filter(function (r) { return r[0] !== me; });
    const list = el("ul", "revealed");
    list.id = "revealed";
    facts.forEach(function (r) {
      const item = el("li");
      item.dataset.seat = data.seats[r[0]].id;
      redCards(item, who(r[0]) + ": " + r[1]);
      list.append(item);
    });
    knew.append(el("div", "line", facts.length ? "revealed by play:" : "revealed by play: nothing yet"));
    if (facts.length) knew.append(list);
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
          const cell = el("td", c[0], c[1][id] === undefined ? "\u2014" : c[1][id]);
          row.append(cell);
        });
        tbl.append(row);
      });
      settlement.append(tbl);
      const pool = el("div", "pool");
      pool.append(document.createTextNode("Pool " + st.poolStart + " at the start \u2192 "));
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

  // The seat whose view is shown (the "views" hook), or null for every hand.
  function viewer() {
    const v = views[view];
    return v && v.seat !== undefined ? v.seat : null;
  }
  // Whether what the step's player held shows in this view: what they held and could play,
  // the analysis of their card (it reads every hand) and their judged options.  In another
  // seat's view these stay hidden until the deal is over.
  function known(s) {
    return viewer() === null || viewer() === s.seat || s.kind === "end";
  }
  function switchView() {
    if (views.length < 2) return;
    view = (view + 1) % views.length;
    buttons.view.textContent = "view: " + views[view].label;
    document.body.dataset.view = String(view);
    show(current);
  }
  if (views.length) buttons.view.textContent = "view: " + views[0].label;

  // The next (step +1) or previous (-1) step worth studying of a kind, if any.
  function seek(kind, step) {
    for (let i = current + step; i >= 0 && i <= last; i += step) {
      if (WORTH[kind](steps[i])) return i;
    }
    return null;
  }
  function jump(kind, step) {
    const i = seek(kind, step);
    if (i !== null) show(i);
  }

  function show(i) {
    current = Math.max(0, Math.min(last, i));
    const s = steps[current];
    renderSeats(s);
    renderTrick(s);
    renderExtras(s);
    renderFinding(s);
    renderDecision(s);
    renderKnew(s);
    renderSettlement(s);
    counter.textContent = "Step " + (current + 1) + " of " + steps.length;
    now.replaceChildren();
    if (s.event !== null) now.append(el("span", "ev", "#" + s.event));
    redCards(now, s.text);
    if (s.playedLegal && known(s)) {
      const legal = el("div", "detail");
      redCards(legal, "held " + s.held.join(" ") + " \u00b7 legal " + (s.playedLegal.join(" ") || "none"));
      now.append(legal);
    }
    if (s.mark && known(s)) {
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
    ["finding", "mistake"].forEach(function (kind) {
      buttons["prev-" + kind].disabled = seek(kind, -1) === null;
      buttons["next-" + kind].disabled = seek(kind, 1) === null;
    });
    document.body.dataset.step = String(current);
  }

  buttons.first.addEventListener("click", function () { show(0); });
  buttons.prev.addEventListener("click", function () { show(current - 1); });
  buttons.next.addEventListener("click", function () { show(current + 1); });
  buttons.last.addEventListener("click", function () { show(last); });
  buttons["prev-finding"].addEventListener("click", function () { jump("finding", -1); });
  buttons["next-finding"].addEventListener("click", function () { jump("finding", 1); });
  buttons["prev-mistake"].addEventListener("click", function () { jump("mistake", -1); });
  buttons["next-mistake"].addEventListener("click", function () { jump("mistake", 1); });
  buttons.view.addEventListener("click", switchView);
  buttons.keys.addEventListener("click", toggleHelp);
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === "?") {
      e.preventDefault();
      toggleHelp();
      return;
    }
    if (help.open) return;  // the dialog's own keys: Tab, Enter, Escape
    const moves = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last };
    const jumps = { f: ["finding", 1], F: ["finding", -1], m: ["mistake", 1], M: ["mistake", -1] };
    if (e.key in moves) {
      e.preventDefault();
      show(moves[e.key]);
    } else if (e.key in jumps) {
      e.preventDefault();
      jump(jumps[e.key][0], jumps[e.key][1]);
    } else if (e.key === "v" || e.key === "V") {
      e.preventDefault();
      switchView();
    }
  });
  // A link to one event (#event-N: the costliest decisions' links) opens at its step.
  function fromHash() {
    const m = /^#event-(\d+)$/.exec(location.hash);
    const i = m ? steps.findIndex(function (s) { return s.event === Number(m[1]); }) : -1;
    show(Math.max(0, i));
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
