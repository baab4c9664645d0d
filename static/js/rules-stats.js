// What a rule set does to the game: posts the rules form to /rules/stats/ and polls until the
// simulation (a Celery task, games/stats.py) is done, showing its progress and the rates.
// Markup: <form data-rules-stats="/rules/stats/?preset=ten-half"> ... <div data-rules-stats-out></div>
(function () {
  "use strict";
  const t = (s) => (window.gettext ? window.gettext(s) : s);
  const pct = (x) => (100 * x).toFixed(1) + "%";

  function attach(form) {
    const out = form.querySelector("[data-rules-stats-out]") || document.querySelector("[data-rules-stats-out]");
    if (!out) return;
    let timer = null;
    let run = 0;

    function show(data) {
      out.replaceChildren();
      if (data.status === "invalid") {
        out.textContent = t("Fix the highlighted settings to see their effect.");
        return;
      }
      if (data.status === "running") {
        const bar = document.createElement("progress");
        bar.max = 1;
        bar.value = data.progress || 0;
        out.append(t("Simulating hands…"), " ", bar);
        return;
      }
      const r = data.result;
      const p = document.createElement("p");
      p.textContent = t("Banker's edge") + ": " + pct(r.banker_edge) + " · " + t("challengers win") + " " +
        pct(r.win) + ", " + t("push") + " " + pct(r.push) + ", " + t("lose") + " " + pct(r.lose) +
        " (" + r.hands.toLocaleString() + " " + t("simulated hands") + ")";
      out.append(p);
    }

    async function ask(mine) {
      const body = new FormData(form);
      const game = form.querySelector("select[name=preset]");
      const url = form.dataset.rulesStats + (game ? "&preset=" + encodeURIComponent(game.value) : "");
      const response = await fetch(url, {
        method: "POST", body, credentials: "same-origin",
        headers: { "X-CSRFToken": body.get("csrfmiddlewaretoken") || "" },
      });
      const data = await response.json();
      if (mine !== run) return;
      show(data);
      if (data.status === "running") setTimeout(() => ask(mine), 500);
    }

    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(() => ask(++run).catch(() => {}), 500);
    }
    form.addEventListener("input", schedule);
    form.addEventListener("change", schedule);
    schedule();
  }

  document.querySelectorAll("form[data-rules-stats]").forEach(attach);
})();
