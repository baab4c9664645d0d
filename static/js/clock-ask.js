// Asking the host for a longer clock (docs/protocol.md, `clock_ask`): a seated player asks (the table menu's button,
// the screen-reader mode's K key: static/js/blind.js); the host's page shows a notice (role alert) with +10 s, +20 s,
// +30 s and "Not now"; the asker hears the answer as a toast. static/js/room-frames.js loads this module on the first
// `clock_asked` or `clock_answered` frame, or the menu's button. The frames carry codes and ids only: the words are
// this page's.
// They carry the context "screen reader" and come from /jsi18n/blind/ (config/urls.py), as the mode's words do.
// The table's state and socket are table.js's `window.halfpoint`.
import { h } from "./dom.js";
import { addWords, fmt, gettext, pgettext } from "./i18n.js";

const C = "screen reader"; // the words' context; each call names it literally, for makemessages to find them
const GRANTS = [10, 20, 30]; // the seconds the server accepts (games/services/clock_ask.py)
const T = () => window.halfpoint;

const loadWords = () => addWords(C, "/jsi18n/blind/"); // with the screen-reader mode's, once

function toast(text, kind) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.className = "toast " + kind;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

const me = () => T().state.me && T().state.me.user;

function isHost() {
  const S = T().state;
  const seat = S.view && S.view.seats.find((x) => x.id === S.view.you);
  return seat ? !!seat.host : !!(S.room && S.room.host.id === me());
}

/** Ask the host for a longer clock (the menu's button, the screen-reader mode's K). The answer is the room's
 * `clock_asked` frame, or an `error` that table.js words (static/js/errors.js). False when not connected. */
export function askClock() {
  return loadWords().then(() => {
    const sent = T().socket.send({ type: "clock_ask" });
    if (!sent) toast(gettext("Not connected: wait a moment and try again."), "error");
    return sent;
  });
}

// The host's notice: one line per player waiting for an answer (user id -> seat id), and the answers.
const waiting = new Map();

function notice() {
  let box = document.getElementById("clock-notice");
  if (!waiting.size || !isHost()) {
    if (box) box.remove();
    return;
  }
  const names = T().state.names || {};
  const lines = [...waiting.values()].map((seat) =>
    h("p", { text: fmt(pgettext("screen reader", "%(name)s asks for a longer clock"), { name: names[seat] || gettext("a player who left") }) }));
  const answer = (message) => {
    for (const b of box.querySelectorAll("button")) b.disabled = true;
    if (!T().socket.send(message)) toast(gettext("Not connected: wait a moment and try again."), "error");
    // Answered by the room's `clock_answered` frame, which takes the notice away; a refusal leaves it to try again.
    setTimeout(() => { for (const b of box.querySelectorAll("button")) b.disabled = false; }, 3000);
  };
  const buttons = h("div", { class: "row push-offer-buttons" },
    GRANTS.map((n) => h("button", {
      type: "button", class: n === 20 ? "primary" : "secondary", "data-grant": n, text: fmt(pgettext("screen reader", "+%(n)s s"), { n }),
      "aria-label": fmt(pgettext("screen reader", "%(n)s seconds more on every clock"), { n }),
      onclick: () => answer({ type: "clock_grant", seconds: n }),
    })),
    h("button", { type: "button", class: "secondary", id: "clock-dismiss", text: pgettext("screen reader", "Not now"),
      onclick: () => answer({ type: "clock_dismiss" }) }));
  const fresh = h("div", { id: "clock-notice", class: "push-offer clock-notice", role: "alert" }, lines, buttons);
  if (box) box.replaceWith(fresh);
  else (document.querySelector(".table-wrap") || document.body).before(fresh);
  box = fresh;
}

/** A `clock_asked` or `clock_answered` frame (table.js passes them on). */
export function onFrame(f) {
  loadWords().then(() => {
    if (f.type === "clock_asked") {
      waiting.set(f.user, f.seat);
      // The screen-reader mode answers its own K key (#blind-answer): no second announcement there.
      if (f.user === me() && !document.body.classList.contains("blind")) {
        toast(pgettext("screen reader", "You asked the host for a longer clock."), "ok");
      }
    } else if (f.type === "clock_answered") {
      for (const user of f.users || []) waiting.delete(user);
      if ((f.users || []).includes(me())) {
        toast(f.outcome === "granted"
          ? fmt(pgettext("screen reader", "The host gave every clock %(n)s seconds more, from the next hand."), { n: f.seconds })
          : pgettext("screen reader", "The host keeps the clock as it is for now."), f.outcome === "granted" ? "ok" : "info");
      }
    }
    notice();
  });
}

/** The menu's button (`data-more="clock-ask"`). */
export const onClick = () => askClock();
