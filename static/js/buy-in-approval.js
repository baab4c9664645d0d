// Buy-ins the host approves (docs/protocol.md, "Buy-ins the host approves"). In a room that asks for it, a player's
// sit or top-up becomes a request (`buy_in_asked`): the player's page says it waits for the host, with the time left;
// the host's page lists every request with Approve and Refuse; the answer (`buy_in_answered`) reaches the player as a
// toast. A request the host leaves past its deadline has lapsed by itself: both pages see the deadline pass.
// static/js/room-frames.js loads this module on the first such frame (a page connecting is sent the requests still
// waiting: the host's all of them, a player's their own). The frames carry codes, ids, amounts and the asker's name:
// the words are this page's, of the context "buy-in approval", from /jsi18n/approve/ (config/urls.py).
import { h } from "./dom.js";
import { number } from "./format.js";
import { addWords, fmt, gettext, pgettext } from "./i18n.js";

const T = () => window.halfpoint;
const loadWords = () => addWords("buy-in approval", "/jsi18n/approve/");
document.head.append(h("link", { rel: "stylesheet", href: new URL("../css/buy-in-approval.css", import.meta.url).href }));
const asks = new Map(); // request id -> its `buy_in_asked` frame, while it waits
let ticking = null;

const me = () => T().state.me && T().state.me.user;
const now = () => Date.now() / 1000 + (T().state.skew || 0);

function isHost() {
  const S = T().state;
  const seat = S.view && S.view.seats.find((x) => x.id === S.view.you);
  return seat ? !!seat.host : !!(S.room && S.room.host.id === me());
}

function left(ask) {
  const s = Math.max(0, Math.ceil(ask.deadline - now()));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function place(id, fresh) {
  const box = document.getElementById(id);
  if (!fresh) {
    if (box) box.remove();
  } else if (box) box.replaceWith(fresh);
  else (document.querySelector(".table-wrap") || document.body).before(fresh);
}

// The player's own request: what it is, that nothing is held yet, and the time left.
function waitNotice() {
  const mine = [...asks.values()].find((a) => a.user === me());
  place("buy-in-wait", mine && h("div", { id: "buy-in-wait", class: "push-offer", role: "status" },
    h("p", { text: fmt(mine.kind === "sit"
      ? pgettext("buy-in approval", "Waiting for the host to approve your buy-in of %(amount)s.")
      : pgettext("buy-in approval", "Waiting for the host to approve your top-up of %(amount)s."), { amount: number(mine.amount) }) }),
    h("p", { class: "small", text: fmt(pgettext("buy-in approval", "Nothing is held until then. Time left: %(time)s."), { time: left(mine) }) })));
}

// The host's list: one line per request, with its own Approve and Refuse.
function hostNotice() {
  const waiting = isHost() ? [...asks.values()] : [];
  const answer = (type, ask, row) => {
    for (const b of row.querySelectorAll("button")) b.disabled = true;
    if (!T().socket.send({ type, request: ask.request })) T().toast(gettext("Not connected: wait a moment and try again."));
    // Answered by the room's `buy_in_answered`, which takes the line away; a refusal leaves it to try again.
    setTimeout(() => { for (const b of row.querySelectorAll("button")) b.disabled = false; }, 3000);
  };
  place("buy-in-notice", waiting.length > 0 && h("div", { id: "buy-in-notice", class: "push-offer buy-in-notice", role: "alert" },
    waiting.map((ask) => {
      const row = h("div", { class: "row push-offer-buttons", "data-request": ask.request });
      row.append(
        h("p", { text: fmt(ask.kind === "sit"
          ? pgettext("buy-in approval", "%(name)s asks to buy in for %(amount)s (%(time)s left).")
          : pgettext("buy-in approval", "%(name)s asks to top up %(amount)s (%(time)s left)."), { name: ask.name, amount: number(ask.amount), time: left(ask) }) }),
        h("button", { type: "button", class: "primary", "data-approve": ask.request, text: pgettext("buy-in approval", "Approve"),
          onclick: () => answer("buy_in_approve", ask, row) }),
        h("button", { type: "button", class: "secondary", "data-refuse": ask.request, text: pgettext("buy-in approval", "Refuse"),
          onclick: () => answer("buy_in_refuse", ask, row) }));
      return row;
    })));
}

function draw() {
  for (const [id, ask] of asks) {
    if (ask.deadline > now()) continue;
    asks.delete(id); // lapsed: nothing was held
    if (ask.user === me()) T().toast(pgettext("buy-in approval", "The host did not answer in time: nothing was held. You may ask again."), "info");
  }
  waitNotice();
  hostNotice();
  if (asks.size && !ticking) ticking = setInterval(draw, 1000);
  if (!asks.size && ticking) ticking = clearInterval(ticking) || null;
}

const TOLD = {
  "sit approved": () => pgettext("buy-in approval", "The host approved your buy-in."),
  "top_up approved": () => pgettext("buy-in approval", "The host approved your top-up."),
  "sit refused": () => pgettext("buy-in approval", "The host refused your buy-in: nothing was held."),
  "top_up refused": () => pgettext("buy-in approval", "The host refused your top-up: nothing was held."),
};

/** A `buy_in_asked` or `buy_in_answered` frame (table.js passes them on). */
export function onFrame(f) {
  loadWords().then(() => {
    if (f.type === "buy_in_asked") asks.set(f.request, f);
    else {
      asks.delete(f.request);
      const told = TOLD[`${f.kind} ${f.outcome}`];
      if (f.user === me() && told) T().toast(told(), f.outcome === "approved" ? "ok" : "error");
    }
    draw();
  });
}
