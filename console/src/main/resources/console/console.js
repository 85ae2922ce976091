// The console's only script: pages that show work still in progress (snapshot statistics being
// computed) carry data-refresh-seconds on <body>'s main element, and reload themselves until done.
document.addEventListener("DOMContentLoaded", function () {
  var marker = document.querySelector("[data-refresh-seconds]");
  if (marker) {
    var seconds = parseInt(marker.getAttribute("data-refresh-seconds"), 10);
    if (seconds > 0) {
      setTimeout(function () { window.location.reload(); }, seconds * 1000);
    }
  }
  // Clicking a row with data-href opens it, so whole table rows are targets, not only their first cell.
  document.querySelectorAll("tr[data-href]").forEach(function (row) {
    row.addEventListener("click", function (event) {
      if (event.target.tagName !== "A") {
        window.location.href = row.getAttribute("data-href");
      }
    });
  });
});
