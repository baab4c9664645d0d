// The fair-deal checks (fair.js) as lines a player reads: the hand page, the verify page and the room's chain.
// Reading a file asks nothing of the server: the check runs in this browser, with the network off if need be.
import { paint, setDeck } from "./cards.js";
import { verifyChain, verifyRecord } from "./fair.js";
import { fmt, gettext, ngettext } from "./i18n.js";

function text(check) {
  const ok = check.ok;
  switch (check.id) {
    case "format":
      return gettext("This is not a HalfPoint hand record: it has no 64-digit seed or no list of dealt cards.");
    case "commitment":
      return fmt(ok ? gettext("SHA-256 of the server seed is %(hash)s: it matches the commitment shown before the first card.")
        : gettext("SHA-256 of the server seed is %(hash)s: it does not match the commitment."), { hash: check.hash });
    case "seeds":
      if (ok && check.players === check.count) return fmt(gettext("Every seat (%(count)s) sent a seed of its own."), check);
      return ok ? fmt(ngettext("%(players)s of the %(count)s seat sent a seed of its own; the others' seeds are the ones the server seed fixes.",
        "%(players)s of the %(count)s seats sent a seed of their own; the others' seeds are the ones the server seed fixes.", check.count), check)
        : fmt(gettext("Seats %(seats)s: their seeds are marked as the server's but are not the ones its seed fixes."), { seats: check.wrong.join(", ") });
    case "deck":
      if (ok) return fmt(gettext("The deck from the deal key deals exactly the %(n)s cards of this hand, in order."), { n: check.dealt });
      return check.mismatch ? fmt(gettext("The deck from the deal key does not deal the cards of this hand: card %(n)s dealt was %(card)s, where it puts %(expected)s."), check.mismatch)
        : gettext("The deck from the deal key does not deal the cards of this hand.");
    case "dice":
      return fmt(ok ? gettext("The dice from the deal key: %(a)s and %(b)s, as rolled.")
        : gettext("The dice from the deal key would be %(a)s and %(b)s, not those rolled."), { a: check.dice[0], b: check.dice[1] });
    case "chain":
      return fmt(ok ? gettext("The record hashes to its chain hash %(hash)s.")
        : gettext("The record hashes to %(hash)s, not to its chain hash: it was changed."), { hash: check.hash });
    case "link":
      return fmt(ok ? gettext("Its link is the hash of hand %(n)s, the hand before it.")
        : gettext("Its link is not the hash of hand %(n)s: the chain is broken here."), { n: check.hand_no });
    case "row":
      return ok ? gettext("The record carries the hashes the chain lists for it.")
        : gettext("The record does not carry the hashes the chain lists for it.");
    default:
      return check.id;
  }
}

/** Append one line per check to the list `ul`. */
export function listChecks(ul, checks, prefix = "") {
  for (const check of checks) {
    const li = document.createElement("li");
    li.id = `verify-${prefix}${check.id}`;
    li.dataset.ok = check.ok ? "true" : "false";
    const mark = document.createElement("span");
    mark.className = check.ok ? "ok" : "bad";
    mark.textContent = check.ok ? "✓ " : "✗ ";
    li.append(mark, text(check));
    ul.append(li);
  }
}

/** The recomputed deck orders in `container`, the dealt cards outlined (a mismatch in red). */
export function showDeck(container, segments) {
  container.textContent = "";
  for (const segment of segments) {
    if (segments.length > 1) {
      const title = document.createElement("p");
      title.className = "muted small";
      title.textContent = fmt(gettext("Stream \"%(label)s\":"), { label: segment.label });
      container.append(title);
    }
    const row = document.createElement("div");
    row.className = "deck-order";
    segment.order.forEach((code, i) => {
      const el = paint(document.createElement("span"), code);
      if (i < segment.dealt.length) el.classList.add(segment.dealt[i] === code ? "dealt" : "mismatch");
      row.append(el);
    });
    container.append(row);
  }
}

/** Set the status line `el` from a result. */
export function showStatus(el, ok, okText, badText) {
  el.dataset.ok = ok ? "true" : "false";
  el.className = ok ? "ok" : "bad";
  el.textContent = ok ? okText : badText;
}

/**
 * Check what the player chose: one or more hand record files (each with the one before it when both are there),
 * or a room's chain file. Draws into `ul` (one group of lines per hand) and returns whether everything holds.
 */
export async function checkFiles(files, ul) {
  ul.textContent = "";
  const parsed = [];
  for (const file of files) {
    try {
      parsed.push(JSON.parse(await file.text()));
    } catch {
      parsed.push(null);
    }
  }
  const chains = parsed.filter((p) => p && p.format === "halfpoint-chain-1");
  const records = parsed.filter((p) => !chains.includes(p)).sort((a, b) => ((a && a.hand_no) || 0) - ((b && b.hand_no) || 0));
  let ok = parsed.length > 0;
  for (const chain of chains) {
    const result = await verifyChain(chain);
    for (const row of result.rows) {
      heading(ul, fmt(gettext("Room %(room)s, hand %(n)s"), { room: chain.room, n: row.hand_no }));
      const lines = [];
      if (row.link !== null) lines.push({ id: "link", ok: row.link, hand_no: row.hand_no - 1 });
      listChecks(ul, [...lines, ...(row.record ? row.record.checks : [])], `${row.hand_no}-`);
      if (!row.record) note(ul, gettext("You may not read this hand: only its link is checked."));
    }
    ok = ok && result.ok;
  }
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    const before = i > 0 && records[i - 1] && record && records[i - 1].hand_no + 1 === record.hand_no ? records[i - 1] : null;
    if (record && record.deck) setDeck(record.deck);
    const result = await verifyRecord(record, before);
    heading(ul, record && record.room ? fmt(gettext("Room %(room)s, hand %(n)s"), { room: record.room, n: record.hand_no })
      : gettext("A file"));
    listChecks(ul, result.checks, record && record.hand_no ? `${record.hand_no}-` : "");
    ok = ok && result.ok;
  }
  return ok;
}

/** Check the files chosen in `input` each time they change, into `ul`, with the verdict in `status`. */
export function watchFiles(input, status, ul) {
  input.addEventListener("change", async () => {
    status.textContent = gettext("Checking…");
    const ok = await checkFiles(input.files, ul);
    showStatus(status, ok, gettext("Every file checks out."), gettext("Not verified: see the lines below."));
  });
}

function heading(ul, title) {
  const li = document.createElement("li");
  li.className = "verify-heading";
  li.textContent = title;
  ul.append(li);
}

function note(ul, title) {
  const li = document.createElement("li");
  li.className = "muted small";
  li.textContent = title;
  ul.append(li);
}
