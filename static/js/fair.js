// The fair deal checked in the browser, byte for byte as docs/fairness.md says (games/engine/shuffle.py does the same
// on the server, tools/halfpoint_verify.py offline, with the same checks and the same check ids): the seats' seeds the
// server made, the deal key, the deck and dice it gives, what the record shows against what its chain binds, the
// hand's chain hash, and a room's chain from its first hand (or a hash the player trusts) with no gap. Pure: no page,
// no network, no translation.
import { commitmentOf, DECKS, rollDice, shuffle } from "./verify.js";

export const RECORD_FORMAT = "halfpoint-hand-1";
export const CHAIN_FORMAT = "halfpoint-chain-1";
export const ZERO_CHAIN = "0".repeat(64);
// What a hand's chain hash covers (canonicalJson sorts the keys).
export const CHAIN_FIELDS = ["hand_no", "prev", "commitment", "seed", "seeds", "source", "stacked", "reshuffles",
  "dealt", "dice", "order", "banker", "results", "deltas"];
const GAME_DECKS = { "ten-half": "french-52", "seven-half": "spanish-40", "zhejiang-ten-half": "french-54",
  "ban-luck": "french-52" };
const SHOE_GAMES = ["seven-half"]; // the source is the shoe's sorted stock; a house rule may set dealt cards aside

const utf8 = new TextEncoder();
const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
const isHex64 = (text) => typeof text === "string" && /^[0-9a-fA-F]{64}$/.test(text);
const isLowerHex64 = (text) => typeof text === "string" && /^[0-9a-f]{64}$/.test(text);
const isInt = (x) => Number.isInteger(x);
const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);

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
  if (record.voided) body.voided = true; // a voided hand's body has the key too; no other hand's does
  return hex(await crypto.subtle.digest("SHA-256", utf8.encode(canonicalJson(body))));
}

/** The field that keeps `record` from being read as a hand record, or null (tools/halfpoint_verify.py `malformed`). */
function malformed(record) {
  if (!isObject(record)) return "record";
  if (!isHex64(record.seed)) return "seed";
  if (!isInt(record.hand_no) || record.hand_no < 1) return "hand_no";
  if (!Array.isArray(record.dealt) || !record.dealt.every((c) => typeof c === "string")) return "dealt";
  const seeds = record.seeds || [];
  if (!Array.isArray(seeds) || !seeds.every((x) => isObject(x) && typeof x.seat === "string"
    && ["player", "server", "bot"].includes(x.by) && isLowerHex64(x.seed))) return "seeds";
  if (record.prev != null && !isLowerHex64(record.prev)) return "prev";
  if (!(record.reshuffles || []).every((r) => isObject(r) && Array.isArray(r.source) && typeof r.label === "string"
    && isInt(r.at))) return "reshuffles";
  return null;
}

/** The source check: the deck's name for a full deck, the shoe's stock (and each reshuffle's) in canonical order. */
function sourceCheck(record) {
  const { game, deck, source } = record;
  const check = { id: "source", ok: false, game, deck, expected: GAME_DECKS[game] };
  if (!Object.hasOwn(DECKS, deck || "")) return { ...check, why: "deck" };
  if (GAME_DECKS[game] && GAME_DECKS[game] !== deck) return { ...check, why: "game" };
  const rank = new Map(DECKS[deck].map((c, i) => [c, i]));
  const canonical = (cards) => Array.isArray(cards) && cards.every((c) => rank.has(c))
    && cards.every((c, i) => i === 0 || rank.get(cards[i - 1]) < rank.get(c));
  if (SHOE_GAMES.includes(game) ? !canonical(source) : source !== deck) return { ...check, why: "order" };
  if (!(record.reshuffles || []).every((r) => canonical(r.source))) return { ...check, why: "order" };
  return { ...check, ok: true };
}

