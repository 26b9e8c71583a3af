// Service worker (secure pages only: HTTPS or localhost). When the network is gone, a page
// shows the offline notice instead of the browser's error; the table screen of a game
// (/games/<id>) and its scripts are kept from its last visit, so that a reload at the table
// still works and offline.js goes on keeping rounds (its plan is in localStorage, never
// served from here: a failed fetch of it tells the script the server is gone). Scores still
// come from the server: the kept copy is only ever shown when it cannot be reached.
"use strict";
var CACHE = "scorekeeper-offline-v2";
var OFFLINE = "/offline";
var KEEP = [OFFLINE, "/static/app.css", "/static/app.js", "/static/vendor/htmx.min.js", "/static/icon.svg"];
var TABLE = /^\/games\/\d+$/;
// Content-hashed static files (app.<hash>.js) never change: kept once fetched.
var HASHED = /^\/static\/.+\.[0-9a-f]{12}\.\w+$/;

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll(KEEP); }));
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n !== CACHE; }).map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

// The page asks for a fresh offline notice when the language changed (it is cached as served).
self.addEventListener("message", function (event) {
  if (event.data === "refresh-offline") {
    event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.add(OFFLINE); }));
  }
});

// The network first; a good answer is kept for the next time the network is gone.
function networkThenKept(request, fallback) {
  return fetch(request).then(function (answer) {
    if (answer.ok) {
      var copy = answer.clone();
      caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
    }
    return answer;
  }).catch(function () {
    return caches.match(request, { ignoreVary: true }).then(function (kept) { return kept || fallback(); });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var path = new URL(request.url).pathname;
  if (request.mode === "navigate") {
    var offline = function () { return caches.match(OFFLINE); };
    event.respondWith(TABLE.test(path) ? networkThenKept(request, offline) : fetch(request).catch(offline));
    return;
  }
  if (HASHED.test(path)) {
    event.respondWith(caches.match(request).then(function (kept) {
      return kept || networkThenKept(request, function () { return Response.error(); });
    }));
    return;
  }
  if (KEEP.indexOf(path) !== -1) {
    event.respondWith(fetch(request).catch(function () { return caches.match(request); }));
  }
});
