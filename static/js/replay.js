// The replay on a hand's record page: the table as it stood after each event of the finished hand, every card face
// up, stepped through with the buttons or the keys, and a link to any step (#step=7). It is drawn in this browser
// from what the page holds: the hand's events (those the record lists), its record (names, order) and the engine's
// count of each hand as it grew (games/hand_records.py, hand_totals). Cards are drawn by cards.js and the events
// told in the table feed's words (feed.js); the felt, seats and hands use the live table's markup and styles
// (table.js, table.css).
import { cardEl } from "./cards.js";
import { h } from "./dom.js";
import { CLASS_NAMES, createTeller, OUTCOMES, showTotal } from "./feed.js";
import { number } from "./format.js";
import { each } from "./house.js";
import { fmt, gettext, pgettext } from "./i18n.js";

const PLAY_MS = 1200; // one step of the autoplay

// --- the table after each event ---------------------------------------------------------------------

function emptyTable() {
  return { hand_no: null, banker: null, bank: null, seats: {}, ids: [], order: [], dice: null, turn: null, deltas: null, over: false };
}

function seatOf(t, id) {
  if (!t.seats[id]) {
    t.seats[id] = { id, bet: null, side: null, sideBettor: false, hands: [], results: [], escaped: false };
    t.ids.push(id);
  }
  return t.seats[id];
}

function handOf(seat, index) {
  while (seat.hands.length <= index) seat.hands.push({ cards: [], stake: null, doubled: false, stood: false });
  return seat.hands[index];
}

/** `t` changed by one event (docs/protocol.md, "Events"); events that change nothing drawn are left alone. */
function apply(t, e) {
  const i = typeof e.hand === "number" ? e.hand : 0;
  switch (e.type) {
    case "hand_started":
      Object.assign(t, emptyTable(), { hand_no: e.hand_no, banker: e.banker, bank: e.bank });
      if (e.banker) seatOf(t, e.banker); // none yet when the hand starts with the bank auction (house-rules.md)
      for (const id of e.challengers || []) seatOf(t, id);
      break;
    case "auction_won": // the bank auction's winner banks (house-rules.md)
      Object.assign(t, { banker: e.seat, bank: e.bank });
      break;
    case "bet_changed":
      seatOf(t, e.seat).bet = { amount: e.amount, confirmed: false };
      break;
    case "bet_confirmed": case "bet_defaulted":
      seatOf(t, e.seat).bet = { amount: e.amount, confirmed: true };
      break;
    case "side_bet_changed": case "side_bet_confirmed": {
      const seat = seatOf(t, e.seat);
      seat.sideBettor = true;
      seat.side = { backs: e.backs, amount: e.amount, confirmed: e.type === "side_bet_confirmed" };
      break;
    }
    case "side_bet_skipped":
      seatOf(t, e.seat).sideBettor = true;
      break;
    case "dice_rolled":
      t.dice = e.dice;
      break;
    case "betting_closed":
      t.order = e.order || [];
      for (const [id, amount] of Object.entries(e.stakes || {})) seatOf(t, id).bet = { amount, confirmed: true };
      break;
    case "card_dealt":
      handOf(seatOf(t, e.seat), i).cards.push(e.card || null);
      break;
    case "card_discarded": {
      const cards = handOf(seatOf(t, e.seat), i).cards;
      const at = e.card ? cards.lastIndexOf(e.card) : cards.length - 1;
      if (at >= 0) cards.splice(at, 1);
      break;
    }
    case "turn_started":
      t.turn = { seat: e.seat, hand: i };
      break;
    case "action": {
      const seat = seatOf(t, e.seat);
      const ph = handOf(seat, i);
      if (e.action === "split") { // seven-half.md: the second card becomes a hand of its own, right after this one
        const second = ph.cards.pop();
        if (ph.stake === null && seat.bet) ph.stake = seat.bet.amount; // each hand keeps the stake (hand_split)
        seat.hands.splice(i + 1, 0, { cards: second === undefined ? [] : [second], stake: ph.stake, doubled: false, stood: false });
      }
      if (e.action === "stand") ph.stood = true;
      break;
    }
    case "stake_doubled": {
      const ph = handOf(seatOf(t, e.seat), i);
      ph.stake = e.stake;
      ph.doubled = true;
      break;
    }
    case "seat_escaped":
      seatOf(t, e.seat).escaped = true;
      break;
    case "bet_settled":
      seatOf(t, e.bettor).results.push({ kind: e.kind, backs: e.backs, hand: e.hand, outcome: e.outcome,
        multiplier: e.multiplier, paid: e.paid });
      break;
    case "hand_revealed":
      t.turn = null;
      break;
    case "hand_settled":
      t.deltas = e.deltas || {};
      if (typeof e.bank === "number") t.bank = e.bank;
      t.turn = null;
      break;
    case "hand_over":
      t.over = true;
      t.turn = null;
      break;
  }
}

