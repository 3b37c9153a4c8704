(function () {
  "use strict";
  // Filtering toggles `hidden` on the filterable elements (.f) and only
  // where it changes; their search text is read once, on the first search.
  var items = Array.prototype.slice.call(document.querySelectorAll(".f"));
  var texts = null;
  var status = "all", query = "";
  var shown = document.getElementById("shown");
  var buttons = Array.prototype.slice.call(document.querySelectorAll("[data-filter]"));
  function apply() {
    if (query && !texts) {
      texts = items.map(function (el) { return el.textContent.toLowerCase(); });
    }
    var n = 0;
    for (var i = 0; i < items.length; i++) {
      var el = items[i];
      var show = (status === "all" || el.getAttribute("data-s") === status) &&
        (!query || texts[i].indexOf(query) >= 0);
      if (el.hidden === show) el.hidden = !show;
      if (show) n++;
    }
    shown.textContent = String(n);
    shown.setAttribute("data-q", query); // what the count is of

  }
  buttons.forEach(function (b) {
    b.addEventListener("click", function () {
      status = b.getAttribute("data-filter");
      buttons.forEach(function (o) { o.setAttribute("aria-pressed", String(o === b)); });
      apply();
    });
  });
  var q = document.getElementById("q"), timer = 0;
  q.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      query = q.value.trim().toLowerCase();
      apply();
    }, 150);
  });
  // A link to a call or step unfolds it (and what holds it) and shows it
  // even when a filter hid it.
  function reveal(id) {
    var el = id && document.getElementById(id);
    if (!el) return;
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") p.open = true;
      if (p.hidden) p.hidden = false;
    }
    el.scrollIntoView({ block: "start" });
  }
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest('a[href^="#"]');
    if (a) reveal(decodeURIComponent(a.getAttribute("href").slice(1)));
  });
  if (location.hash) reveal(decodeURIComponent(location.hash.slice(1)));
})();
