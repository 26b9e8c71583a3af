// Wizard Scorekeeper: the few lines of script htmx does not cover.
(function () {
  "use strict";
  var status = function () { return document.getElementById("net-status"); };

  function showNetworkProblem(message) {
    var box = status();
    if (!box) return;
    box.textContent = message;
    box.hidden = false;
  }

  document.addEventListener("htmx:sendError", function () {
    showNetworkProblem(document.body.dataset.notSaved || "Not saved: no connection. Your entries are still here; tap save again to retry.");
  });
  document.addEventListener("htmx:responseError", function () {
    showNetworkProblem(document.body.dataset.serverError || "Not saved: the server had a problem. Tap save again to retry.");
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (event.detail.successful && !event.detail.failed) {
      var box = status();
      if (box) box.hidden = true;
    }
  });
})();
