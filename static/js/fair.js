// The fair deal checked in the browser, byte for byte as docs/fairness.md says (games/engine/shuffle.py does the same
// on the server, tools/halfpoint_verify.py offline): the seats' seeds the server made, the deal key, the deck and
// dice it gives, the hand's chain hash and its link to the hand before. Pure: no page, no network, no translation.
import { commitmentOf, DECKS, rollDice, shuffle } from "./verify.js";

export const ZERO_CHAIN = "0".repeat(64);
// What a hand's chain hash covers (canonicalJson sorts the keys).
export const CHAIN_FIELDS = ["hand_no", "prev", "commitment", "seed", "seeds", "source", "stacked", "reshuffles",
  "dealt", "dice", "order", "banker", "results", "deltas"];

const utf8 = new TextEncoder();
const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
const isHex64 = (text) => typeof text === "string" && /^[0-9a-fA-F]{64}$/.test(text);

async function hmacHex(keyHex, message) {
  const raw = new Uint8Array(keyHex.match(/../g).map((x) => parseInt(x, 16)));
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return hex(await crypto.subtle.sign("HMAC", key, utf8.encode(message)));
}

/** The seed the server gives a seat that sent none: HMAC-SHA256(server seed, "seat:<seat id>"). */
export const seatSeed = (serverHex, seat) => hmacHex(serverHex, `seat:${seat}`);

/** The hand's deal key: the server seed when no seat sent a seed of its own, else HMAC over the seeds in seat order. */
export async function dealKey(serverHex, handNo, prev, seeds) {
  if (!(seeds || []).some((x) => x.by === "player")) return serverHex.toLowerCase();
  return hmacHex(serverHex, ["deal", String(handNo), prev, ...seeds.map((x) => x.seed)].join(":"));
}

// Python's json.dumps(sort_keys=True, separators=(",", ":")) with its default ensure_ascii.
const ascii = (text) => text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${ascii(JSON.stringify(k))}:${canonicalJson(value[k])}`).join(",")}}`;
  }
  return ascii(JSON.stringify(value === undefined ? null : value));
}

/** SHA-256 of the record's chain fields as canonical JSON. */
export async function chainHash(record) {
  const body = Object.fromEntries(CHAIN_FIELDS.map((k) => [k, record[k] === undefined ? null : record[k]]));
  return hex(await crypto.subtle.digest("SHA-256", utf8.encode(canonicalJson(body))));
}

/** The deck orders of a hand: stream "0" over its deck or shoe, then each reshuffle, each against the cards dealt. */
async function segments(record, key) {
  const parts = [{ source: Array.isArray(record.source) ? record.source : DECKS[record.deck], label: "0", at: 0 },
    ...(record.reshuffles || []).map((r) => ({ source: r.source, label: r.label, at: r.at }))];
  const dealt = record.dealt || [];
  const out = [];
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k];
    const cards = dealt.slice(p.at, k + 1 < parts.length ? parts[k + 1].at : dealt.length);
    const order = p.source ? await shuffle(p.source, key, p.label) : [];
    const wrong = cards.findIndex((c, i) => order[i] !== c);
    out.push({ label: p.label, order, dealt: cards, ok: !!p.source && wrong < 0,
      mismatch: wrong < 0 ? null : { n: p.at + wrong + 1, card: cards[wrong], expected: order[wrong] || "—" } });
  }
  return out;
}

/**
 * Every check a record file allows, in order: {checks: [{id, ok, ...}], ok, key, segments}. Ids: "format",
 * "commitment", "seeds" (the seats' seeds marked as the server's are the ones its seed fixes), "deck", "dice",
 * "chain" (the record hashes to its chain hash), "link" (with `previous`, the record before it: its hash is this
 * record's `prev`).
 */
export async function verifyRecord(record, previous = null) {
  const checks = [];
  if (!record || !isHex64(record.seed) || !Array.isArray(record.dealt)) {
    return { checks: [{ id: "format", ok: false }], ok: false, segments: [] };
  }
  const commitment = await commitmentOf(record.seed);
  checks.push({ id: "commitment", ok: commitment === String(record.commitment).toLowerCase(), hash: commitment });
  const seeds = Array.isArray(record.seeds) ? record.seeds : [];
  const wrong = [];
  for (const x of seeds) {
    if (!isHex64(x.seed) || (x.by !== "player" && (await seatSeed(record.seed, x.seat)) !== x.seed)) wrong.push(x.seat);
  }
  if (seeds.length) {
    checks.push({ id: "seeds", ok: wrong.length === 0, wrong, players: seeds.filter((x) => x.by === "player").length,
      count: seeds.length });
  }
  const key = wrong.length ? null : await dealKey(record.seed, record.hand_no, record.prev || ZERO_CHAIN, seeds);
  const parts = key ? await segments(record, key) : [];
  const bad = parts.find((s) => !s.ok);
  checks.push({ id: "deck", ok: !!key && !bad, dealt: record.dealt.length, mismatch: bad ? bad.mismatch : null });
  if (record.dice && key) {
    const dice = await rollDice(key);
    checks.push({ id: "dice", ok: dice[0] === record.dice[0] && dice[1] === record.dice[1], dice });
  }
  if (record.chain) {
    const chain = await chainHash(record);
    checks.push({ id: "chain", ok: chain === record.chain, hash: chain });
  }
  if (previous) {
    const before = await chainHash(previous);
    checks.push({ id: "link", ok: record.prev === before && previous.hand_no + 1 === record.hand_no, hash: before,
      hand_no: previous.hand_no });
  }
  return { checks, ok: checks.every((c) => c.ok), key, segments: parts };
}

/**
 * A room's chain file: each hand's link names the hand before it (when both are in the file), and each record it
 * holds verifies and carries the row's hashes. [{hand_no, link: true|false|null, record: result|null}], ok.
 */
export async function verifyChain(file) {
  const rows = [];
  const hands = (file && file.hands) || [];
  for (let i = 0; i < hands.length; i++) {
    const h = hands[i];
    const before = i > 0 && hands[i - 1].hand_no + 1 === h.hand_no ? hands[i - 1] : null;
    const link = before && h.prev ? h.prev === before.chain : null; // a hand from before the chain has no link
    let result = null;
    if (h.record) {
      result = await verifyRecord(h.record);
      const same = h.record.chain === h.chain && h.record.prev === h.prev && h.record.hand_no === h.hand_no;
      result.checks.push({ id: "row", ok: same });
      result.ok = result.ok && same;
    }
    rows.push({ hand_no: h.hand_no, link, record: result, ok: link !== false && (!result || result.ok) });
  }
  return { rows, ok: rows.length > 0 && rows.every((r) => r.ok) };
}
