// The table page once its room has closed (docs/protocol.md, "The closed state"): the `closed` frame comes here
// (static/js/room-frames.js) after table.js has drawn the table as closed. What a closed room no longer offers goes
// (the invite link and its buttons, the offer of notifications, sitting as a side bettor: static/css/closed.css
// hides them by the body's class, so a later drawing of the table cannot bring them back), and the page says where the
// night's record is: the settle-up (the ledger page), the list of hands and the hash chain, as a reload would.
import { h } from "./dom.js";
import { addWords, fmt, pgettext } from "./i18n.js";

// The words of this module and of the ledger's log and matrix (static/js/ledger.js): their own catalog.
export const nightWords = () => addWords("night record", "/jsi18n/night/");

/** The room's pages, from the Ledger tab's JSON address (/r/<code>/ledger.json?room=<id>). */
function urls() {
  const panel = document.getElementById("ledger-panel");
  const json = new URL(panel ? panel.dataset.url : location.href, location.href);
  const base = json.pathname.replace(/ledger\.json$/, "");
  return { settle: `${base}ledger/${json.search}`, hands: `${base}hands/${json.search}`, chain: `${base}chain/${json.search}` };
}

function draw() {
  if (document.getElementById("room-closed")) return;
  const u = urls();
  const link = (id, href, text) => h("a", { id, href, text });
  const box = h("p", { class: "card", id: "room-closed", role: "status" },
    h("strong", { text: pgettext("night record", "This room is closed.") }), " ",
    link("room-closed-settle", u.settle, pgettext("night record", "Settle up")), " · ",
    link("room-closed-hands", u.hands, pgettext("night record", "Hands")), " · ",
    link("room-closed-chain", u.chain, pgettext("night record", "The room's hash chain")));
  const S = window.halfpoint ? window.halfpoint.state : {};
  const voided = (S.events || []).find((e) => e.type === "hand_voided");
  if (voided) {
    // The hand the close voided (games/engine/void.py) has no results to show: the card says what became of it.
    box.append(h("br"), h("span", { id: "room-closed-voided",
      text: fmt(pgettext("night record", "Hand %(n)s was voided: nobody had staked on it, and no chip moved."), { n: voided.hand_no }) }));
    const results = document.getElementById("results");
    if (results) results.hidden = true;
  }
  const wrap = document.querySelector(".table-wrap");
  if (wrap) wrap.before(box);
  else document.body.append(box);
}

export function onFrame(f) {
  if (f.type !== "closed") return;
  document.body.classList.add("room-closed");
  // The box that says the room is closed comes once the stylesheet that hides what it no longer offers is in: never
  // a closed room's box beside a live invite link.
  let styled = Promise.resolve();
  if (!document.getElementById("closed-css")) {
    const link = h("link", { rel: "stylesheet", id: "closed-css", href: new URL("../css/closed.css", import.meta.url).href });
    styled = new Promise((done) => { link.onload = done; link.onerror = done; });
    document.head.append(link);
  }
  const invite = document.getElementById("invite-url");
  if (invite) invite.value = ""; // the link leads nowhere now
  Promise.all([styled, nightWords()]).then(draw);
}
