// The room's frames and controls beyond the table's own (docs/protocol.md), each feature in its own module loaded on
// its first frame or first click, so the table page carries none of them until they are used (its weight:
// tests/e2e/test_csp.py). table.js sends here every frame its switch does not know, and every click on an element
// with `data-more` (a module's name below). A module exports onFrame(frame) and onClick(element) as it needs, and
// reaches the table through `window.halfpoint` ({ state, socket, render, toast, refusal }).
const MODULES = {
  "clock-ask": () => import("./clock-ask.js"),
  phrases: () => import("./phrases.js"),
  closed: () => import("./closed.js"),
  "buy-in-approval": () => import("./buy-in-approval.js"),
  vote: () => import("./vote.js"),
  tv: () => import("./tv.js"),
};
// Frame type -> module.
const FRAMES = {
  clock_asked: "clock-ask",
  clock_answered: "clock-ask",
  phrase_said: "phrases",
  reacted: "phrases",
  closed: "closed",
  buy_in_asked: "buy-in-approval",
  buy_in_answered: "buy-in-approval",
  vote_opened: "vote",
  vote_tally: "vote",
  vote_ended: "vote",
  vote_anytime: "vote",
  tv: "tv",
  tv_ask: "tv",
  tv_consent: "tv",
  spectators: "tv",
  spectator_removed: "tv",
  spectators_mode: "tv",
};

export function onFrame(f) {
  const name = FRAMES[f.type];
  if (name) MODULES[name]().then((m) => m.onFrame(f));
}

export function onClick(el) {
  const load = MODULES[el.dataset.more];
  if (load) load().then((m) => m.onClick(el));
}
