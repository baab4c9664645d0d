// What a rule set does to the game: posts the rules form to /rules/stats/ and polls until the
// simulation (a Celery task, games/stats.py) is done, showing its progress and the rates.
// Markup: <form data-rules-stats="/rules/stats/?preset=ten-half"> ... <div data-rules-stats-out></div>
(function () {
  "use strict";
  // gettext and interpolate by their own names, so that makemessages finds the strings (static/js catalog).
  const gettext = window.gettext || ((s) => s);
  const interpolate = window.interpolate || ((s, o) => s.replace(/%\((\w+)\)s/g, (_m, k) => o[k]));
  // In the page's language, as static/js/format.js writes numbers (this classic script cannot import it).
  const lang = document.documentElement.lang || undefined;
  const percent = new Intl.NumberFormat(lang, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const pct = (x) => percent.format(x);

  function attach(form) {
    const out = form.querySelector("[data-rules-stats-out]") || document.querySelector("[data-rules-stats-out]");
    if (!out) return;
    let timer = null;
    let run = 0;

    function show(data) {
      out.replaceChildren();
      if (data.status === "invalid") {
        out.textContent = gettext("Fix the highlighted settings to see their effect.");
        return;
      }
      if (data.status === "running") {
        const bar = document.createElement("progress");
        bar.max = 1;
        bar.value = data.progress || 0;
        out.append(gettext("Simulating hands…"), " ", bar);
        return;
      }
      const r = data.result;
      const p = document.createElement("p");
      p.textContent = interpolate(gettext(
        "Banker's edge: %(edge)s · challengers win %(win)s, push %(push)s, lose %(lose)s (%(hands)s simulated hands)"),
        { edge: pct(r.banker_edge), win: pct(r.win), push: pct(r.push), lose: pct(r.lose),
          hands: r.hands.toLocaleString(lang, { useGrouping: true }) }, true);
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
      if (data.status === "running") poll(mine, 500);
    }

    // A failed poll (the server restarting, a dropped connection) is tried again: the box never stops at
    // "Simulating hands…" while the simulation goes on.
    function poll(mine, delay) {
      setTimeout(() => ask(mine).catch(() => { if (mine === run) poll(mine, 2000); }), delay);
    }

    function schedule() {
      clearTimeout(timer);
      const mine = ++run;
      timer = setTimeout(() => ask(mine).catch(() => { if (mine === run) poll(mine, 2000); }), 500);
    }
    form.addEventListener("input", schedule);
    form.addEventListener("change", schedule);
    schedule();
  }

  document.querySelectorAll("form[data-rules-stats]").forEach(attach);
})();