/**
 * The steps of a hand: one per event from `hand_started` to `hand_over` that the feed tells in a line of its own
 * (the details it marks minor, such as a bet being built up chip by chip or a turn starting, are folded into the
 * next step). Each step: {event (its index in `events`), seat (the seat it is about, or null), text (its words),
 * table (the table after it)}. `record`: the hand's record (names, game, final hands).
 */
export function replaySteps(events, record, house = []) {
  const first = events.findIndex((e) => e.type === "hand_started");
  if (first < 0) return [];
  const end = events.findIndex((e, k) => k > first && e.type === "hand_over");
  const last = end < 0 ? events.length - 1 : end;
  const names = record.names || {};
  const finalHand = (seat, index) => {
    const ph = ((record.hands || {})[seat] || [])[index];
    return ph ? { cards: ph.cards.length, total: ph.total, class: ph.class, bust: ph.bust } : null;
  };
  const teller = createTeller({ name: (id) => names[id] || id, game: () => record.game, handOf: finalHand, house });
  const table = emptyTable();
  const steps = [];
  for (let k = first; k <= last; k++) {
    const e = events[k];
    apply(table, e);
    const lines = teller.tell(e);
    if (!lines.some((l) => !l.minor)) continue;
    const seat = e.seat !== undefined ? e.seat : e.bettor !== undefined ? e.bettor : null;
    steps.push({ event: k, type: e.type, seat, text: lines.map((l) => l.text).join(" "), table: structuredClone(table) });
  }
  return steps;
}

// --- drawing one step ---------------------------------------------------------------------------------

const signedPaid = (r) => (!r.paid ? "0" : (r.outcome === "win" ? "+" : "−") + r.paid);
const multiplier = (r) => (r.outcome === "win" || r.outcome === "lose" ? ` ×${r.multiplier}` : "");
const signed = (d) => (d > 0 ? "+" : d < 0 ? "−" : "") + Math.abs(d);

// The felt's outer cells (table.css) clockwise from the top middle, where the bank sits; the challengers follow in
// the order of play around the table.
const RING = ["t2", "t3", "m3", "b3", "b2", "b1", "m1", "t1"];

/** The cell of each main seat: the bank at the top, the others evenly round the felt (none when too many). */
function cells(ids, banker) {
  const others = ids.filter((id) => id !== banker);
  if (others.length >= RING.length) return {};
  const out = { [banker]: RING[0] };
  others.forEach((id, k) => { out[id] = RING[Math.round(((k + 1) * RING.length) / (others.length + 1)) % RING.length]; });
  return out;
}

function handInfo(ph, totals, house) {
  const value = ph.cards.every(Boolean) ? totals[ph.cards.join(" ")] : null;
  const info = [];
  if (value) {
    info.push(value.bust ? fmt(gettext("%(total)s bust"), { total: showTotal(value.total) }) : showTotal(value.total));
    if (value.class && value.class !== "ordinary" && value.class !== "bust") info.push(CLASS_NAMES()[value.class] || value.class);
    for (const more of each(house, "recordInfo", value)) info.push(...more); // the house rules' words (the matta's value)
  }
  if (ph.doubled) info.push(gettext("doubled"));
  if (ph.stood && !(value && value.bust)) info.push(gettext("stands"));
  return info.join(" · ");
}

