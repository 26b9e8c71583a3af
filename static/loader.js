// Inline in every page's head (allowed by its hash in the CSP): starts app.js, htmx and the
// manifest once the first contentful paint is on screen, so nothing is fetched before the
// page shows. Every form works without them meanwhile. A page opened in the background
// does not paint until it is shown: a timer starts them anyway. The page is marked data-js
// at once: the scripts are on their way (the browser tests wait for htmx on such a page).
(function (here) {
  "use strict";
  document.documentElement.setAttribute("data-js", "");
  var started = false;
  function start() {
    if (started) return;
    started = true;
    var head = document.head;
    var manifest = document.createElement("link");
    manifest.rel = "manifest";
    manifest.href = here.dataset.manifest;
    head.appendChild(manifest);
    [here.dataset.app, here.dataset.htmx].forEach(function (source) {
      var script = document.createElement("script");
      script.src = source;
      script.async = false; // run in this order: app.js listens before htmx starts
      head.appendChild(script);
    });
  }
  var types = (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
  if (types.indexOf("paint") < 0) {
    start();
    return;
  }
  new PerformanceObserver(function (list, observer) {
    if (!list.getEntriesByName("first-contentful-paint").length) return;
    observer.disconnect();
    start();
  }).observe({ type: "paint", buffered: true });
  window.setTimeout(start, 3000);
})(document.currentScript);
