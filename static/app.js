// Wizard Scorekeeper: the few lines of script htmx does not cover.
// Everything here is a convenience: every form also works without JavaScript.
(function () {
  "use strict";

  // The inline loader (loader.js) runs this just after the first paint, then htmx: the
  // document may have been parsed, or loaded, by then.
  function whenParsed(run) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run);
    else run();
  }
  function whenLoaded(run) {
    if (document.readyState === "complete") run();
    else window.addEventListener("load", run);
  }

  // --- A failed request is visible, and the entries stay on the page for a retry. ---
  function statusBox() { return document.getElementById("net-status"); }
  function showProblem(text) {
    var box = statusBox();
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
  }
  // A save that got no answer in time (the table's posts wait 8 s) is not saved either, as
  // far as the page knows: the same key is sent again with the retry (stored once).
  document.addEventListener("htmx:timeout", function () {
    showProblem(document.body.dataset.notSaved ||
      "Not saved: no connection. Your entries are still here; tap save again to retry.");
  });
  document.addEventListener("htmx:sendError", function () {
    showProblem(document.body.dataset.notSaved ||
      "Not saved: no connection. Your entries are still here; tap save again to retry.");
  });
  document.addEventListener("htmx:responseError", function (event) {
    var box = statusBox();
    // The app's own explanation was swapped into the box (errors.py retargets it there).
    if (box && event.detail.xhr.getResponseHeader("HX-Retarget") === "#net-status") {
      box.hidden = false;
      return;
    }
    showProblem(document.body.dataset.serverError ||
      "Not saved: the server had a problem. Tap save again to retry.");
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var box = statusBox();
    if (box && event.detail.successful) box.hidden = true;
  });

  // --- Tricks: count down what is left and fill in the last player. ---
  // The total to reach comes from the rules module, for both Bomb states
  // (data-required, data-required-bomb).
  function tricksState(form) {
    var bomb = form.querySelector("[data-bomb]");
    var required = parseInt(bomb && bomb.checked ? form.dataset.requiredBomb : form.dataset.required, 10);
    var groups = {};
    form.querySelectorAll('input[type=radio][name^="tricks_"]').forEach(function (input) {
      (groups[input.name] = groups[input.name] || []).push(input);
    });
    var given = 0, open = [];
    Object.keys(groups).forEach(function (name) {
      var checked = groups[name].filter(function (i) { return i.checked; })[0];
      if (checked) given += parseInt(checked.value, 10); else open.push(groups[name]);
    });
    return { required: required, left: required - given, open: open, groups: Object.keys(groups).length };
  }

  function updateTricks(form, autofill) {
    var state = tricksState(form);
    if (autofill && state.open.length === 1 && state.left >= 0) {
      var match = state.open[0].filter(function (i) { return parseInt(i.value, 10) === state.left; })[0];
      if (match) {
        match.checked = true;
        form.dataset.filled = match.name;  // filled in by the page, not by a tap
        state = tricksState(form);
      }
    }
    // "Everyone made their bid" only while no trick is entered: one slip must not overwrite them.
    var allMade = form.querySelector("[data-all-made]");
    if (allMade) allMade.hidden = state.open.length < state.groups;
    var out = form.querySelector("[data-remaining]");
    if (!out) return;
    var line = out.parentElement;
    out.textContent = String(Math.abs(state.left));
    var label = line.querySelector("[data-remaining-label]");
    if (label) label.textContent = state.left < 0 ? line.dataset.overText : line.dataset.leftText;
    line.classList.toggle("over", state.left < 0);
    line.classList.toggle("done", state.left === 0 && state.open.length === 0);
  }

  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("form[data-required]");
    if (!form) return;
    if (event.target.type === "radio" && event.target.name === form.dataset.filled) {
      delete form.dataset.filled;  // the player chose this one themselves
    }
    if (event.target.hasAttribute("data-bomb") && form.dataset.filled) {
      // The Bomb changes what is left: fill the same player in again.
      form.querySelectorAll('input[name="' + form.dataset.filled + '"]').forEach(function (i) { i.checked = false; });
      delete form.dataset.filled;
    }
    updateTricks(form, event.target.type === "radio" || event.target.hasAttribute("data-bomb"));
  });

  // --- After each step: focus on the control needed next, and one polite announcement. ---
  // The region lives outside the swapped part, so a screen reader hears every change of it.
  var announcer = null, swapped = null;
  function announce(text) {
    if (!text) return;
    if (!announcer) {
      announcer = document.createElement("div");
      announcer.className = "visually-hidden";
      announcer.setAttribute("role", "status");
      announcer.setAttribute("aria-live", "polite");
      document.body.appendChild(announcer);
    }
    announcer.textContent = "";
    window.setTimeout(function () { announcer.textContent = text; }, 100);
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    swapped = target && (target.id === "table" || target.id === "main") ? target.id : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!swapped) return;
    var area = document.getElementById(swapped);
    swapped = null;
    if (!area) return;
    var next = nextControl(area) || area.querySelector("#step-title, h1[tabindex]");
    if (next) next.focus({ preventScroll: true });
    announce(area.dataset.announce);
  });

  // The control the table needs next: the next bidder's buttons; the first player whose chips
  // are still empty, else Save; the trump buttons. (A tap never shows the focus ring.)
  function nextControl(area) {
    var bid = area.querySelector(".bid-form .bid-button:not(:disabled)");
    if (bid) return bid;
    var form = area.querySelector("form.tricks-form, form.all-bids");
    if (form) return emptyChips(form, null) || saveButton(form);
    return area.querySelector(".trump-form button[name=trump]");
  }
  function chipGroups(form) { return Array.prototype.slice.call(form.querySelectorAll(".chips")); }
  function firstOption(group) { return group.querySelector("input[type=radio]:not(:disabled)"); }
  // The first group after `after` (then from the top) with nothing chosen: its first chip.
  function emptyChips(form, after) {
    var groups = chipGroups(form), start = after ? groups.indexOf(after) + 1 : 0;
    var order = groups.slice(start).concat(groups.slice(0, start));
    for (var i = 0; i < order.length; i++) {
      if (!order[i].querySelector("input[type=radio]:checked")) return firstOption(order[i]);
    }
    return null;
  }
  function saveButton(form) { return form.querySelector(".save-row button.primary, button.primary"); }

  // At the table, "Skip to content" goes straight to the control the round needs next.
  document.addEventListener("click", function (event) {
    var skip = event.target.closest && event.target.closest(".skip-link");
    var table = skip && document.getElementById("table");
    var next = table && nextControl(table);
    if (!next) return;
    event.preventDefault();
    next.focus();
  });

  // --- Keyboard: a digit picks that number in the focused bid buttons or chips. ---
  // A bid is sent at once; a chip is chosen and focus goes on to the next player still without
  // one (then Save). A digit that can begin a larger number in this hand ("1" of 10 … 15) waits
  // for a second digit; Enter on the bid button or Tab past the chip takes it as it is.
  var firstDigit = null;
  function numberBox(target) {
    var table = target.closest && target.closest("#table");
    if (!table) return null;
    var box = target.closest(".chips, .bid-buttons");
    if (box) return box;
    if (target.id !== "step-title") return null;
    var start = nextControl(table);
    return start && start.closest(".chips, .bid-buttons");
  }
  function numberOption(box, value) {
    return box.querySelector('[value="' + value + '"]:is(input[type=radio], button.bid-button):not(:disabled)');
  }
  function pickNumber(box, option, done) {
    if (option.tagName === "BUTTON") {
      if (done) option.click(); else option.focus();
      return;
    }
    option.checked = true;
    option.dispatchEvent(new Event("change", { bubbles: true }));
    var form = option.form;
    var next = done && form ? emptyChips(form, box) || saveButton(form) : option;
    if (next) next.focus();
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || !/^[0-9]$/.test(event.key)) return;
    var box = numberBox(event.target);
    if (!box) return;
    event.preventDefault();
    var digit = parseInt(event.key, 10);
    var top = box.querySelectorAll("input[type=radio], button.bid-button").length - 1;
    var first = firstDigit && firstDigit.box === box ? firstDigit.digit : null;
    firstDigit = null;
    var option = first !== null && first * 10 + digit <= top ? numberOption(box, first * 10 + digit) : null;
    if (option) return pickNumber(box, option, true);
    option = numberOption(box, digit);
    if (!option) return;
    var begins = digit > 0 && digit * 10 <= top;
    if (begins) firstDigit = { box: box, digit: digit };
    pickNumber(box, option, !begins);
  });

  // --- Polls (live view, a player's phone, the table waiting for bids): an answer "not
  // modified" reaches htmx as the cached copy; keep what is shown. ---
  document.addEventListener("htmx:beforeSwap", function (event) {
    var board = event.detail.target;
    if (!board || !board.dataset || !board.dataset.etag) return;
    // A weak tag, the same in every coding: the page carries it as the header sends it.
    var etag = event.detail.xhr.getResponseHeader("ETag") || "";
    if (etag && etag === board.dataset.etag) event.detail.shouldSwap = false;
  });
  // The table's poll while bids come in from the players' phones: an answer older than the
  // screen (a poll sent just before the screen's own write) is not swapped in; a newer one
  // of the same bids step (a phone's bid arrived) keeps the chips tapped here but not saved.
  var tapped = null;
  function fromPoll(event) {
    var config = event.detail.requestConfig;
    return !!(config && config.elt && config.elt.hasAttribute && config.elt.hasAttribute("data-table-poll"));
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    tapped = null;
    var shown = event.detail.target;
    if (!shown || shown.id !== "table" || !fromPoll(event) || !event.detail.shouldSwap) return;
    var answer = /id="table"[^>]*data-version="(\d+)"/.exec(event.detail.serverResponse || "");
    if (answer && parseInt(answer[1], 10) < parseInt(shown.dataset.version, 10)) {
      event.detail.shouldSwap = false;
      return;
    }
    var form = shown.querySelector("form.all-bids");
    if (!form) return;
    tapped = { action: form.getAttribute("action"), chosen: [] };
    form.querySelectorAll("input[type=radio]:checked").forEach(function (input) {
      tapped.chosen.push({ name: input.name, value: input.value });
    });
  });
  document.addEventListener("htmx:afterSwap", function () {
    var kept = tapped;
    tapped = null;
    var form = kept && document.querySelector("#table form.all-bids");
    if (!form || form.getAttribute("action") !== kept.action) return;
    kept.chosen.forEach(function (choice) {
      form.querySelectorAll('input[type=radio][name="' + choice.name + '"]').forEach(function (input) {
        if (input.value === choice.value && !input.disabled) input.checked = true;
      });
    });
  });
  function initTricks(root) {
    (root || document).querySelectorAll("form[data-required]").forEach(function (form) {
      updateTricks(form, false);
    });
  }
  whenParsed(function () { initTricks(); keepAwake(); });
  document.addEventListener("htmx:afterSettle", function (event) { initTricks(event.target); keepAwake(); });

  // --- Keep the screen on while a game is being played. ---
  // The Screen Wake Lock where the browser offers it (secure pages: HTTPS or localhost). On plain
  // HTTP on the LAN it is missing, so the fallback NoSleep.js made well known: a tiny muted video
  // playing inline in a loop, started by the first tap (browsers start media after one) and
  // stopped when no game is on the page any more.
  var lock = null, video = null;
  function awakeSpot() { return document.querySelector("[data-keep-awake]"); }
  function keepAwake() {
    var wanted = !!awakeSpot();
    if (!("wakeLock" in navigator)) {
      if (!wanted) stopVideo();
      else if (video && video.paused && document.visibilityState === "visible") playVideo();
      return;
    }
    if (wanted && !lock) {
      navigator.wakeLock.request("screen").then(function (l) {
        lock = l;
        lock.addEventListener("release", function () { lock = null; });
      }).catch(function () { lock = null; });
    } else if (!wanted && lock) {
      lock.release();
      lock = null;
    }
  }
  function playVideo() {
    var started = video.play();
    if (started && started.catch) started.catch(function () { /* tried again at the next tap */ });
  }
  function startVideo() {
    var spot = awakeSpot();
    if ("wakeLock" in navigator || !spot || (video && !video.paused)) return;
    if (!video) {
      video = document.createElement("video");
      video.className = "awake-video";
      video.muted = true;
      video.loop = true;
      video.setAttribute("muted", "");
      video.setAttribute("playsinline", "");
      video.setAttribute("aria-hidden", "true");
      video.setAttribute("tabindex", "-1");
      video.setAttribute("data-awake", "");
      ["webm", "mp4"].forEach(function (type) {
        var url = spot.getAttribute("data-awake-" + type);
        if (!url) return;
        var source = document.createElement("source");
        source.src = url;
        source.type = "video/" + type;
        video.appendChild(source);
      });
      document.body.appendChild(video);
    }
    playVideo();
  }
  function stopVideo() {
    if (!video) return;
    video.pause();
    video.remove();
    video = null;
  }
  // Capture: before htmx swaps the tapped button away. A key press counts as a tap.
  document.addEventListener("click", startVideo, true);
  document.addEventListener("keydown", startVideo, true);
  window.addEventListener("pagehide", stopVideo);

  // --- At the table, offline.js keeps the rounds when the server cannot be reached. It is
  // fetched only on a table screen, after the page is shown (not part of any first paint). ---
  function loadOffline() {
    var table = document.querySelector("#table[data-offline-script]");
    if (!table || document.querySelector("script[data-offline-js]")) return;
    var script = document.createElement("script");
    script.src = table.dataset.offlineScript;
    script.setAttribute("data-offline-js", "");
    document.head.appendChild(script);
  }
  whenLoaded(loadOffline);
  document.addEventListener("htmx:afterSettle", loadOffline);

  // --- The offline notice stands in for the page that could not be reached, at its address:
  // "Try again" reloads it (without JavaScript its link goes to that same address). ---
  document.addEventListener("click", function (event) {
    var retry = event.target.closest && event.target.closest("[data-retry]");
    if (!retry) return;
    event.preventDefault();
    window.location.reload();
  });

  // --- Installable: an offline notice instead of the browser's error page. ---
  if ("serviceWorker" in navigator) {
    whenLoaded(function () {
      navigator.serviceWorker.register("/sw.js").then(function () {
        // The offline notice is kept in the language it was fetched in: renew it on a change.
        var lang = document.documentElement.lang;
        var worker = navigator.serviceWorker.controller;
        if (worker && window.localStorage && localStorage.getItem("offline-lang") !== lang) {
          worker.postMessage("refresh-offline");
          localStorage.setItem("offline-lang", lang);
        }
      }).catch(function () { /* not a secure page */ });
    });
  }

  // --- The language switch needs no button with JavaScript on. ---
  function initLanguage() {
    document.querySelectorAll("[data-js-hidden]").forEach(function (el) { el.hidden = true; });
  }
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("select[data-autosubmit]")) event.target.form.submit();
  });

  // --- Times in the viewer's time zone: tell the server the browser's zone (a cookie). ---
  function rememberTimeZone() {
    var zone;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
    if (!zone) return;
    var current = (document.cookie.match(/(?:^|; )tz=([^;]*)/) || [])[1];
    if (current && decodeURIComponent(current) === zone) return;
    document.cookie = "tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; samesite=lax";
    // A page that shows times says the zone it wrote them in: when that is the server's,
    // not this browser's, show the page once more, right.
    var written = document.querySelector("[data-times]");
    if (written && written.dataset.times !== zone) window.location.reload();
  }
  whenParsed(function () { initLanguage(); rememberTimeZone(); });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") keepAwake();
  });
})();