function seatNode(seat, step, ctx, cell) {
  const t = step.table;
  const banker = seat.id === t.banker;
  const turn = t.turn && t.turn.seat === seat.id;
  const cls = ["seat", banker && "banker", step.seat === seat.id && "turn"].filter(Boolean).join(" ");
  const node = h("div", { class: cls, "data-seat": seat.id, "data-cell": cell },
    h("div", { class: "seat-head" }, h("span", { class: "name", text: ctx.name(seat.id) }),
      banker ? h("span", { class: "badges" }, h("span", { class: "badge bank", text: pgettext("badge of the banker's seat", "bank") })) : null));
  if (banker) {
    node.append(h("div", { class: "seat-chips" }, h("span", { class: "bank", text: fmt(gettext("Bank %(n)s"), { n: number(t.bank) }) })));
  } else if (seat.bet) {
    const stakes = seat.hands.filter((ph) => ph.cards.length || ph.stake !== null);
    const amount = stakes.some((ph) => ph.stake !== null) ? stakes.reduce((sum, ph) => sum + (ph.stake ?? seat.bet.amount), 0) : seat.bet.amount;
    node.append(h("div", { class: "seat-bet" + (seat.bet.confirmed ? " locked" : ""),
      text: fmt(seat.bet.confirmed ? gettext("Bet %(n)s ✓") : gettext("Bet %(n)s …"), { n: number(amount) }) }));
  }
  const hands = h("div", { class: "hands" });
  seat.hands.forEach((ph, i) => {
    const info = handInfo(ph, ctx.totals, ctx.house);
    hands.append(h("div", { class: "hand" + (turn && t.turn.hand === i ? " active" : ""), "data-hand": i },
      h("div", { class: "cards" }, ph.cards.map((card) => cardEl(card ? { card, up: true } : { hidden: true }))),
      info ? h("div", { class: "hand-info", text: info }) : null));
  });
  node.append(hands);
  for (const r of seat.results.filter((x) => x.kind === "main")) {
    node.append(h("div", { class: "seat-result " + r.outcome, "data-outcome": r.outcome },
      `${OUTCOMES()[r.outcome] || r.outcome}${multiplier(r)} ${signedPaid(r)}`));
  }
  if (banker && t.deltas && t.deltas[seat.id] !== undefined) {
    const d = t.deltas[seat.id];
    node.append(h("div", { class: "seat-result " + (d > 0 ? "win" : d < 0 ? "lose" : "push") },
      fmt(gettext("Bank %(d)s"), { d: signed(d) })));
  }
  return node;
}

function drawCenter(box, t, ctx) {
  box.textContent = "";
  if (t.banker) {
    box.append(h("div", { class: "bank-line", text: fmt(gettext("Bank: %(bank)s (%(name)s)"), { bank: number(t.bank), name: ctx.name(t.banker) }) }));
  }
  if (t.dice) {
    box.append(h("div", { class: "replay-dice", text: fmt(gettext("Dice: %(a)s + %(b)s = %(total)s."),
      { a: t.dice[0], b: t.dice[1], total: t.dice[0] + t.dice[1] }) }));
  }
  if (t.order.length) {
    box.append(h("ol", { class: "order", "aria-label": gettext("Order of play") },
      t.order.map((id) => h("li", { class: t.turn && t.turn.seat === id ? "current" : "", "data-seat": id }, ctx.name(id)))));
  }
}

function drawSides(box, t, ctx) {
  const sides = t.ids.map((id) => t.seats[id]).filter((x) => x.sideBettor);
  box.hidden = !sides.length;
  box.textContent = "";
  if (!sides.length) return;
  box.append(h("h3", { text: gettext("Side bettors") }));
  box.append(h("ul", { class: "side-list" }, sides.map((x) => {
    const result = x.results.find((r) => r.kind === "side");
    const bet = x.side;
    return h("li", { "data-seat": x.id }, h("strong", { text: ctx.name(x.id) }),
      bet && bet.backs ? " · " + fmt(bet.confirmed ? gettext("%(amount)s on %(name)s ✓") : gettext("%(amount)s on %(name)s …"),
        { amount: number(bet.amount), name: ctx.name(bet.backs) }) : null,
      result ? h("span", { class: "seat-result " + result.outcome,
        text: ` ${OUTCOMES()[result.outcome] || result.outcome}${multiplier(result)} ${signedPaid(result)}` }) : null);
  })));
}

// --- the player ---------------------------------------------------------------------------------------

