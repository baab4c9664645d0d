// Your-turn cues at the live table (table.js calls `cues(view)` after drawing each view):
// - a short beep (WebAudio), off until the player turns it on in the table menu (#turn-sound), remembered in
//   localStorage;
// - the tab's title flashes while the tab is hidden and it is the player's turn;
// - a phone vibrates when the turn comes (navigator.vibrate, where the browser has it);
// - the screen stays awake while the player is seated (the Screen Wake Lock API), and is let go when not;
// - the time left on the player's own countdown is said to a screen reader (#time-live) at the moments chosen in the
//   table menu (#time-cue: at 10 s and 5 s, at 5 s only, never), remembered in localStorage; the countdown drawn on
//   the table is not read out as it runs.
/* global gettext, ngettext, interpolate */

const SOUND_KEY = "halfpoint.turnSound";
const TIME_KEY = "halfpoint.timeCue";
const TIME_DEFAULT = "10,5";
const FLASH_MS = 1000;
// A moment that waits for this player: their turn in the hand, their bet, a bank decision, their bid for the bank.
const DECISIONS = ["confirm", "open_bank", "take_bank", "refill", "bid"];

const state = { mine: false, key: null, seated: false, flashing: null, title: document.title, lock: null, audio: null };

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage refused (private mode, a policy): the sound stays off
  }
}

export function soundOn() {
  const s = storage();
  return !!s && s.getItem(SOUND_KEY) === "1";
}

function setSound(on) {
  const s = storage();
  if (s) s.setItem(SOUND_KEY, on ? "1" : "0");
  if (on) beep(); // the click is the gesture that lets the page play sound; it also lets the player hear it
}

export function isMyTurn(v) {
  if (!v || !v.you) return false;
  if (v.phase === "playing") return !!(v.hand && v.hand.turn && v.hand.turn.seat === v.you && !v.hand.over);
  if (["betting", "bank_decision", "auction"].includes(v.phase)) {
    return (v.legal_actions || []).some((a) => DECISIONS.includes(a));
  }
  return false;
}

function beep() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  try {
    state.audio = state.audio || new Ctx();
    const ctx = state.audio;
    if (ctx.state === "suspended") ctx.resume();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = 880;
    const t = ctx.currentTime;
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.2, t + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.18);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t);
    osc.stop(t + 0.2);
  } catch {
    /* no audio device: the other cues remain */
  }
}

function flash(on) {
  if (on && !state.flashing) {
    state.title = document.title;
    let shown = false;
    const turn = gettext("Your turn!");
    const step = () => {
      shown = !shown;
      document.title = shown ? turn + " · " + state.title : state.title;
    };
    step();
    state.flashing = setInterval(step, FLASH_MS);
  } else if (!on && state.flashing) {
    clearInterval(state.flashing);
    state.flashing = null;
    document.title = state.title;
  }
}

async function keepAwake(on) {
  const api = navigator.wakeLock;
  if (!api) return;
  if (on && !state.lock && document.visibilityState === "visible") {
    try {
      state.lock = await api.request("screen");
      state.lock.addEventListener("release", () => { state.lock = null; }); // the browser lets go when hidden
    } catch {
      state.lock = null; // refused (battery saver, a policy): the screen sleeps as usual
    }
  } else if (!on && state.lock) {
    const lock = state.lock;
    state.lock = null;
    lock.release().catch(() => {});
  }
}

function update() {
  flash(document.hidden && state.mine);
  keepAwake(state.seated);
}

// Which of the player's moments this is: a new one (the bet, then the turn, of a hand; a split's next hand) cues
// again, a redraw of the same one does not.
export function momentKey(v) {
  const turn = v.phase === "playing" && v.hand && v.hand.turn ? v.hand.turn.hand : "";
  return [v.hand_no, v.phase, turn].join(":");
}

// Called by table.js after every drawing of the viewer's view.
export function cues(view) {
  const mine = isMyTurn(view);
  const key = mine ? momentKey(view) : null;
  if (mine && key !== state.key) {
    if (soundOn()) beep();
    if (typeof navigator.vibrate === "function") navigator.vibrate(200);
  }
  state.key = key;
  state.mine = mine;
  state.seated = !!(view && view.you);
  update();
}

document.addEventListener("visibilitychange", update); // flash once hidden; awake again once visible

const toggle = document.getElementById("turn-sound");
if (toggle) {
  toggle.checked = soundOn();
  toggle.addEventListener("change", () => setSound(toggle.checked));
}

// --- the time left, said ---------------------------------------------------------------------------------------

/** The seconds left at which the time is said, highest first: the menu's choice, or 10 and 5. */
export function timeMoments() {
  const s = storage();
  const kept = s && s.getItem(TIME_KEY);
  const value = kept === null || kept === undefined ? TIME_DEFAULT : kept;
  return value.split(",").map(Number).filter((n) => Number.isInteger(n) && n > 0).sort((a, b) => b - a);
}

const time = { deadline: null, left: null };
const timeLive = document.getElementById("time-live");

/** Called by table.js with each tick: the deadline that waits for this player (null when none does) and the whole
 * seconds left to it. A moment is said once, when the count reaches it (not when a page opens past it), and a tab
 * that slept past several says the time left once. */
export function timeCue(deadline, left) {
  if (deadline === null || deadline === undefined || left === null) {
    time.deadline = null;
    return;
  }
  if (deadline !== time.deadline) {
    time.deadline = deadline;
    time.left = left;
    return;
  }
  const reached = timeMoments().some((t) => left <= t && time.left > t);
  time.left = left;
  if (!reached || !timeLive) return;
  timeLive.append(Object.assign(document.createElement("p"), {
    textContent: interpolate(ngettext("%(n)s second left", "%(n)s seconds left", left), { n: left }, true),
  }));
  while (timeLive.childNodes.length > 2) timeLive.firstChild.remove();
}

const timeChoice = document.getElementById("time-cue");
if (timeChoice) {
  const moments = timeMoments().join(",");
  timeChoice.value = [...timeChoice.options].some((o) => o.value === moments) ? moments : TIME_DEFAULT;
  timeChoice.addEventListener("change", () => {
    const s = storage();
    if (s) s.setItem(TIME_KEY, timeChoice.value);
  });
}
