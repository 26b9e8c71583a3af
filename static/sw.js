// Service worker: when the network is gone, a page shows the offline notice instead of
// the browser's error. Nothing else is cached: scores always come from the server.
"use strict";
var CACHE = "scorekeeper-offline-v1";
var OFFLINE = "/offline";
var KEEP = [OFFLINE, "/static/app.css", "/static/app.js", "/static/vendor/htmx.min.js", "/static/icon.svg"];

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

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(function () { return caches.match(OFFLINE); }));
    return;
  }
  if (KEEP.indexOf(new URL(request.url).pathname) !== -1) {
    event.respondWith(fetch(request).catch(function () { return caches.match(request); }));
  }
});
