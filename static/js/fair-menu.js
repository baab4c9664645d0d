// The table menu's "Fair deal" tab (docs/fairness.md): the codes of the deal under way and of the hand just over, this
// browser's seed for the next deal (typed or random), and the fair deal's lines of the feed. table.js loads this module
// when the tab is first opened and calls `draw` while it is open; the table itself shows one line (#fair-deal).
import { h } from "./dom.js";

const $ = (sel) => document.querySelector(sel);
const fmt = (s, o) => interpolate(s, o, true);
let T; // the table's state and helpers (table.js `fairApi`)
const drawn = { now: "", log: -1 };

/** The tab's codes: the commitment of the deal under way and the seeds in, the server seed of the hand just over. */
function drawNow() {
  const v = T.V();
  const deal = v.fair_deal;
  const hand = v.hand;
  const over = hand && hand.over && v.seed ? hand : null;
  const key = JSON.stringify([deal, over && over.no, v.you]);
  if (key === drawn.now) return; // unchanged: keeps a selection the player is copying
  drawn.now = key;
  const box = $("#fair-now");
  box.textContent = "";
  if (over) {
    box.append(h("p", { id: "fair-last" }, fmt(gettext("hand %(n)s is over; its server seed:"), { n: over.no }), " ",
      h("code", { id: "fair-server-seed", text: v.seed }), " ",
      h("a", { href: T.cfg.hand_url.replace("{n}", over.no), id: "fair-check", class: "button secondary small", text: gettext("Verify") })));
  }
  if (!deal) return;
  const line = deal.open ? gettext("hand %(n)s, before the first card, SHA-256 of the server's secret seed:")
    : gettext("hand %(n)s is dealt from the server seed whose SHA-256 is");
  box.append(h("p", { class: "fair-line" }, fmt(line, { n: deal.hand_no }), " ",
    h("code", { id: "fair-commitment", "data-hand": deal.hand_no, text: deal.commitment }), " ",
    h("button", { type: "button", class: "secondary copy small", id: "fair-copy",
      onclick: () => T.copy(deal.commitment, gettext("Commitment copied.")) }, gettext("Copy"))));
  const names = Object.keys(deal.seeds).map((id) => (id === v.you ? gettext("you") : T.name(id)));
  const mine = deal.seeds[v.you];
  box.append(h("p", { class: "small muted", id: "fair-seeds" },
    names.length ? fmt(gettext("Player seeds in: %(names)s."), { names: names.join(pgettext("between the items of a list", ", ")) }) : gettext("No player seed in yet."),
    mine ? [" ", gettext("Yours:"), " ", h("code", { id: "fair-mine", text: mine })] : null));
}

/** This browser's seed for the open deal (or the one that went into the hand dealt). */
function drawMine() {
  const v = T.V();
  const deal = v && v.fair_deal;
  const n = deal ? deal.hand_no : (v ? v.hand_no + 1 : 1);
  const mine = deal && deal.open ? T.seedFor(n) : (deal && v.you && deal.seeds[v.you]) || T.S.typedSeed;
  $("#fair-my-hand").textContent = n;
  $("#fair-my-seed").textContent = mine || gettext("a new random seed, drawn when the server commits");
  $("#fair-my-state").textContent = mine && deal && v.you && deal.seeds[v.you] === mine ? gettext("(the table has it)") : "";
}

/** The fair deal's lines of the feed (feed.js marks them `fair`: the commitment, the seeds in, the server seed
 * revealed), left out of the table's feed. */
function drawLog() {
  if (drawn.log === T.S.feedRev) return;
  drawn.log = T.S.feedRev;
  let log = $("#fair-log");
  if (!log) {
    log = h("ol", { id: "fair-log", class: "feed", tabindex: "0", "aria-labelledby": "fair-log-title" });
    $("#fair-panel").append(h("h3", { id: "fair-log-title", text: gettext("The fair deal, step by step") }), log);
  }
  log.textContent = "";
  for (const l of T.S.feed) if (l.fair) log.append(h("li", { class: [l.type, l.minor && "minor"].filter(Boolean).join(" "), text: l.text }));
}

/** The player's own seed (or a new random one, `seed` null) for the open deal, sent again if one went in already;
 * between deals, for the next one. Used for that deal only: the next draws a random seed again. */
function useSeed(seed) {
  const v = T.V();
  const deal = v && v.fair_deal;
  const S = T.S;
  if (deal && deal.open) {
    S.seeds[deal.hand_no] = seed || T.randomSeed();
    if (v.you && deal.seeds[v.you]) S.seedAction = T.send("seed", {}, { busy: false });
  } else {
    S.typedSeed = seed;
  }
  drawMine();
  T.toast(seed ? gettext("Your seed goes into the next deal.") : gettext("A new random seed goes into the next deal."), "ok");
}

function bind() {
  $("#fair-seed-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("#fair-seed-input").value.trim();
    if (!/^[0-9a-fA-F]{64}$/.test(text)) {
      T.toast(gettext("A seed is 64 hexadecimal digits (0-9 and a-f)."));
      return;
    }
    useSeed(text.toLowerCase());
  });
  $("#fair-seed-random").addEventListener("click", () => useSeed(null));
}

/** Draw the tab (table.js calls this on every render and feed change while the tab is open). */
export function draw(api) {
  if (!T) {
    T = api;
    bind();
  }
  if (!T.V()) return;
  drawNow();
  drawMine();
  drawLog();
}
