// The fair-deal checks (fair.js) as lines a player reads: the hand page, the verify page and the room's chain.
// Reading a file asks nothing of the server: the check runs in this browser, with the network off if need be.
import { paint, setDeck } from "./cards.js";
import { parseTrust, verifyFiles } from "./fair.js";
// This module's sentences carry the context "fair-deal check": the catalog of a page without the check (the table)
// leaves them out (config/static.py, CompactJavaScriptCatalog).
import { fmt, npgettext, pgettext } from "./i18n.js";

function text(check) {
  const ok = check.ok;
  switch (check.id) {
    case "format":
      return ok ? fmt(pgettext("fair-deal check", "Format %(format)s."), check)
        : fmt(pgettext("fair-deal check", "The file's format is %(format)s, which this page does not know (it knows %(expected)s)."), check);
    case "malformed":
      return fmt(pgettext("fair-deal check", "This is not a HalfPoint hand record: its field %(field)s is missing or malformed."), check);
    case "commitment":
      return fmt(ok ? pgettext("fair-deal check", "SHA-256 of the server seed is %(hash)s: it matches the commitment shown before the first card.")
        : pgettext("fair-deal check", "SHA-256 of the server seed is %(hash)s: it does not match the commitment."), { hash: check.hash });
    case "seeds":
      if (ok && check.players === check.count) return fmt(pgettext("fair-deal check", "Every seat (%(count)s) sent a seed of its own."), check);
      return ok ? fmt(npgettext("fair-deal check", "%(players)s of the %(count)s seat sent a seed of its own; the others' seeds are the ones the server seed fixes.",
        "%(players)s of the %(count)s seats sent a seed of their own; the others' seeds are the ones the server seed fixes.", check.count), check)
        : fmt(pgettext("fair-deal check", "Seats %(seats)s: their seeds are marked as the server's but are not the ones its seed fixes."), { seats: check.wrong.join(pgettext("between the items of a list", ", ")) });
    case "source":
      if (ok) return pgettext("fair-deal check", "The hand was shuffled from its deck in canonical order, as the site names it.");
      if (check.why === "deck") return fmt(pgettext("fair-deal check", "The record names no deck this page knows (%(deck)s)."), { deck: String(check.deck) });
      if (check.why === "game") return fmt(pgettext("fair-deal check", "%(game)s is played with the deck %(expected)s, not %(deck)s."), check);
      return pgettext("fair-deal check", "The deck this hand was shuffled from is not in canonical order: whoever chose that order could choose the cards.");
    case "deck":
      if (check.stacked) return pgettext("fair-deal check", "This hand was dealt from a deck stacked by a test script; it does not verify, by design.");
      if (ok) return fmt(pgettext("fair-deal check", "The deck from the deal key deals exactly the %(n)s cards of this hand, in order."), { n: check.dealt });
      return check.mismatch ? fmt(pgettext("fair-deal check", "The deck from the deal key does not deal the cards of this hand: card %(n)s dealt was %(card)s, where it puts %(expected)s."), check.mismatch)
        : pgettext("fair-deal check", "The deck from the deal key does not deal the cards of this hand.");
    case "dice":
      if (ok) return fmt(pgettext("fair-deal check", "The dice from the deal key: %(a)s and %(b)s, as rolled, and the order of play follows them."), { a: check.dice[0], b: check.dice[1] });
      return fmt(check.why === "order" ? pgettext("fair-deal check", "The dice from the deal key are %(a)s and %(b)s, as rolled, but the order of play does not follow them.")
        : pgettext("fair-deal check", "The dice from the deal key would be %(a)s and %(b)s, not those rolled."), { a: check.dice[0], b: check.dice[1] });
    case "dice-missing":
      return pgettext("fair-deal check", "This game rolls dice for the order of play, but the record has none.");
    case "auction": // house-rules.md "The bank auction"
      if (!ok) return pgettext("fair-deal check", "The bank did not go to the highest bid, or a tie not to the bidder the deal key picks.");
      return check.tied > 1 ? fmt(pgettext("fair-deal check", "The bank went to the highest bid; of the %(n)s tied bidders, the deal key picks %(seat)s."), { n: check.tied, seat: check.picked })
        : pgettext("fair-deal check", "The bank went to the highest bid, or in the usual order when nobody bid.");
    case "void": // docs/fairness.md "A voided hand"
      if (ok) return pgettext("fair-deal check", "The hand was voided before its deal: no card was dealt, nobody staked, no chip moved.");
      return check.why === "played" ? pgettext("fair-deal check", "The record says the hand was voided, but it shows cards dealt or a hand played.")
        : pgettext("fair-deal check", "The record says the hand was voided, but it settles stakes or moves chips.");
    case "hands":
      if (ok) return pgettext("fair-deal check", "The hands shown hold exactly the cards dealt to them, with the stakes their results settle.");
      if (check.why === "card") return fmt(pgettext("fair-deal check", "Seat %(seat)s's hand shows %(card)s, which was not dealt to it in that order."), check);
      if (check.why === "undealt") return fmt(pgettext("fair-deal check", "%(card)s was dealt, but no hand shows it."), check);
      if (check.why === "stake") return fmt(pgettext("fair-deal check", "Seat %(seat)s's hand %(n)s shows a stake that no result settles."), check);
      if (check.why === "bank") return pgettext("fair-deal check", "The bank's hand shows a stake.");
      return pgettext("fair-deal check", "The hands shown are not those of the seats that played.");
    case "names":
      return ok ? pgettext("fair-deal check", "The names are those of seats in this hand.") : pgettext("fair-deal check", "The names are for seats that were not in this hand.");
    case "chain":
      return fmt(ok ? pgettext("fair-deal check", "The record hashes to its chain hash %(hash)s.")
        : pgettext("fair-deal check", "The record hashes to %(hash)s, not to its chain hash: it was changed."), { hash: check.hash });
    case "chain-missing":
      if (ok) return pgettext("fair-deal check", "This hand is from before the hash chain, as the room's chain says.");
      return check.why === "row" ? pgettext("fair-deal check", "This hand has no chain hash, but hands before it have.")
        : pgettext("fair-deal check", "The record has no chain hash, and no chain file says its hand is from before the chain.");
    case "link":
      return fmt(ok ? pgettext("fair-deal check", "Its link is the hash of hand %(n)s, the hand before it.")
        : pgettext("fair-deal check", "Its link is not the hash of hand %(n)s: the chain is broken here."), { n: check.hand_no });
    case "row":
      return ok ? pgettext("fair-deal check", "The record carries the hashes the chain lists for it.")
        : pgettext("fair-deal check", "The record does not carry the hashes the chain lists for it.");
    case "contiguous":
      if (ok) return fmt(pgettext("fair-deal check", "Hands %(first)s to %(last)s follow one another, each once."), check);
      if (check.why === "order") return fmt(pgettext("fair-deal check", "Hand %(n)s comes after hand %(before)s: the hands must follow one another, each once, none missing."), check);
      if (check.why === "twice") return fmt(pgettext("fair-deal check", "Hand %(n)s is given twice, with different contents."), check);
      if (check.why === "pages") {
        return fmt(check.first === check.last ? pgettext("fair-deal check", "No file lists hand %(first)s: give every page of the chain.")
          : pgettext("fair-deal check", "No file lists hands %(first)s to %(last)s: give every page of the chain."), check);
      }
      return pgettext("fair-deal check", "The chain file lists no numbered hand.");
    case "start":
      if (ok) return fmt(check.why === "zero" ? pgettext("fair-deal check", "The chain starts at hand %(n)s, from 64 zeros.")
        : pgettext("fair-deal check", "The chain starts at hand %(n)s, from the hash you trust."), check);
      return fmt(pgettext("fair-deal check", "Hand %(n)s links to a hash that is neither 64 zeros nor one you trust: give the earlier pages, or the last hash you noted."), check);
    case "trust":
      if (check.why === "malformed") return pgettext("fair-deal check", "The hash you trust is 64 hexadecimal digits, or a hand number, a colon and the hash.");
      return ok ? pgettext("fair-deal check", "The hash you trust is in this chain.") : pgettext("fair-deal check", "The hash you trust is not in this chain.");
    default:
      return check.id;
  }
}

