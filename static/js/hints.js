// The first-visit hint on the table (templates/games/_hint.html: the two or three controls that matter in this
// room's game), shown until the player closes it; remembered per game in localStorage, so each game explains
// itself once. On a phone the controls stick to the bottom of the screen and the felt fills the rest: there the
// hint is a one-line "How to play" above the felt that opens on a tap; on a wider screen it is open above the controls.
const box = document.getElementById("table-hint");
const KEY = box && `halfpoint.hint.${box.dataset.preset}`;

function seen() {
  try {
    return localStorage.getItem(KEY) === "1";
  } catch {
    return false; // storage refused (private mode): show the hint, it can still be closed for this page
  }
}

function remember() {
  try {
    localStorage.setItem(KEY, "1");
  } catch {
    // nothing to keep it in: closed for this page only
  }
}

const felt = document.getElementById("felt");
const actions = document.getElementById("actions");
if (box && felt && actions && !seen()) {
  const phone = window.matchMedia("(max-width: 700px)").matches;
  box.open = !phone;
  (phone ? felt : actions).before(box);
  box.hidden = false;
  document.getElementById("table-hint-close").addEventListener("click", () => {
    remember();
    box.remove();
  });
}

// The controls' key hints (the H, S and Enter beside Hit, Stand and Confirm) show only once the player uses a
// keyboard on the page: a key pressed outside a text field (a phone's on-screen keyboard types into one), or Tab
// anywhere. Kept for the tab's session (sessionStorage), so a reload keeps them; a touch screen never sees them.
const KEYS = "halfpoint.keys";

function keysShown() {
  document.body.classList.add("keys");
  try {
    sessionStorage.setItem(KEYS, "1");
  } catch {
    // storage refused: shown for this page
  }
}

try {
  if (sessionStorage.getItem(KEYS) === "1") document.body.classList.add("keys");
} catch {
  // storage refused: hidden until a key is pressed
}

function onKey(e) {
  if (e.isComposing || e.key === "Unidentified" || e.key === "Process") return; // an on-screen keyboard's composing
  const field = e.target.closest && e.target.closest("input, textarea, select, [contenteditable]");
  if (field && e.key !== "Tab") return;
  keysShown();
  document.removeEventListener("keydown", onKey, true);
}
if (!document.body.classList.contains("keys")) document.addEventListener("keydown", onKey, true);
