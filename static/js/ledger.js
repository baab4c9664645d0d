// The table menu's Ledger tab (templates/games/room.html, #ledger-panel): for each person who sat here, the buy-ins,
// top-ups, what they took away, what is on the table, their net, the hands they played and the bank's result while
// they held it; once the room is closed, the settle-up. The figures come from the room's ledger JSON
// (/r/<code>/ledger.json, docs/ledger.md); every word here is this browser's, in its own language.
//
// table.js calls `ledger(view, closed)` after drawing each view, as it calls cues(): the figures change when a hand
// ends, a seat is taken or left, a stack is topped up, or the room closes. The panel asks for them again then, at
// once while it is shown, else when it is next opened.
/* global gettext, ngettext, pgettext, interpolate */
import { h as el } from "./dom.js";
import { number as chips, signed, time } from "./format.js";
import { addWords, fmt } from "./i18n.js";

// The log's and the matrix's words have their own catalog (context "night record", config/urls.py).
const nightWords = () => addWords("night record", "/jsi18n/night/");

const panel = document.getElementById("ledger-panel");
const menu = document.getElementById("menu");
const shown = () => !panel.hidden && !(menu && menu.hidden);
const S = { key: null, stale: true, busy: false, again: false, loads: 0 };

const tone = (n) => (n > 0 ? "pos" : n < 0 ? "neg" : "");


function transferText(t, names, currency) {
  const o = { payer: names[t.from], payee: names[t.to], amount: chips(t.amount) };
  const text = currency === "beans"
    ? ngettext("%(payer)s pays %(payee)s %(amount)s bean", "%(payer)s pays %(payee)s %(amount)s beans", t.amount)
    : ngettext("%(payer)s pays %(payee)s %(amount)s point", "%(payer)s pays %(payee)s %(amount)s points", t.amount);
  return interpolate(text, o, true);
}

function settleBox(data, names) {
  const box = el("section", { class: "card settle", id: "ledger-settle" }, el("h2", { text: gettext("Settle up") }));
  const up = [...data.people].sort((a, b) => b.net - a.net || a.name.localeCompare(b.name));
  const list = el("ul", { class: "ledger-people" });
  for (const p of up) {
    list.append(el("li", { "data-user": p.user }, el("div", { class: "ledger-who" }, el("span", { class: "name", text: p.name }),
      el("strong", { class: "ledger-net " + tone(p.net), text: signed(p.net) }))));
  }
  box.append(list);
  if (data.settle.length) {
    box.append(el("h3", { text: gettext("To square it") }));
    const ol = el("ol", { class: "transfers" });
    for (const t of data.settle) ol.append(el("li", { text: transferText(t, names, data.room.currency) }));
    box.append(ol);
  } else {
    box.append(el("p", { text: gettext("Everyone is even: nobody pays anybody.") }));
  }
  return box;
}

function personItem(p) {
  const figures = [
    ["bought_in", gettext("Bought in"), chips(p.bought_in)], ["topped_up", gettext("Topped up"), chips(p.topped_up)],
    ["taken_away", gettext("Took away"), chips(p.taken_away)], ["on_table", gettext("On the table"), chips(p.on_table)],
    ["hands", pgettext("number of hands played", "Hands"), chips(p.hands)], ["banker", gettext("As banker"), p.banked ? signed(p.banker) : "—"],
  ];
  const dl = el("dl", { class: "ledger-figures" });
  for (const [key, label, value] of figures) {
    dl.append(el("div", {}, el("dt", { text: label }), el("dd", { "data-figure": key, "data-value": p[key], text: value })));
  }
  return el("li", { "data-user": p.user },
    el("div", { class: "ledger-who" }, el("span", { class: "name", text: p.name }),
      p.bot ? el("span", { class: "badge", text: gettext("bot") }) : null,
      el("strong", { class: "ledger-net " + tone(p.net), "data-net": p.net, text: signed(p.net) })),
    dl);
}

/** The night's log (docs/ledger.md, "The log"): each buy-in, top-up and departure with its time. */
function logLine(x) {
  const o = { name: x.name, amount: chips(x.amount) };
  const text = x.kind === "buy_in" ? pgettext("night record", "%(name)s bought in %(amount)s")
    : x.kind === "top_up" ? pgettext("night record", "%(name)s topped up %(amount)s")
      : x.away ? pgettext("night record", "%(name)s was away too long and left with %(amount)s")
        : pgettext("night record", "%(name)s left with %(amount)s");
  return el("li", { "data-kind": x.kind, "data-user": x.user, "data-amount": x.amount, "data-away": x.away || null },
    el("time", { datetime: x.at, text: time(x.at) }), " ", fmt(text, o));
}