/** A hand the record says was voided (tools/halfpoint_verify.py `void_problem`): no card, no play, no result, no chip. */
function voidCheck(record) {
  const played = (record.dealt || []).length || (record.order || []).length || record.dice
    || Object.keys(isObject(record.hands) ? record.hands : {}).length;
  const settled = (record.results || []).length || Object.values(record.deltas || {}).some((v) => v !== 0);
  return { id: "void", ok: !played && !settled, why: played ? "played" : "settled" };
}

/** The hands check (tools/halfpoint_verify.py `hands_problem`): the cards and stakes shown against what is bound. */
function handsCheck(record) {
  const { hands, dealt } = record;
  const order = record.order || [];
  const bad = (why, more = {}) => ({ id: "hands", ok: false, why, ...more });
  if (!isObject(hands) || Object.keys(hands).length !== new Set(order).size || !order.every((s) => Object.hasOwn(hands, s))) {
    return bad("seats");
  }
  const at = new Map(dealt.map((c, i) => [c, i]));
  const seen = new Set();
  for (const seat of order) {
    if (!Array.isArray(hands[seat]) || !hands[seat].length) return bad("seats");
    for (const ph of hands[seat]) {
      if (!isObject(ph) || !Array.isArray(ph.cards)) return bad("seats");
      let last = -1;
      for (const c of ph.cards) {
        if (!at.has(c) || seen.has(c) || at.get(c) < last) return bad("card", { seat, card: c });
        seen.add(c);
        last = at.get(c);
      }
    }
  }
  if (!SHOE_GAMES.includes(record.game) && seen.size !== dealt.length) {
    return bad("undealt", { card: dealt.find((c) => !seen.has(c)) });
  }
  const settled = new Map();
  for (const r of record.results || []) if (isObject(r) && r.kind === "main") settled.set(`${r.bettor}\u0000${r.hand}`, r.stake);
  const shown = new Map();
  for (const seat of order) {
    if (seat === record.banker) continue;
    hands[seat].forEach((ph, i) => shown.set(`${seat}\u0000${i}`, ph.stake));
  }
  for (const [k, stake] of shown) {
    if (!settled.has(k) || settled.get(k) !== stake) {
      const [seat, i] = k.split("\u0000");
      return bad("stake", { seat, n: Number(i) + 1 });
    }
  }
  const extra = [...settled.keys()].find((k) => !shown.has(k));
  if (extra) return bad("stake", { seat: extra.split("\u0000")[0], n: Number(extra.split("\u0000")[1]) + 1 });
  if ((hands[record.banker] || []).some((ph) => ph.stake !== 0 && ph.stake != null)) return bad("bank");
  return { id: "hands", ok: true };
}

/**
 * The bank auction (tools/halfpoint_verify.py `auction_problem`): the winner banks; with a bid, the tied bidders made
 * the highest bid (a seat that left, `void`, does not count), in seat order (the order of `seeds`), and of two or
 * more the winner is the one the deal key's stream "auction" picks: the first of `tied` shuffled by that stream.
 */
async function auctionCheck(record, key) {
  const a = record.auction;
  const voided = new Set(a.void || []);
  const bids = Object.entries(a.bids || {}).filter(([k]) => !voided.has(k));
  const tied = a.tied || [];
  const top = bids.length ? Math.max(...bids.map(([, v]) => v)) : 0;
  const bidOf = Object.fromEntries(bids);
  const seats = (record.seeds || []).map((x) => x.seat);
  const picked = tied.length > 1 ? (await shuffle(tied, key, "auction"))[0] : tied[0];
  const ordered = tied.every((x, i) => seats.includes(x) && (i === 0 || seats.indexOf(tied[i - 1]) < seats.indexOf(x)));
  const ok = a.winner === record.banker && (a.bid || 0) === top && (top === 0 ? tied.length === 0
    : ordered && tied.length > 0 && tied.every((x) => bidOf[x] === top) && picked === a.winner);
  return { id: "auction", ok, winner: String(a.winner), mult: a.mult || 1, tied: tied.length, picked: String(picked) };
}

