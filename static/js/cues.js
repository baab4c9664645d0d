// Your-turn cues at the live table (table.js calls `cues(view)` after drawing each view):
// - a short beep (WebAudio), off until the player turns it on in the table menu (#turn-sound), remembered in
//   localStorage;
// - the tab's title flashes while the tab is hidden and it is the player's turn;
// - a phone vibrates when the turn comes (navigator.vibrate, where the browser has it);
// - the screen stays awake while the player is seated (the Screen Wake Lock API), and is let go when not.
/* global gettext */

const SOUND_KEY = "halfpoint.turnSound";
const FLASH_MS = 1000;
// A moment that waits for this player: their turn in the hand, their bet, or a bank decision put to them.
const DECISIONS = ["confirm", "open_bank", "take_bank", "refill"];

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
  if (v.phase === "betting" || v.phase === "bank_decision") {
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
function momentKey(v) {
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
