// Wizard Scorekeeper: the table phone goes on when the server cannot be reached.
// Loaded by app.js on the table screen only. When a save fails for want of a network (or
// takes over 8 s), the round goes on here with the same steps, checked against the offline
// plan the rules module computed (/games/<id>/offline): this script only looks things up in
// it (hand sizes, dealers, bid order, forbidden bids, points) and adds up what it looked up.
// Rounds saved here are kept in localStorage, shown "not sent yet", and sent once each, in
// order, when the server answers again; the server checks every one of them again.
(function () {
  "use strict";
  if (window.scorekeeperOffline) return;
  window.scorekeeperOffline = true;

  var PLAN = "scorekeeper-plan-", KEPT = "scorekeeper-kept-";
  var PROBE_MS = 2000, SEND_MS = 8000;
  var data = null;     // the offline plan with names, totals and words (from the server)
  var book = null;     // {rounds: [kept rounds], current: round being entered, edit: number}
  var panel = null, sending = false, probeTimer = null, gameId = null;
  var online = false;  // the server answered since the phone went offline

  function tableEl() { return document.getElementById("table"); }
  function read(key) {
    try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }
  // Whether it was written (storage full, or turned off).
  function write(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); return true; } catch (e) { return false; }
  }
  function forget(key) {
    try { localStorage.removeItem(key); } catch (e) { /* storage turned off */ }
  }
  // Only the plan of the game open here is kept: the others' would fill the storage.
  function forgetOtherPlans() {
    try {
      for (var i = localStorage.length - 1; i >= 0; i--) {
        var key = localStorage.key(i);
        if (key && key.indexOf(PLAN) === 0 && key !== PLAN + gameId) localStorage.removeItem(key);
      }
    } catch (e) { /* storage turned off */ }
  }
  function savePlan() {
    forgetOtherPlans();
    write(PLAN + gameId, data);
  }
  function fill(text, values) {
    return String(text).replace(/\{(\w+)\}/g, function (all, name) {
      return values[name] === undefined ? all : values[name];
    });
  }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      var value = attrs[name];
      if (value === null || value === undefined || value === false) return;
      if (name === "text") node.textContent = value;
      else if (name === "on") node.addEventListener("click", value);
      else node.setAttribute(name, value === true ? "" : value);
    });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }
  function newKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return btoa(String.fromCharCode.apply(null, bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  // --- The plan: fetched once per round (its tag changes with the round, dealer, totals). ---
  var planMissed = false;  // the plan could not be fetched: the server may be gone
  function loadPlan(table) {
    gameId = table.dataset.game;
    planMissed = false;
    var cached = read(PLAN + gameId);
    if (cached && cached.tag === table.dataset.offlineTag) {
      data = cached;
      return Promise.resolve(data);
    }
    if (!data && cached) data = cached;  // better an older plan than none if this fails
    return fetch(table.dataset.offline, { credentials: "same-origin" }).then(function (answer) {
      if (!answer.ok) throw new Error(answer.status);
      return answer.json();
    }).then(function (fresh) {
      data = fresh;
      savePlan();
      return fresh;
    }).catch(function () { planMissed = true; return data; });
  }
  function loadBook() {
    book = read(KEPT + gameId) || { rounds: [], current: null, edit: null };
  }
  var storageFull = false;  // the kept rounds could not be written: said in the banner
  function saveBook() {
    if (!book.rounds.length && !book.current) { forget(KEPT + gameId); storageFull = false; return; }
    var kept = write(KEPT + gameId, book);
    if (!kept) {
      // Make room (the cached plan is fetched again when it can be) and try once more.
      forgetOtherPlans();
      forget(PLAN + gameId);
      kept = write(KEPT + gameId, book);
    }
    storageFull = !kept;
  }
  function planRound(number) {
    var rounds = (data && data.plan.rounds) || [];
    for (var i = 0; i < rounds.length; i++) if (rounds[i].n === number) return rounds[i];
    return null;
  }
  function playOrder(p) { return p.play || p.order; }

  // --- Adding up what the plan says: points by bid and tricks, totals, ranks. ---
  function roundPoints(p, kept) {
    return kept.tricks.map(function (took, seat) {
      var bid = kept.bids[seat];
      if (bid === null || bid === undefined) return data.plan.dealer_points;
      return data.plan.points[bid][took];
    });
  }
  function totalsBefore(number) {
    var totals = data.totals.slice();
    book.rounds.forEach(function (kept) {
      if (kept.n >= number) return;
      kept.points.forEach(function (points, seat) { totals[seat] += points; });
    });
    return totals;
  }
  function forbiddenBid(p, bids, totals) {
    if (!p.forbid) return null;
    var last = p.order[p.order.length - 1], sum = 0;
    for (var i = 0; i < p.order.length - 1; i++) {
      var earlier = bids[p.order[i]];
      if (earlier === null || earlier === undefined) return null;
      sum += earlier;
    }
    if (p.leader) {
      var alone = totals.filter(function (t) { return t >= totals[last]; }).length === 1;
      if (!alone) return null;
    }
    var value = sum < p.forbid.length ? p.forbid[sum] : null;
    return value === null ? null : { seat: last, value: value };
  }

  // --- Going offline: the round goes on in a panel standing in for the server's screen. ---
  function startRound(number, table) {
    var p = planRound(number);
    if (!p) return null;
    var current = { n: number, trump: null, bids: Array(data.names.length).fill(null), tricks: Array(data.names.length).fill(null) };
    if (p.auto) current.trump = p.trump[0][0] + ":" + (p.trump[0][1][0] || "");
    if (data.plan.jester_bid) p.order.forEach(function (seat) { current.bids[seat] = 0; });
    if (table && String(number) === table.dataset.round) {
      // What the server's round already holds: the trump and the bids made before the drop.
      if (table.dataset.trump) current.trump = table.dataset.trump;
      (table.dataset.bids || "").split(",").forEach(function (value, seat) {
        if (value !== "") current.bids[seat] = parseInt(value, 10);
      });
      // The tricks already tapped on the screen that could not be saved: not to be tapped again.
      table.querySelectorAll("form.tricks-form input[type=radio]:checked").forEach(function (input) {
        var seat = /^tricks_(\d+)$/.exec(input.name);
        if (seat) current.tricks[parseInt(seat[1], 10)] = parseInt(input.value, 10);
      });
    }
    return current;
  }
  // The round to enter next: after the rounds kept here; else the round being played, as the
  // freshest of the screen and the plan knows it (a page the service worker kept may be older
  // than the plan, fetched again every round).
  function nextNumber() {
    if (book.rounds.length) return book.rounds[book.rounds.length - 1].n + 1;
    var shown = parseInt(tableEl().dataset.round, 10);
    var planned = data.plan.rounds && data.plan.rounds.length ? data.plan.rounds[0].n : shown;
    return isNaN(shown) ? planned : Math.max(shown, planned);
  }

  function goOffline(bookRead) {
    var table = tableEl();
    if (!table || !table.dataset.offline) return;
    if (!bookRead) loadBook();
    if (!data || data.game !== parseInt(gameId, 10) || data.plan.unavailable) return;
    dropUnplanned();
    if (!panel) online = false;  // until the server answers again
    if (!book.current && !book.edit) book.current = startRound(nextNumber(), table);
    saveBook();
    show();
    probe();
  }

  var banner = null, body = null, live = null;
  var drawn = null;   // what the panel's body was last drawn from: drawn again only on a change
  var alerts = {};    // the conflict boxes (role=alert) by kept round and what they say
  function show() {
    var table = tableEl();
    if (!table) return;
    if (!panel || !document.body.contains(panel)) {
      // The banner stays while the rest is drawn again: a screen reader hears it when it
      // changes, not at every tap.
      // Live regions go into the page empty and are filled after: a screen reader then
      // hears what they say (and the same nodes stay across every drawing).
      banner = el("div", { class: "offline-banner", role: "status" }, [el("p"), el("p", { class: "waiting-count", hidden: true })]);
      live = el("p", { class: "visually-hidden", "aria-live": "polite" });
      body = el("div");
      panel = el("section", { id: "offline-table", class: "table-screen offline" }, [banner, live, body]);
      table.parentNode.insertBefore(panel, table.nextSibling);
      drawn = null;
      alerts = {};
      table.hidden = true;
      var box = document.getElementById("net-status");
      if (box) box.hidden = true;
      setTimeout(render, 50);
      return;
    }
    table.hidden = true;
    // The panel's banner says it all: not the "not saved, tap again" box of app.js.
    var box = document.getElementById("net-status");
    if (box) box.hidden = true;
    render();
  }
  function leave() {
    if (panel) panel.remove();
    panel = null;
    var table = tableEl();
    if (table) table.hidden = false;
  }

  // --- Drawing the panel. ---
  // Whatever goes wrong while drawing, the page is never left blank: the server's screen
  // comes back (the kept rounds stay in storage and are still sent).
  function render() {
    if (!panel) return;
    try { draw(); } catch (error) {
      if (window.console) console.error(error);
      leave();
    }
  }
  function draw() {
    var focusName = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focus : null;
    var t = data.text;
    var waiting = book.rounds.length;
    var blocked = book.rounds.some(function (k) { return k.status !== "waiting"; });
    var said = sending ? t.sending : blocked ? t.blocked : online ? t.back : t.offline;
    var count = waiting ? t.waiting[Math.min(waiting, t.waiting.length) - 1] : "";
    if (banner.firstChild.textContent !== said) banner.firstChild.textContent = said;
    var countLine = banner.querySelector(".waiting-count");
    if (countLine.textContent !== count) countLine.textContent = count;
    countLine.hidden = !waiting;
    var warning = banner.querySelector(".storage-full");
    if (storageFull && !warning) banner.appendChild(el("p", { class: "field-error storage-full", text: t.storage_full }));
    if (!storageFull && warning) warning.remove();
    // A probe that fails again, another tab writing the same: nothing to draw again (focus
    // and a tap in progress stay where they are).
    var state = JSON.stringify([book, storageFull, data.totals, data.version]);
    if (state === drawn && body.firstChild) return;
    drawn = state;
    body.textContent = "";
    var panelBody = body;
    var shown = {};
    book.rounds.forEach(function (kept) {
      if (kept.status !== "conflict" && kept.status !== "refused") return;
      var said = JSON.stringify([kept.key, kept.status, kept.server, kept.problems]);
      shown[said] = alerts[said] || conflictView(kept);
      panelBody.appendChild(shown[said]);
    });
    alerts = shown;
    var view = book.edit ? editView(book.edit) : book.current ? roundView(book.current) : null;
    if (view) panelBody.appendChild(view);
    else if (!data.plan.unavailable && !planRound(nextNumber())) panelBody.appendChild(el("p", { class: "notice", text: t.game_over }));
    panelBody.appendChild(standingsView());
    if (waiting) panelBody.appendChild(keptList());
    var countdown = body.querySelector(".tricks-form .countdown");
    var heard = countdown ? countdown.textContent : "";
    if (live.textContent !== heard) live.textContent = heard;
    // Focus follows the round as on the server's screen, but is never pulled away from
    // somewhere else on the page.
    var active = document.activeElement;
    var table = tableEl();
    if (active && active !== document.body && !panel.contains(active) && !(table && table.contains(active))) return;
    var again = focusName && panel.querySelector('[data-focus="' + focusName + '"]');
    var next = again || nextControl();
    if (next && document.activeElement !== next) next.focus({ preventScroll: true });
  }

  // As on the server's screen: the next bidder's buttons, the first player without tricks
  // (then Save), the trump buttons.
  function nextControl() {
    var found = body.querySelector(".bid-button:not(:disabled), .trump-form button");
    if (found) return found;
    var groups = body.querySelectorAll(".tricks-form .chips");
    for (var i = 0; i < groups.length; i++) {
      if (!groups[i].querySelector("input:checked")) return groups[i].querySelector("input");
    }
    return body.querySelector(".save-row button.primary:not(:disabled)");
  }

  function head(p, current) {
    var t = data.text, names = data.names;
    var first = playOrder(p)[0];
    var facts = [
      el("span", {}, [fill(t.dealer, { name: "" }), el("strong", { text: names[p.dealer] })]),
      el("span", {}, [fill(t.leads, { name: "" }), el("strong", { text: names[first] })])
    ];
    if (current.trump) facts.push(el("span", {}, [fill(t.trump, { trump: "" }), el("strong", { class: "trump", text: trumpText(current.trump) })]));
    return el("header", { class: "round-head" }, [
      el("h1", {}, [p.title + " ", el("span", { class: "hand", text: p.cards_label })]),
      el("p", { class: "round-facts" }, facts)
    ]);
  }
  function trumpText(value) {
    var parts = value.split(":"), suit = data.text.suits[parts[1]];
    var cause = parts[0] === "suit" || parts[0] === "fixed" ? "" : " (" + data.text.causes[parts[0]] + ")";
    return (suit ? suit.join(" ") : data.text.no_trump) + cause;
  }

  function roundView(current) {
    var p = planRound(current.n), t = data.text;
    if (!p) return null;
    var box = el("div", {}, [head(p, current)]);
    if (!current.trump) box.appendChild(trumpStep(current, p));
    else if (bidderDue(current, p) !== null) box.appendChild(bidStep(current, p));
    else box.appendChild(tricksStep(current, p));
    return box;
  }
  function bidderDue(current, p) {
    for (var i = 0; i < p.order.length; i++) if (current.bids[p.order[i]] === null) return p.order[i];
    return null;
  }

  function trumpStep(current, p) {
    var t = data.text;
    var form = el("div", { class: "trump-form" });
    p.trump.forEach(function (option) {
      var cause = option[0], suits = option[1];
      if (suits.length > 1) {
        var row = el("div", { class: "suits" });
        suits.forEach(function (suit) {
          var shown = t.suits[suit];
          row.appendChild(el("button", { type: "button", class: "suit suit-" + suit, on: function () { setTrump(current, cause + ":" + suit); } }, [
            el("span", { class: "sym", "aria-hidden": "true", text: shown[0] }), " ", el("span", { class: "suit-name", text: shown[1] })
          ]));
        });
        form.appendChild(el("fieldset", { class: "trump-row" }, [el("legend", { text: t.causes[cause] }), row]));
      } else {
        form.appendChild(el("button", { type: "button", class: "wide", text: t.causes[cause] + " → " + t.no_trump, on: function () { setTrump(current, cause + ":"); } }));
      }
    });
    return el("section", { class: "step" }, [el("h2", { text: t.trump_question }), form]);
  }
  function setTrump(current, value) {
    current.trump = value;
    saveBook();
    render();
  }

  function bidStep(current, p) {
    var t = data.text, names = data.names, seat = bidderDue(current, p);
    var last = p.order[p.order.length - 1];
    var list = el("ol", { class: "bid-list" });
    p.order.forEach(function (s) {
      var bid = current.bids[s];
      list.appendChild(el("li", { class: s === seat ? "current" : (bid !== null ? "done" : null) }, [
        el("span", { class: "who", text: names[s] }),
        el("span", { class: "num", text: bid !== null ? String(bid) : (s === seat ? "…" : "") })
      ]));
    });
    var forbidden = forbiddenBid(p, current.bids, totalsBefore(current.n));
    var pad = el("div", { class: "bid-buttons", role: "group", "aria-labelledby": "offline-bid-prompt" });
    for (var value = 0; value <= p.cards; value++) (function (value) {
      var banned = forbidden && forbidden.seat === seat && forbidden.value === value;
      pad.appendChild(el("button", {
        type: "button", class: "bid-button" + (banned ? " forbidden" : ""), disabled: banned,
        "aria-describedby": banned ? "offline-forbidden" : null, text: String(value),
        on: function () { current.bids[seat] = value; saveBook(); render(); }
      }));
    })(value);
    var section = el("section", { class: "step" }, [el("h2", { text: t.bids }), list,
      el("p", { class: "prompt", id: "offline-bid-prompt" }, [el("strong", { text: names[seat] }), " " + t.bids_verb,
        seat === last ? el("span", { class: "muted", text: " (" + t.last + ")" }) : null])]);
    if (forbidden && forbidden.seat === seat) {
      var sum = p.cards - forbidden.value;
      section.appendChild(el("p", { class: "forbidden-reason", id: "offline-forbidden", text: fill(t.forbidden, { name: names[seat], value: forbidden.value, cards: p.cards, sum: sum }) }));
    }
    section.appendChild(pad);
    var made = p.order.filter(function (s) { return current.bids[s] !== null; });
    if (made.length && !data.plan.jester_bid) {
      section.appendChild(el("button", { type: "button", class: "quiet", text: t.take_back, on: function () {
        current.bids[made[made.length - 1]] = null; saveBook(); render();
      } }));
    }
    return section;
  }

  function chipsRow(name, top, selected, label, onPick) {
    var row = el("div", { class: "chips", role: "radiogroup", "aria-label": label });
    for (var value = 0; value <= top; value++) (function (value) {
      var input = el("input", { type: "radio", name: name, value: String(value), "data-focus": name + "-" + value });
      input.checked = selected === value;
      input.addEventListener("change", function () { onPick(value); });
      row.appendChild(el("label", { class: "chip" }, [input, el("span", { text: String(value) })]));
    })(value);
    return row;
  }

  function tricksLeft(p, tricks) {
    var given = 0;
    tricks.forEach(function (v) { if (v !== null) given += v; });
    return p.tricks - given;
  }
  function pickTricks(current, p, seat, value) {
    current.tricks[seat] = value;
    if (current.filled === seat) current.filled = null;
    var open = playOrder(p).filter(function (s) { return current.tricks[s] === null; });
    var left = tricksLeft(p, current.tricks);
    if (open.length === 1 && left >= 0 && left <= p.cards) {
      current.tricks[open[0]] = left;  // the last player is filled in, as on the server's screen
      current.filled = open[0];
    }
    saveBook();
    render();
  }

  function tricksStep(current, p) {
    var t = data.text, names = data.names;
    var form = el("div", { class: "tricks-form" + (p.cards >= 8 ? " dense" : "") });
    var none = current.tricks.every(function (v) { return v === null; });
    var bidSum = 0;
    p.order.forEach(function (s) { bidSum += current.bids[s] || 0; });
    if (none && bidSum === p.tricks) {
      form.appendChild(el("button", { type: "button", class: "wide all-made", text: t.all_made, on: function () {
        current.tricks = current.bids.map(function (b) { return b === null ? 0 : b; });
        keepRound(current, p);
      } }));
    }
    playOrder(p).forEach(function (seat) {
      var bid = current.bids[seat];
      form.appendChild(el("fieldset", { class: "player-row" }, [
        el("legend", {}, [names[seat] + " ", el("span", { class: "muted", text: bid === null ? t.no_bid : fill(t.bid_of, { bid: bid }) })]),
        chipsRow("kept-tricks-" + seat, p.cards, current.tricks[seat], names[seat], function (v) { pickTricks(current, p, seat, v); })
      ]));
    });
    var left = tricksLeft(p, current.tricks);
    var complete = current.tricks.every(function (v, seat) { return v !== null || playOrder(p).indexOf(seat) < 0; });
    form.appendChild(el("div", { class: "save-row sticky-save" }, [
      el("p", { class: "countdown" + (left < 0 ? " over" : "") + (left === 0 && complete ? " done" : "") }, [
        el("span", { text: (left < 0 ? t.over : t.left) + " " }), el("span", { class: "num", text: String(Math.abs(left)) })
      ]),
      el("button", { type: "button", class: "primary", disabled: !(complete && left === 0), text: t.save, on: function () { keepRound(current, p); } })
    ]));
    var section = el("section", { class: "step" }, [el("h2", { text: t.tricks }), form]);
    if (!data.plan.jester_bid) {
      section.appendChild(el("button", { type: "button", class: "quiet", text: t.take_back, on: function () {
        var made = p.order.filter(function (s) { return current.bids[s] !== null; });
        current.bids[made[made.length - 1]] = null;
        current.tricks = current.tricks.map(function () { return null; });
        saveBook(); render();
      } }));
    }
    return section;
  }

  // A round saved here: kept with its own request key, the next round starts at once.
  function keepRound(current, p) {
    // Dealer and hand size go with the round: a re-send after a reload must be the very same
    // request, whatever round the plan fetched since starts at.
    var kept = { n: current.n, key: newKey(), dealer: p.dealer, cards: p.cards, trump: current.trump, bids: current.bids.slice(), tricks: current.tricks.slice(), status: "waiting" };
    kept.points = roundPoints(p, kept);
    book.rounds.push(kept);
    book.current = planRound(current.n + 1) ? startRound(current.n + 1, null) : null;
    saveBook();
    render();
    send();
  }

  // --- Correcting or taking back a round that waits. ---
  function editView(number) {
    var kept = book.rounds.filter(function (k) { return k.n === number; })[0];
    var p = planRound(number), t = data.text, names = data.names;
    if (!kept || !p) { book.edit = null; return el("div"); }
    var draft = book.draft || (book.draft = { trump: kept.trump, bids: kept.bids.slice(), tricks: kept.tricks.slice() });
    var box = el("section", { class: "step edit-kept" }, [el("h2", { text: fill(t.correct, { number: number }) })]);
    p.order.forEach(function (seat) {
      box.appendChild(el("fieldset", { class: "player-row" }, [el("legend", { text: names[seat] + " · " + t.bids }),
        chipsRow("edit-bid-" + seat, p.cards, draft.bids[seat], names[seat], function (v) { draft.bids[seat] = v; render(); })]));
    });
    var forbidden = forbiddenBid(p, draft.bids, totalsBefore(number));
    var bad = forbidden && draft.bids[forbidden.seat] === forbidden.value;
    if (bad) box.appendChild(el("p", { class: "field-error", text: fill(t.forbidden, { name: names[forbidden.seat], value: forbidden.value, cards: p.cards }) }));
    playOrder(p).forEach(function (seat) {
      box.appendChild(el("fieldset", { class: "player-row" }, [el("legend", { text: names[seat] + " · " + t.tricks }),
        chipsRow("edit-tricks-" + seat, p.cards, draft.tricks[seat], names[seat], function (v) { draft.tricks[seat] = v; render(); })]));
    });
    var left = tricksLeft(p, draft.tricks);
    box.appendChild(el("div", { class: "save-row" }, [
      el("p", { class: "countdown" + (left < 0 ? " over" : ""), text: (left < 0 ? t.over : t.left) + " " + Math.abs(left) }),
      el("button", { type: "button", class: "primary", disabled: bad || left !== 0, text: t.save, on: function () {
        kept.bids = draft.bids; kept.tricks = draft.tricks; kept.points = roundPoints(p, kept);
        kept.key = newKey();  // other values: a new request, never mistaken for a re-send
        kept.status = "waiting"; delete kept.server; delete kept.problems;
        book.edit = null; book.draft = null;
        saveBook(); render(); send();
      } })
    ]));
    return box;
  }

  function keptList() {
    var t = data.text;
    var list = el("ul", { class: "kept-rounds" });
    book.rounds.forEach(function (kept, index) {
      var isLast = index === book.rounds.length - 1;
      list.appendChild(el("li", {}, [
        el("span", { text: fill(t.round, { number: kept.n }) + " · " + trumpText(kept.trump) }),
        el("span", { class: "not-sent", text: t.not_sent }),
        el("button", { type: "button", class: "quiet", text: fill(t.correct, { number: kept.n }), on: function () { book.edit = kept.n; book.draft = null; saveBook(); render(); } }),
        isLast && !book.edit ? el("button", { type: "button", class: "quiet", text: t.undo, on: function () { undoKept(); } }) : null
      ]));
    });
    return el("section", { class: "kept" }, [list]);
  }
  function undoKept() {
    var kept = book.rounds.pop();
    // Like the server's Undo: the round comes back as it was before Save, its tricks chosen.
    book.current = { n: kept.n, trump: kept.trump, bids: kept.bids, tricks: kept.tricks };
    saveBook();
    render();
  }

  // --- Standings with the rounds kept here. ---
  function standingsView() {
    var t = data.text, names = data.names;
    var totals = totalsBefore(Infinity);
    var ranks = totals.map(function (total) { return 1 + totals.filter(function (o) { return o > total; }).length; });
    var seats = names.map(function (n, s) { return s; }).sort(function (a, b) { return ranks[a] - ranks[b] || a - b; });
    var lastKept = book.rounds[book.rounds.length - 1];
    var body = el("tbody");
    seats.forEach(function (seat) {
      body.appendChild(el("tr", {}, [
        el("td", { class: "num", text: String(ranks[seat]) }),
        el("th", { scope: "row", text: names[seat] }),
        lastKept ? el("td", { class: "num last", text: (lastKept.points[seat] > 0 ? "+" : "") + lastKept.points[seat] }) : null,
        el("td", { class: "num total", text: String(totals[seat]) })
      ]));
    });
    var headRow = el("tr", {}, [el("th", { scope: "col", text: "#" }), el("th", { scope: "col", text: t.player }),
      lastKept ? el("th", { scope: "col", class: "num", text: fill(t.round, { number: lastKept.n }) }) : null,
      el("th", { scope: "col", class: "num", text: t.total })]);
    var table = el("table", {}, [el("thead", {}, [headRow]), body]);
    return el("section", { class: "standings" + (book.rounds.length ? " unsent" : "") }, [table]);
  }

  // --- A kept round the server refused: both versions side by side, the table chooses. ---
  function conflictView(kept) {
    var t = data.text, names = data.names, server = kept.server;
    var box = el("section", { class: "conflict", role: "alert" });
    var said = kept.status !== "conflict" ? t.refused : server && !server.scored ? t.conflict_open : t.conflict;
    box.appendChild(el("p", {}, [el("strong", { text: fill(said, { number: kept.n }) })]));
    (kept.problems || []).forEach(function (text) { box.appendChild(el("p", { class: "field-error", text: text })); });
    var cols = [el("th", { scope: "col", text: t.player }), el("th", { scope: "col", class: "num", text: t.ours })];
    if (server) cols.push(el("th", { scope: "col", class: "num", text: t.theirs }));
    var body = el("tbody");
    function cell(bids, tricks, points, seat) {
      var bid = bids[seat], took = tricks ? tricks[seat] : null;
      var text = (bid === null ? "–" : bid) + " / " + (took === null || took === undefined ? "–" : took);
      if (points) text += " (" + (points[seat] > 0 ? "+" : "") + points[seat] + ")";
      return el("td", { class: "num", text: text });
    }
    names.forEach(function (name, seat) {
      var row = el("tr", {}, [el("th", { scope: "row", text: name }), cell(kept.bids, kept.tricks, kept.points, seat)]);
      if (server) row.appendChild(cell(server.bids, server.tricks, server.points, seat));
      body.appendChild(row);
    });
    var trumpRow = el("tr", {}, [el("th", { scope: "row", text: t.trump.replace("{trump}", "").replace(/[:\s]+$/, "") }),
      el("td", { class: "num", text: trumpText(kept.trump) })]);
    if (server) trumpRow.appendChild(el("td", { class: "num", text: server.trump ? trumpText(server.trump) : "–" }));
    body.appendChild(trumpRow);
    var caption = el("caption", { text: t.bid + " / " + t.tricks + " (" + t.points + ")" });
    box.appendChild(el("table", { class: "conflict-table" }, [caption, el("thead", {}, [el("tr", {}, cols)]), body]));
    var actions = el("p", { class: "conflict-actions" });
    if (kept.status === "conflict") {
      // Neither is preselected: the table decides which round was played.
      actions.appendChild(el("button", { type: "button", text: t.keep_ours, on: function () { keepOurs(kept); } }));
      actions.appendChild(el("button", { type: "button", text: t.keep_theirs, on: function () { dropKept(kept); } }));
    } else {
      actions.appendChild(el("button", { type: "button", text: t.fix, on: function () { book.edit = kept.n; book.draft = null; saveBook(); render(); } }));
      actions.appendChild(el("button", { type: "button", text: t.drop, on: function () { dropKept(kept); } }));
    }
    box.appendChild(actions);
    return box;
  }
  function byKey(kept) {
    return book.rounds.filter(function (k) { return k.key === kept.key; })[0] || kept;
  }
  function dropKept(kept) {
    kept = byKey(kept);
    book.rounds = book.rounds.filter(function (k) { return k.key !== kept.key; });
    if (kept.server && !kept.server.scored && book.rounds.some(function (k) { return k.n > kept.n; })) {
      // Theirs is a round the server has not finished: it is finished on the server's screen,
      // and the rounds kept after it are sent once it is (the server takes only the round
      // being played).
      book.hold = kept.n;
      saveBook();
      refreshTable();
      return;
    }
    saveBook();
    refreshTotals().then(afterChoice);
  }
  function refreshTable() {
    var table = tableEl();
    htmx.ajax("GET", table.dataset.offline.replace(/\/offline$/, ""), { target: "#table", swap: "outerHTML" }).then(function () {
      leave();
      holdNotice();
    }, function () { render(); probe(); });
  }
  // While the server's round comes first: said above its screen, gone once it is saved.
  function holdNotice() {
    var table = tableEl(), notice = document.getElementById("offline-hold");
    if (!book || !book.hold || !table) { if (notice) notice.remove(); return; }
    if (!notice) {
      notice = el("p", { id: "offline-hold", class: "notice", role: "status" });
      table.parentNode.insertBefore(notice, table);
    }
    var text = fill(data.text.finish_first, { number: book.hold });
    if (notice.textContent !== text) notice.textContent = text;
  }
  // Held rounds go once the server's screen is past the round it had to finish.
  function released(table) {
    if (!book || !book.hold) return false;
    var shown = parseInt(table.dataset.round, 10);
    if (table.dataset.offline && shown <= book.hold) return false;
    book.hold = null;
    saveBook();
    holdNotice();
    return true;
  }
  // The totals the kept rounds add to are the server's: a round it stored (ours, or theirs
  // chosen) leaves the book and counts in them, for the standings and the Canadian lead.
  function takeServer(body) {
    if (body.version) data.version = body.version;
    if (body.totals) {
      data.totals = body.totals;
      savePlan();
    }
  }
  function refreshTotals() {
    return fetch(tableEl().dataset.offline, { credentials: "same-origin", cache: "no-store" }).then(function (answer) {
      return answer.ok ? answer.json() : null;
    }).then(function (fresh) { if (fresh) takeServer(fresh); }, function () {});
  }
  // "Keep ours": a round the server has scored is corrected through the correction page (the
  // change history records it); a round still open there gets ours in place of its entries.
  function keepOurs(kept) {
    kept = byKey(kept);
    var scored = kept.server && kept.server.scored;
    var url = scored ? tableEl().dataset.offline.replace(/offline$/, "rounds/" + kept.n + "/edit") : keptUrl(kept.n);
    var fields = formFields(kept, kept.version);
    fields.set("request_key", newKey());
    if (!scored) fields.set("replace", "y");
    post(url, fields).then(function (answer) {
      if (answer.ok || answer.redirected) {
        book.rounds = book.rounds.filter(function (k) { return k.key !== kept.key; });
        saveBook();
        refreshTotals().then(afterChoice);
      } else {
        kept.status = "refused";
        kept.problems = [data.text.reload];
        saveBook();
        render();
      }
    }).catch(function () { render(); });
  }
  function afterChoice() {
    render();
    if (book.rounds.length) send(); else finish();
  }

  // --- Sending: in order, each with its own key; a probe of /healthz every 2 s meanwhile. ---
  function keptUrl(number) { return tableEl().dataset.offline.replace(/offline$/, "rounds/" + number + "/kept"); }
  function csrfToken() {
    var holder = document.querySelector("[hx-headers]");
    try { return JSON.parse(holder.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { return ""; }
  }
  function formFields(kept, version) {
    var fields = new URLSearchParams();
    fields.set("version", String(version || data.version));
    fields.set("request_key", kept.key);
    fields.set("trump", kept.trump || "");
    var p = kept.dealer === undefined ? planRound(kept.n) : kept;  // rounds kept before dealer/cards were
    if (p) { fields.set("dealer", String(p.dealer)); fields.set("cards", String(p.cards)); }
    kept.bids.forEach(function (bid, seat) { if (bid !== null) fields.set("bid_" + seat, String(bid)); });
    kept.tricks.forEach(function (took, seat) { if (took !== null) fields.set("tricks_" + seat, String(took)); });
    return fields;
  }
  // An answer as JSON; an error page (a proxy's, or from before the app spoke JSON to
  // scripts) as a refusal with its title.
  function readAnswer(answer) {
    if ((answer.headers.get("Content-Type") || "").match(/json/)) return answer.json();
    return answer.text().then(function (page) {
      var title = /<title>([^<]*)<\/title>/i.exec(page);
      return { outcome: "error", message: title ? title[1].trim() : "" };
    });
  }
  var tokenRenewed = false;  // once per page: an expired token is renewed, then sent again
  function renewToken() {
    return fetch(tableEl().dataset.offline.replace(/\/offline$/, ""), { credentials: "same-origin", cache: "no-store" }).then(function (answer) {
      if (!answer.ok) throw new Error(String(answer.status));
      return answer.text();
    }).then(function (page) {
      var found = /"X-CSRFToken":\s*"([^"]+)"/.exec(page.replace(/&#34;|&quot;/g, '"'));
      var holder = document.querySelector("[hx-headers]");
      if (!found || !holder) throw new Error("no token");
      var headers = {};
      try { headers = JSON.parse(holder.getAttribute("hx-headers")) || {}; } catch (e) { headers = {}; }
      headers["X-CSRFToken"] = found[1];
      holder.setAttribute("hx-headers", JSON.stringify(headers));
    });
  }
  function post(url, fields) {
    var control = new AbortController();
    var timer = setTimeout(function () { control.abort(); }, SEND_MS);
    return fetch(url, {
      method: "POST", body: fields, credentials: "same-origin", signal: control.signal, redirect: "follow",
      headers: { "X-CSRFToken": csrfToken(), "Accept": "application/json" }
    }).finally(function () { clearTimeout(timer); });
  }

  function send() {
    if (sending || !book || book.hold) return;
    var kept = book.rounds.filter(function (k) { return k.status === "waiting"; })[0];
    var blocked = book.rounds.some(function (k) { return k.status !== "waiting" && (!kept || k.n < kept.n); });
    if (!kept || blocked) { if (!book.rounds.length) finish(); return; }
    sending = true;
    render();
    // The version a kept round was kept on: sent again, it is the very same request.
    if (!kept.version) { kept.version = data.version; saveBook(); }
    post(keptUrl(kept.n), formFields(kept, kept.version)).then(function (answer) {
      if (answer.status >= 500) throw new Error(String(answer.status));  // a proxy's, or down
      return readAnswer(answer).then(function (body) {
        sending = false;
        // The book may have been read again meanwhile (another tab): the round as it is now.
        kept = book.rounds.filter(function (k) { return k.key === kept.key; })[0] || kept;
        online = true;
        var wait = answer.status === 429 || answer.headers.get("Retry-After");
        if (body.outcome === "error" && wait) {
          // Busy or too many requests: nothing was stored, the same request again later.
          render();
          setTimeout(send, 1000 * (parseInt(answer.headers.get("Retry-After"), 10) || 5));
          return;
        }
        if (body.outcome === "error" && body.expired && !tokenRenewed) {
          // The page's form token expired (a phone left open overnight): a fresh one, once.
          tokenRenewed = true;
          renewToken().then(send, function () { probe(); });
          return;
        }
        if (body.outcome === "error") {
          // Any other refusal (no such game, page expired again, …): the round needs the
          // table, with the server's words; it is never dropped, nor sent in a loop.
          body = { outcome: "refused", version: kept.version, problems: [body.message || body.title || String(answer.status)] };
        }
        if (body.outcome === "stored") {
          book.rounds = book.rounds.filter(function (k) { return k.key !== kept.key; });
          takeServer(body);
        } else if (body.outcome === "retry") {
          setTimeout(send, 500);
          return;
        } else {
          kept.status = body.outcome;
          kept.server = body.server || null;
          kept.problems = body.problems || [];
          kept.version = body.version;
        }
        saveBook();
        render();
        send();
      });
    }).catch(function () {
      sending = false;
      online = false;
      render();
      probe();
    });
  }

  function probe() {
    if (probeTimer || !book || (!book.rounds.length && !panel)) return;
    probeTimer = setTimeout(function () {
      probeTimer = null;
      var control = new AbortController();
      var timer = setTimeout(function () { control.abort(); }, PROBE_MS);
      fetch("/healthz", { cache: "no-store", signal: control.signal }).then(function (answer) {
        clearTimeout(timer);
        if (!answer.ok) throw new Error(String(answer.status));
        online = true;
        if (book.rounds.length) send(); else finish();
      }).catch(function () {
        clearTimeout(timer);
        var was = online;
        online = false;
        if (was) render();
        probe();
      });
    }, PROBE_MS);
  }

  // Everything sent: the server's screen again, its standings (unless a round is being entered
  // here: it is sent once saved).
  function finish() {
    if (book.rounds.length || !panel) return;
    var current = book.current;
    var started = current && (current.bids.some(function (b, s) { return b !== null && !(data.plan.jester_bid); }) || current.tricks.some(function (v) { return v !== null; }));
    if (book.edit || started) { render(); return; }
    book.current = null;
    saveBook();
    var table = tableEl();
    htmx.ajax("GET", table.dataset.offline.replace(/\/offline$/, ""), { target: "#table", swap: "outerHTML" }).then(function () {
      leave();
    }, function () { probe(); });
  }

  // --- When to take over: a save of the table that cannot reach the server. ---
  function fromTable(event) {
    var elt = event.detail && event.detail.elt;
    var verb = event.detail && event.detail.requestConfig && event.detail.requestConfig.verb;
    return elt && elt.closest && elt.closest("#table") && verb && verb !== "get";
  }
  // One failed request with the server still answering stays what it was (app.js: "not
  // saved, tap again"); the phone takes over only when /healthz does not answer either.
  function reachable() {
    var control = new AbortController();
    var timer = setTimeout(function () { control.abort(); }, PROBE_MS);
    return fetch("/healthz", { cache: "no-store", signal: control.signal }).then(function (answer) {
      return answer.ok;
    }, function () { return false; }).finally(function () { clearTimeout(timer); });
  }
  function lostConnection(event) {
    if (!fromTable(event) || panel) return;
    var table = tableEl();
    reachable().then(function (up) {
      if (up) return;
      (data ? Promise.resolve(data) : loadPlan(table)).then(function () {
        if (data && data.plan.unavailable) sayServerNeeded(); else goOffline();
      });
    });
  }
  // A game the phone cannot keep alone (hidden bids, own phones, …): the server's screen
  // stays with its entries for a retry, and says why it cannot go on without the server.
  function sayServerNeeded() {
    var box = document.getElementById("net-status");
    if (!box || box.hidden || box.textContent.indexOf(data.plan.text) >= 0) return;
    box.textContent += " " + data.plan.text;
  }
  document.addEventListener("htmx:sendError", lostConnection);
  document.addEventListener("htmx:timeout", lostConnection);
  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr && event.detail.xhr.status;
    if (status === 502 || status === 504) lostConnection(event);
  });
  window.addEventListener("online", function () { if (book && book.rounds.length) send(); });
  // Another tab of this phone changed the kept rounds: this one goes on from them, never
  // writing its older copy over them (both send the same rounds with the same request keys:
  // the server stores each once).
  window.addEventListener("storage", function (event) {
    if (!book || !gameId || event.key !== KEPT + gameId) return;
    loadBook();
    dropUnplanned();
    render();
    if (book.rounds.length) send();
  });

  // A round being entered or corrected that the plan no longer has (the game finished or was
  // given up elsewhere, another phone played past it): dropped, it cannot be drawn or saved.
  function dropUnplanned() {
    if (!data || data.game !== parseInt(gameId, 10)) return;
    var changed = false;
    if (book.current && !planRound(book.current.n)) { book.current = null; changed = true; }
    if (book.edit && !planRound(book.edit)) { book.edit = null; book.draft = null; changed = true; }
    if (changed) saveBook();
  }

  function start() {
    var table = tableEl();
    if (!table || !table.dataset.offline) return;
    loadPlan(table).then(function () {
      loadBook();
      dropUnplanned();
      released(table);
      if (book.hold) {
        holdNotice();  // the server's round first, on its own screen
      } else if (book.rounds.length) {
        // Rounds kept before a reload: sent at once, and shown.
        send();
        goOffline(true);
      } else if (book.current) {
        goOffline(true);
      } else if (planMissed) {
        // Opened from the service worker's copy with the server gone: carry on at once.
        reachable().then(function (up) { if (!up) goOffline(); });
      }
    });
  }
  document.addEventListener("htmx:afterSettle", function (event) {
    var table = tableEl();
    if (!table || event.target !== table || panel) return;
    if (!book && table.dataset.game) { gameId = table.dataset.game; loadBook(); }
    var go = released(table);
    if (table.dataset.offline) loadPlan(table).then(function () { if (go && book.rounds.length) { goOffline(); send(); } });
  });
  start();
})();