/** The deck orders of a hand: stream "0" over its deck or shoe, then each reshuffle, each against the cards dealt. */
async function segments(record, key) {
  const first = typeof record.source === "string" ? DECKS[record.source] : Array.isArray(record.source) ? record.source : null;
  const parts = [{ source: first, label: "0", at: 0 },
    ...(record.reshuffles || []).map((r) => ({ source: r.source, label: r.label, at: r.at }))];
  const dealt = record.dealt;
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
 * Every check one record file allows, in order: {checks: [{id, ok, ...}], ok, key, segments}. Ids (docs/fairness.md,
 * "Checking"): "format", "malformed", "commitment", "seeds", "source", "deck", "dice", "dice-missing", "auction", "hands",
 * "names", "chain" or "chain-missing", and "link" with `previous`, the record before it. `predates`: the room's chain
 * lists this hand as one from before the chain (no hash, perhaps no dice).
 */
export async function verifyRecord(record, previous = null, { predates = false } = {}) {
  const format = isObject(record) ? record.format : undefined;
  const checks = [{ id: "format", ok: format === RECORD_FORMAT, format: String(format), expected: RECORD_FORMAT }];
  const field = malformed(record);
  if (field) return { checks: [...checks, { id: "malformed", ok: false, field }], ok: false, segments: [] };
  const commitment = await commitmentOf(record.seed);
  checks.push({ id: "commitment", ok: commitment === String(record.commitment).toLowerCase(), hash: commitment });
  const seeds = record.seeds || [];
  const wrong = [];
  for (const x of seeds) if (x.by !== "player" && (await seatSeed(record.seed, x.seat)) !== x.seed) wrong.push(x.seat);
  if (seeds.length) {
    checks.push({ id: "seeds", ok: wrong.length === 0, wrong, players: seeds.filter((x) => x.by === "player").length,
      count: seeds.length });
  }
  checks.push(sourceCheck(record));
  const key = wrong.length ? null : await dealKey(record.seed, record.hand_no, record.prev || ZERO_CHAIN, seeds);
  const parts = key ? await segments(record, key) : [];
  const bad = parts.find((s) => !s.ok);
  if (key && record.stacked) checks.push({ id: "deck", ok: false, stacked: true, dealt: record.dealt.length });
  else if (key) checks.push({ id: "deck", ok: !bad, dealt: record.dealt.length, mismatch: bad ? bad.mismatch : null });
  const policy = record.order_policy || (record.game === "ten-half" ? "dice" : "seat");
  if (record.dice && key) {
    const dice = await rollDice(key);
    const order = record.order || [];
    const sum = dice[0] + dice[1];
    const ordered = order.includes(record.banker)
      && order.indexOf(record.banker) === (((1 - sum) % order.length) + order.length) % order.length;
    const same = dice[0] === record.dice[0] && dice[1] === record.dice[1];
    checks.push({ id: "dice", ok: same && ordered, dice, why: same ? "order" : "dice" });
  } else if (!record.dice && policy === "dice" && !predates && !record.voided) {
    checks.push({ id: "dice-missing", ok: false });
  }
  if (isObject(record.auction) && key) checks.push(await auctionCheck(record, key));
  if (record.voided) checks.push(voidCheck(record));
  checks.push(handsCheck(record));
  const seats = new Set(Object.keys(record.deltas || {}));
  const names = record.names;
  checks.push({ id: "names", ok: isObject(names) && Object.entries(names).every(([k, v]) => seats.has(k) && typeof v === "string") });
  if (record.chain) {
    const chain = await chainHash(record);
    checks.push({ id: "chain", ok: chain === record.chain, hash: chain });
  } else {
    checks.push({ id: "chain-missing", ok: predates, why: "record" });
  }
  if (previous) {
    const before = await chainHash(previous);
    checks.push({ id: "link", ok: record.prev === before && previous.hand_no + 1 === record.hand_no, hash: before,
      hand_no: previous.hand_no });
  }
  return { checks, ok: checks.every((c) => c.ok), key, segments: parts };
}

/** The trusted hash the player typed: {hand_no|null, hash}, null when empty; throws on anything else. */
export function parseTrust(text) {
  const value = (text || "").trim();
  if (!value) return null;
  const m = /^(?:(\d+):)?([0-9a-fA-F]{64})$/.exec(value);
  if (!m) throw new Error("trust");
  return { hand_no: m[1] ? Number(m[1]) : null, hash: m[2].toLowerCase() };
}

/** Every page of one room's chain as one list of rows, and what is wrong with their order (`contiguous` checks). */
function mergePages(pages) {
  const problems = [];
  const byNumber = new Map();
  for (const page of pages) {
    let before = null;
    let broken = false;
    for (const row of Array.isArray(page.hands) ? page.hands : []) {
      const n = isObject(row) ? row.hand_no : undefined;
      if (!isInt(n)) {
        problems.push({ id: "contiguous", ok: false, why: "number" });
        continue;
      }
      if (before !== null && n !== before + 1 && !broken) {
        broken = true; // the first break of each page
        problems.push({ id: "contiguous", ok: false, why: "order", n, before });
      }
      before = n;
      const known = byNumber.get(n);
      if (known && (known.prev !== row.prev || known.chain !== row.chain)) problems.push({ id: "contiguous", ok: false, why: "twice", n });
      if (!known) byNumber.set(n, row);
    }
  }
  const rows = [...byNumber.keys()].sort((a, b) => a - b).map((n) => byNumber.get(n));
  for (let i = 1; i < rows.length; i++) {
    if (rows[i].hand_no !== rows[i - 1].hand_no + 1 && !problems.length) { // a gap between pages, each whole
      problems.push({ id: "contiguous", ok: false, why: "pages", first: rows[i - 1].hand_no + 1, last: rows[i].hand_no - 1 });
    }
  }
  return { rows, problems };
}

/**
 * One room's chain from all its pages: {checks (the room's: format, contiguous, start, trust), rows: [{hand_no, link:
 * true|false|null, record: result|null, checks, ok}], ok}. `trust` ({hand_no, hash} or null): the chain hash of the
 * last hand the player trusts, which the chain may start from instead of 64 zeros.
 */
export async function verifyChain(pages, { trust = null } = {}) {
  pages = Array.isArray(pages) ? pages : [pages];
  const room = pages.length ? String(pages[0].room) : "";
  const checks = pages.map((p) => ({ id: "format", ok: p.format === CHAIN_FORMAT, format: String(p.format), expected: CHAIN_FORMAT }));
  const { rows, problems } = mergePages(pages);
  if (problems.length) checks.push(...problems);
  else if (rows.length) checks.push({ id: "contiguous", ok: true, first: rows[0].hand_no, last: rows[rows.length - 1].hand_no });
  else checks.push({ id: "contiguous", ok: false, why: "empty" });
  const first = rows.find((r) => r.chain);
  if (first) {
    const fromZero = first.prev === ZERO_CHAIN;
    const fromTrust = !!trust && first.prev === trust.hash;
    checks.push({ id: "start", ok: fromZero || fromTrust, n: first.hand_no, why: fromZero ? "zero" : "trust" });
  }
  if (trust) {
    const found = (first && first.prev === trust.hash && (trust.hand_no === null || trust.hand_no === first.hand_no - 1))
      || rows.some((r) => r.chain === trust.hash && (trust.hand_no === null || trust.hand_no === r.hand_no));
    checks.push({ id: "trust", ok: !!found });
  }
  const out = [];
  let chained = false;
  let before = null;
  for (const h of rows) {
    const lines = [];
    const predates = !h.chain && !chained;
    let link = null;
    if (h.chain) {
      if (chained && before && before.hand_no + 1 === h.hand_no) {
        link = h.prev === before.chain;
        lines.push({ id: "link", ok: link, hand_no: before.hand_no });
      }
      chained = true;
    } else if (!predates) {
      lines.push({ id: "chain-missing", ok: false, why: "row" });
    }
    let result = null;
    if (h.record) {
      result = await verifyRecord(h.record, null, { predates });
      const r = h.record;
      const same = isObject(r) && (r.chain ?? null) === (h.chain ?? null) && (r.prev ?? null) === (h.prev ?? null)
        && r.hand_no === h.hand_no && String(r.room) === room;
      result.checks.push({ id: "row", ok: same });
      result.ok = result.ok && same;
      lines.push(...result.checks);
    }
    out.push({ hand_no: h.hand_no, link, record: result, checks: lines, ok: lines.every((c) => c.ok) });
    before = h;
  }
  return { room, checks, rows: out, ok: checks.every((c) => c.ok) && out.every((r) => r.ok) };
}

/**
 * Files the player chose, read as JSON (null for one that is not): each room's chain from its pages, then the hand
 * records given alone (each with the one before it when given too, and with its room's chain when given). Groups of
 * lines as tools/halfpoint_verify.py prints them: {groups: [{room, hand_no (null for a chain's own lines), checks,
 * record, chain}], ok}.
 */
export async function verifyFiles(files, { trust = null } = {}) {
  const chains = new Map();
  const records = [];
  for (const data of files) {
    if (isObject(data) && Array.isArray(data.hands)) {
      const room = String(data.room);
      if (!chains.has(room)) chains.set(room, []);
      chains.get(room).push(data);
    } else {
      records.push(data);
    }
  }
  const groups = [];
  const listed = new Map();
  for (const [room, pages] of chains) {
    const result = await verifyChain(pages, { trust });
    groups.push({ room, hand_no: null, checks: result.checks, chain: true });
    for (const row of result.rows) groups.push({ room, hand_no: row.hand_no, checks: row.checks, record: row.record, unread: !row.record });
    const { rows } = mergePages(pages);
    const firstChained = rows.find((r) => r.chain);
    for (const r of rows) listed.set(`${room}\u0000${r.hand_no}`, { row: r, predates: !r.chain && (!firstChained || r.hand_no < firstChained.hand_no) });
  }
  const keyed = records.filter((r) => isObject(r) && isInt(r.hand_no))
    .sort((a, b) => (String(a.room) < String(b.room) ? -1 : String(a.room) > String(b.room) ? 1 : a.hand_no - b.hand_no));
  let before = null;
  for (const rec of [...records.filter((r) => !keyed.includes(r)), ...keyed]) {
    const where = isObject(rec) ? listed.get(`${String(rec.room)}\u0000${rec.hand_no}`) : undefined;
    const previous = before && isObject(rec) && before.room === rec.room && before.hand_no + 1 === rec.hand_no ? before : null;
    const result = await verifyRecord(rec, previous, { predates: !!where && where.predates });
    if (!previous && before && isObject(rec) && before.room === rec.room && before.hand_no === rec.hand_no
      && canonicalJson(before) !== canonicalJson(rec)) {
      result.checks.push({ id: "contiguous", ok: false, why: "twice", n: rec.hand_no });
    }
    if (where) {
      result.checks.push({ id: "row", ok: (rec.chain ?? null) === (where.row.chain ?? null)
        && (rec.prev ?? null) === (where.row.prev ?? null) });
    }
    groups.push({ room: isObject(rec) ? rec.room : null, hand_no: isObject(rec) ? rec.hand_no : null, checks: result.checks,
      record: result, file: true });
    if (isObject(rec) && isInt(rec.hand_no)) before = rec;
  }
  return { groups, ok: groups.length > 0 && groups.every((g) => g.checks.every((c) => c.ok)) };
}