/** The step a URL names (#step=7, or ?step=7), 1-based, or null. */
export function stepFromUrl(url) {
  const m = /[#?&]step=(\d+)/.exec(url.hash || "") || /[?&]step=(\d+)/.exec(url.search || "");
  return m ? parseInt(m[1], 10) : null;
}

/**
 * Draw the replay in `root` (templates/games/hand.html's #replay) and wire its controls. `events`: the hand's
 * events; `record`: its record; `totals`: the engine's count of each hand by its cards; `house`: the modules of the
 * house rules the hand's rules turn on (static/js/house.js), which tell their events and add words beside a hand.
 */
export function mountReplay(root, { events, record, totals = {}, house = [] }) {
  const steps = replaySteps(events, record, house);
  if (!steps.length) return null;
  const names = record.names || {};
  const ctx = { name: (id) => names[id] || id, totals, house };
  const $ = (id) => root.querySelector("#" + id);
  const seatsBox = $("replay-seats");
  const layout = record.order && record.order.length ? record.order : steps[steps.length - 1].table.order;
  let at = 0;
  let timer = null;

  const linkTo = (n) => `${location.origin}${location.pathname}#step=${n}`;

  function draw() {
    const step = steps[at];
    const t = step.table;
    root.dataset.step = at + 1;
    root.dataset.event = step.event;
    drawCenter($("replay-center"), t, ctx);
    const mains = t.ids.filter((id) => !t.seats[id].sideBettor);
    // The bank first (a phone lists the seats in this order), then the others in the order of play.
    const ids = [...layout.filter((id) => mains.includes(id)), ...mains.filter((id) => !layout.includes(id))]
      .sort((a, b) => (b === t.banker) - (a === t.banker));
    const where = cells(ids, t.banker);
    seatsBox.textContent = "";
    for (const id of ids) seatsBox.append(seatNode(t.seats[id], step, ctx, where[id]));
    drawSides($("replay-sides"), t, ctx);
    $("replay-count").textContent = fmt(gettext("Step %(n)s of %(total)s"), { n: at + 1, total: steps.length });
    $("replay-line").textContent = step.text;
    $("replay-first").disabled = $("replay-prev").disabled = at === 0;
    $("replay-next").disabled = $("replay-last").disabled = at === steps.length - 1;
    $("replay-url").hidden = true;
    $("replay-copied").textContent = "";
  }

  function go(n, { keepUrl = false } = {}) {
    at = Math.max(0, Math.min(steps.length - 1, n));
    draw();
    if (!keepUrl) history.replaceState(history.state, "", linkTo(at + 1)); // a reload stays here
  }

  function setPlaying(on) {
    clearInterval(timer);
    timer = null;
    if (on) {
      if (at === steps.length - 1) go(0);
      timer = setInterval(() => {
        if (at >= steps.length - 1) setPlaying(false);
        else go(at + 1);
      }, PLAY_MS);
    }
    const button = $("replay-play");
    const label = on ? gettext("Pause") : gettext("Play");
    button.setAttribute("aria-label", label);
    button.title = label;
    button.querySelector(".icon-play").hidden = on;
    button.querySelector(".icon-pause").hidden = !on;
  }
  const stepBy = (n) => { setPlaying(false); go(at + n); };
  const goTo = (n) => { setPlaying(false); go(n); };

  async function copyLink() {
    const n = at + 1;
    const url = linkTo(n);
    const field = $("replay-url");
    field.value = url;
    field.hidden = false;
    let copied = false;
    try {
      await navigator.clipboard.writeText(url);
      copied = true;
    } catch {
      field.select(); // no clipboard here (an insecure page, or refused): the link is shown, selected, to copy by hand
    }
    $("replay-copied").textContent = copied ? fmt(gettext("Link to step %(n)s copied."), { n })
      : gettext("Copy this link to share this step.");
  }

  $("replay-first").addEventListener("click", () => goTo(0));
  $("replay-prev").addEventListener("click", () => stepBy(-1));
  $("replay-next").addEventListener("click", () => stepBy(1));
  $("replay-last").addEventListener("click", () => goTo(steps.length - 1));
  $("replay-play").addEventListener("click", () => setPlaying(timer === null));
  $("replay-copy").addEventListener("click", copyLink);
  // A click on the felt gives the replay the keys.
  $("replay-felt").addEventListener("click", () => { if (!root.contains(document.activeElement)) root.focus({ preventScroll: true }); });

  // The keys act when the focus is in the replay, or on no control at all (the page itself).
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || document.querySelector("dialog[open]")) return;
    const focus = document.activeElement;
    const inside = root.contains(focus);
    if (!inside && focus && focus !== document.body && focus !== document.documentElement) return;
    const tag = (focus && focus.tagName) || "";
    if (["INPUT", "TEXTAREA", "SELECT"].includes(tag)) return;
    if (e.key === "ArrowRight") stepBy(1);
    else if (e.key === "ArrowLeft") stepBy(-1);
    else if (e.key === "Home") goTo(0);
    else if (e.key === "End") goTo(steps.length - 1);
    else if (e.key === " " && tag !== "BUTTON") setPlaying(timer === null); // on a button, Space presses it
    else return;
    e.preventDefault();
  });
  addEventListener("hashchange", () => {
    const n = stepFromUrl(location);
    if (n !== null) { setPlaying(false); go(n - 1, { keepUrl: true }); }
  });

  root.hidden = false;
  setPlaying(false);
  const asked = stepFromUrl(location);
  go(asked === null ? 0 : asked - 1, { keepUrl: true });
  if (asked !== null) root.scrollIntoView({ block: "start" });
  return { steps, go };
}
