// A room's hash chain page: check every link and every hand the player may read, in this browser (fair.js).
import { verifyChain } from "./fair.js";
import { showStatus } from "./fair-report.js";

const data = JSON.parse(document.getElementById("chain-data").textContent);
const status = document.getElementById("chain-status");

async function run() {
  if (!data.hands.length) return;
  if (!window.crypto || !crypto.subtle) {
    status.textContent = gettext("This browser cannot compute SHA-256 here (Web Crypto needs HTTPS).");
    return;
  }
  status.textContent = gettext("Checking…");
  // An older page starts after the room's first hand: its first link is checked on the page before (the "older" link).
  const first = data.hands[0];
  const trust = first.chain && first.prev && first.hand_no > 1 ? { hand_no: first.hand_no - 1, hash: first.prev } : null;
  const result = await verifyChain(data, { trust });
  for (const row of result.rows) {
    const cell = document.querySelector(`#chain-table tr[data-hand="${row.hand_no}"] .chain-check`);
    cell.dataset.ok = row.ok ? "true" : "false";
    cell.className = `chain-check ${row.ok ? "ok" : "bad"}`;
    cell.textContent = !row.ok ? gettext("✗ broken") : row.record && row.link ? gettext("✓ record and link")
      : row.record ? gettext("✓ record") : row.link ? gettext("✓ link") : "—";
  }
  showStatus(status, result.ok, gettext("Every link holds, and every hand you may read matches its hash."),
    gettext("The chain does not hold: see the hands marked ✗."));
}

run();