/** Append one line per check to the list `ul`: its id is `verify-<prefix><check>` (a second line of the same check
 * in one group gets `-2`, ...), its `data-check` the check's id, its `data-ok` whether it holds. */
export function listChecks(ul, checks, prefix = "") {
  const seen = {};
  for (const check of checks) {
    seen[check.id] = (seen[check.id] || 0) + 1;
    const li = document.createElement("li");
    li.id = `verify-${prefix}${check.id}${seen[check.id] > 1 ? `-${seen[check.id]}` : ""}`;
    li.dataset.check = check.id;
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
      title.textContent = fmt(pgettext("fair-deal check", "Stream \"%(label)s\":"), { label: segment.label });
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
 * Check what the player chose: hand record files (each with the one before it when both are there), every page of a
 * room's chain, or both (fair.js `verifyFiles`), from 64 zeros or from `trustText`, the chain hash the player trusts.
 * Draws into `ul` (one group of lines per hand, one for each chain's own checks) and returns whether everything holds.
 */
export async function checkFiles(files, ul, trustText = "", current = () => true) {
  const out = document.createDocumentFragment();
  const parsed = [];
  for (const file of files) {
    try {
      parsed.push(JSON.parse(await file.text()));
    } catch {
      parsed.push(null);
    }
  }
  let trust = null;
  try {
    trust = parseTrust(trustText);
  } catch {
    heading(out, pgettext("fair-deal check", "The hash you trust"));
    listChecks(out, [{ id: "trust", ok: false, why: "malformed" }]);
    if (current()) ul.replaceChildren(out);
    return false;
  }
  const result = await verifyFiles(parsed, { trust });
  for (const group of result.groups) {
    if (group.hand_no === null && group.chain) {
      heading(out, fmt(pgettext("fair-deal check", "Room %(room)s, its chain"), { room: group.room }));
      listChecks(out, group.checks, `${group.room}-chain-`);
      continue;
    }
    const record = group.record && group.file ? parsed.find((p) => p && p.room === group.room && p.hand_no === group.hand_no) : null;
    if (record && record.deck) setDeck(record.deck);
    heading(out, group.room != null && group.hand_no != null
      ? fmt(pgettext("fair-deal check", "Room %(room)s, hand %(n)s"), { room: group.room, n: group.hand_no }) : pgettext("fair-deal check", "A file"));
    listChecks(out, group.checks, group.hand_no != null ? `${group.room}-${group.hand_no}-` : "");
    if (group.unread) note(out, pgettext("fair-deal check", "You may not read this hand: only its link is checked."));
  }
  if (current()) ul.replaceChildren(out);
  return result.ok && parsed.length > 0;
}

/** Check the files chosen in `input` each time they change (or the trusted hash in `trustInput`, when the page has
 * one), into `ul`, with the verdict in `status`. */
export function watchFiles(input, status, ul, trustInput = null) {
  let runs = 0;
  const run = async () => {
    if (!input.files.length) return;
    const mine = ++runs; // a newer choice replaces the lines of one still being checked
    delete status.dataset.ok;
    status.textContent = pgettext("fair-deal check", "Checking…");
    const ok = await checkFiles(input.files, ul, trustInput ? trustInput.value : "", () => mine === runs);
    if (mine === runs) showStatus(status, ok, pgettext("fair-deal check", "Every file checks out."), pgettext("fair-deal check", "Not verified: see the lines below."));
  };
  input.addEventListener("change", run);
  if (trustInput) trustInput.addEventListener("change", run);
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