/** Each finished hand's net per person (docs/ledger.md, "Hand by hand"), the people as the ledger lists them. */
function matrixTable(data) {
  const people = data.people;
  const head = el("tr", {}, el("th", { text: pgettext("night record", "Hand") }), people.map((p) => el("th", { class: "num", text: p.name })));
  const body = el("tbody");
  for (const row of data.matrix) {
    const cells = row.voided ? [el("td", { colspan: people.length, class: "muted", text: pgettext("night record", "Voided: nobody had staked") })]
      : people.map((p) => {
        const n = row.nets[String(p.user)];
        return el("td", { class: "num " + tone(n || 0), "data-user": p.user, text: n === undefined ? "—" : signed(n) });
      });
    body.append(el("tr", { "data-hand": row.hand, "data-voided": row.voided || null }, el("th", { text: chips(row.hand) }), cells));
  }
  const sums = people.map((p) => data.matrix.reduce((t, row) => t + (row.nets[String(p.user)] || 0), 0));
  const foot = el("tfoot", {}, el("tr", {}, el("th", { text: pgettext("night record", "Net") }),
    sums.map((n, i) => el("td", { class: "num " + tone(n), "data-user": people[i].user, text: signed(n) }))));
  return el("div", { class: "scroll-x" }, el("table", { class: "ledger-table ledger-matrix", id: "ledger-matrix" },
    el("thead", {}, head), body, foot));
}

function draw(data) {
  const names = Object.fromEntries(data.people.map((p) => [p.user, p.name]));
  const parts = [];
  if (data.settle) parts.push(settleBox(data, names));
  if (data.people.length) {
    const list = el("ul", { class: "ledger-people", id: "ledger-people" });
    for (const p of data.people) list.append(personItem(p));
    parts.push(el("h2", { text: gettext("Who brought what") }), list, el("p", {
      class: "help", text: data.balanced ? gettext("The nets add up to zero: every chip won at this table was lost at it.")
        : gettext("The nets do not add up to zero: please tell a moderator."),
    }));
  } else {
    parts.push(el("p", { class: "muted", text: gettext("Nobody sat here.") }));
  }
  if (data.log && data.log.length) {
    parts.push(el("h2", { text: pgettext("night record", "Buy-ins, top-ups and departures") }),
      el("ol", { class: "ledger-log", id: "ledger-log" }, data.log.map(logLine)));
  }
  if (data.matrix && data.matrix.length) parts.push(el("h2", { text: pgettext("night record", "Hand by hand") }), matrixTable(data));
  parts.push(el("p", { class: "ledger-links" }, el("a", { href: data.urls.page, text: gettext("The ledger page") }),
    el("a", { href: data.urls.csv, download: true, text: gettext("Export CSV") })));
  panel.replaceChildren(...parts);
  S.loads += 1;
  panel.dataset.loads = String(S.loads);
}

async function load() {
  if (S.busy) {
    S.again = true; // a change came while asking: ask once more when this answer is in
    return;
  }
  S.busy = true;
  S.stale = false;
  try {
    const response = await fetch(panel.dataset.url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(String(response.status));
    const data = await response.json();
    await nightWords();
    draw(data);
  } catch {
    S.stale = true; // asked again on the next change or opening
    if (!panel.dataset.loads) panel.replaceChildren(el("p", { class: "muted", text: gettext("The ledger could not be loaded.") }));
  } finally {
    S.busy = false;
    if (S.again) {
      S.again = false;
      load();
    }
  }
}

/** What the ledger's figures depend on, as the view shows it: the hands finished, every seat's stack, the bank and
 * the jackpot, the room closed. */
function viewKey(view, closed) {
  if (!view) return closed ? "closed" : "";
  const finished = view.hand && !view.hand.over ? view.hand_no - 1 : view.hand_no;
  const stacks = view.seats.map((x) => `${x.id}:${x.stack}`).join(",");
  return [closed ? "closed" : "open", finished, stacks, view.bank, view.jackpot].join("|");
}

// Called by table.js after every drawing of the viewer's view.
export function ledger(view, closed) {
  if (!panel) return;
  const key = viewKey(view, closed);
  if (key === S.key) return;
  S.key = key;
  if (shown()) load();
  else S.stale = true;
}

if (panel) {
  // table.js shows and hides the menu and its panels; this one loads when shown with figures older than the table's.
  const observer = new MutationObserver(() => { if (shown() && S.stale) load(); });
  for (const node of [panel, menu].filter(Boolean)) observer.observe(node, { attributes: true, attributeFilter: ["hidden"] });
}
