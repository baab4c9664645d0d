// The hand record page: draw the cards and run the shuffle check in this browser.
import { hydrate, paint, setDeck } from "./cards.js";
import { verifyHand } from "./verify.js";

const fmt = (s, o) => interpolate(s, o, true);
const data = JSON.parse(document.getElementById("verify-data").textContent);
setDeck(data.deck);
hydrate();
const status = document.getElementById("verify-status");
const list = document.getElementById("verify-results");

function line(id, ok, text) {
  const li = document.createElement("li");
  li.id = id;
  li.dataset.ok = ok ? "true" : "false";
  const mark = document.createElement("span");
  mark.className = ok ? "ok" : "bad";
  mark.textContent = ok ? "✓ " : "✗ ";
  li.append(mark, text);
  list.append(li);
}

async function run() {
  list.textContent = "";
  if (!window.crypto || !crypto.subtle) {
    status.textContent = gettext("This browser cannot compute SHA-256 here (Web Crypto needs HTTPS).");
    return;
  }
  status.textContent = gettext("Checking…");
  const result = await verifyHand(data);
  line("verify-commitment", result.commitmentOk, fmt(gettext("SHA-256 of the seed is %(hash)s: it matches the commitment shown when the hand started."), { hash: result.commitment }));
  if (!result.commitmentOk) {
    list.lastChild.lastChild.textContent = fmt(gettext("SHA-256 of the seed is %(hash)s: it does not match the commitment."), { hash: result.commitment });
  }
  const dealt = result.segments.reduce((n, s) => n + s.dealt.length, 0);
  line("verify-deck", result.deckOk, result.deckOk
    ? fmt(gettext("The deck shuffled with this seed deals exactly the %(n)s cards of this hand, in order."), { n: dealt })
    : gettext("The deck shuffled with this seed does not deal the cards of this hand."));
  if (result.dice) {
    line("verify-dice", result.diceOk, fmt(gettext("The dice from this seed: %(a)s and %(b)s."), { a: result.dice[0], b: result.dice[1] }));
  }
  const view = document.getElementById("verify-deckview");
  view.textContent = "";
  for (const segment of result.segments) {
    if (result.segments.length > 1) {
      const title = document.createElement("p");
      title.className = "muted small";
      title.textContent = fmt(gettext("Stream \"%(label)s\":"), { label: segment.label });
      view.append(title);
    }
    const row = document.createElement("div");
    row.className = "deck-order";
    segment.order.forEach((code, i) => {
      const el = paint(document.createElement("span"), code);
      if (i < segment.dealt.length) el.classList.add(segment.dealt[i] === code ? "dealt" : "mismatch");
      row.append(el);
    });
    view.append(row);
  }
  status.dataset.ok = result.ok ? "true" : "false";
  status.className = result.ok ? "ok" : "bad";
  status.textContent = result.ok ? gettext("Verified: this hand was dealt from the committed shuffle.")
    : gettext("Not verified: see the lines below.");
}

if (data.stacked) {
  status.textContent = gettext("This hand was dealt from a deck stacked by a test script; it does not verify, by design.");
} else {
  document.getElementById("verify-run").addEventListener("click", run);
  run();
}
