// The hand record page: draw the cards, check this hand's fair deal in this browser (fair.js), and check record
// files the player downloaded, with nothing asked of the server once the page has loaded.
import { hydrate, setDeck } from "./cards.js";
import { verifyRecord } from "./fair.js";
import { listChecks, showDeck, showStatus, watchFiles } from "./fair-report.js";

const record = JSON.parse(document.getElementById("verify-data").textContent);
setDeck(record.deck);
hydrate();
const status = document.getElementById("verify-status");
const list = document.getElementById("verify-results");

async function run() {
  list.textContent = "";
  if (!window.crypto || !crypto.subtle) {
    status.textContent = gettext("This browser cannot compute SHA-256 here (Web Crypto needs HTTPS).");
    return;
  }
  status.textContent = gettext("Checking…");
  const result = await verifyRecord(record);
  listChecks(list, result.checks);
  showDeck(document.getElementById("verify-deckview"), result.segments);
  showStatus(status, result.ok, gettext("Verified: this hand was dealt from the committed seed and the players' seeds, and this is the record its chain hash names."),
    gettext("Not verified: see the lines below."));
}

if (record.stacked) {
  status.textContent = gettext("This hand was dealt from a deck stacked by a test script; it does not verify, by design.");
} else {
  document.getElementById("verify-run").addEventListener("click", run);
  run();
}

watchFiles(document.getElementById("verify-files"), document.getElementById("verify-files-status"),
  document.getElementById("verify-files-results"));
