// The hand record page: tell every event in the words of the table's feed (feed.js), draw the cards, check this
// hand's fair deal in this browser (fair.js), check record files the player downloaded, and replay the hand step by
// step (replay.js), with nothing asked of the server once the page has loaded.
import { hydrate, setDeck } from "./cards.js";
import { verifyRecord } from "./fair.js";
import { listChecks, showDeck, showStatus, watchFiles } from "./fair-report.js";
import { tellAll } from "./feed.js";
import { each, knobsOn, loadHouse } from "./house.js";
import { mountReplay } from "./replay.js";
import "./format.js"; // the page's times in this browser's time zone

const record = JSON.parse(document.getElementById("verify-data").textContent);
// The hand's rules (the page embeds them): the house rules they turn on have their modules (static/js/house.js), which
// tell their own events and add their words beside each hand, as at the table.
const rulesNode = document.getElementById("hand-rules");
const rules = rulesNode ? JSON.parse(rulesNode.textContent) : null;
setDeck(record.deck);
tellEvents();
hydrate();
const houseModules = loadHouse(rules).catch(() => []); // a module that fails to load leaves the page as it was
if (knobsOn(rules).length) {
  houseModules.then((modules) => {
    tellEvents(modules);
    hydrate(document.getElementById("events"));
    handWords(modules);
  });
}

/** The house rules' words beside each hand of the result table (the matta's value). */
function handWords(modules) {
  const seen = {};
  for (const row of document.querySelectorAll("table.hand-seats tbody tr[data-seat]")) {
    const seat = row.dataset.seat;
    seen[seat] = seat in seen ? seen[seat] + 1 : 0;
    const ph = ((record.hands || {})[seat] || [])[seen[seat]];
    const words = each(modules, "recordInfo", ph).flat();
    if (words.length && row.cells[2]) {
      const span = document.createElement("span");
      span.className = "house-info";
      span.textContent = " · " + words.join(" · ");
      row.cells[2].append(span);
    }
  }
}

/** The hand's events, from its start to its end, as the table's feed told them (every card is public now). */
function tellEvents(house = []) {
  const all = JSON.parse(document.getElementById("hand-events").textContent);
  const first = all.findIndex((e) => e.type === "hand_started");
  const last = all.findIndex((e) => e.type === "hand_over");
  if (first < 0) return;
  const events = all.slice(first, last < 0 ? undefined : last + 1);
  const names = record.names || {};
  const handOf = (seat, index) => {
    const h = ((record.hands || {})[seat] || [])[index];
    return h ? { cards: h.cards.length, total: h.total, class: h.class, bust: h.bust } : null;
  };
  const { lines } = tellAll(events, { name: (id) => names[id] || id, game: () => record.game, handOf, house });
  const list = document.getElementById("events");
  list.textContent = "";
  for (const line of lines) {
    const li = document.createElement("li");
    li.className = [line.type, line.minor && "minor", line.outcome].filter(Boolean).join(" ");
    li.textContent = line.text;
    for (const code of line.cards) {
      const card = document.createElement("span");
      card.className = "pcard";
      card.dataset.card = code;
      card.textContent = code;
      li.append(" ", card);
    }
    list.append(li);
  }
}
const status = document.getElementById("verify-status");
const list = document.getElementById("verify-results");

async function run() {
  list.textContent = "";
  if (!window.crypto || !crypto.subtle) {
    status.textContent = gettext("This browser cannot compute SHA-256 here (Web Crypto needs HTTPS).");
    return;
  }
  status.textContent = gettext("Checking…");
  const result = await verifyRecord(record, null, { predates: !record.chain }); // the site's own page: it knows
  listChecks(list, result.checks);
  showDeck(document.getElementById("verify-deckview"), result.segments);
  showStatus(status, result.ok, gettext("Verified: this hand was dealt from the committed seed and the players' seeds, and this is the record its chain hash names."),
    gettext("Not verified: see the lines below."));
}

if (record.stacked) {
  status.textContent = gettext("This hand was dealt from a deck stacked by a test script; it does not verify, by design.");
} else {
  document.getElementById("verify-run").addEventListener("click", run);
  run();
}

watchFiles(document.getElementById("verify-files"), document.getElementById("verify-files-status"),
  document.getElementById("verify-files-results"));

const readJson = (id) => JSON.parse(document.getElementById(id).textContent);
houseModules.then((house) => mountReplay(document.getElementById("replay"),
  { events: readJson("hand-events"), record, totals: readJson("hand-totals"), house }));
