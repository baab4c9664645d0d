// Check a hand's shuffle in the browser, byte for byte as docs/rules.md "Verifiable shuffle" says
// (and games/engine/shuffle.py does): commitment = SHA-256(seed bytes); block k of stream `label`
// = HMAC-SHA256(key = seed, message = ASCII(label + ":" + k)), read as eight big-endian 32-bit
// words; uniform(m) rejects words >= 2^32 - (2^32 mod m); forward Fisher-Yates over the canonical deck.
const TWO32 = 4294967296;
const FRENCH_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SPANISH_RANKS = ["1", "2", "3", "4", "5", "6", "7", "J", "N", "K"];
const FRENCH_52 = ["S", "H", "D", "C"].flatMap((s) => FRENCH_RANKS.map((r) => r + s));
export const DECKS = {
  "french-52": FRENCH_52,
  "french-54": [...FRENCH_52, "BJ", "RJ"],
  "spanish-40": ["O", "C", "E", "B"].flatMap((s) => SPANISH_RANKS.map((r) => r + s)),
};

function bytes(seedHex) {
  if (!/^[0-9a-fA-F]{64}$/.test(seedHex)) throw new Error("The seed is 64 hexadecimal digits.");
  return new Uint8Array(seedHex.match(/../g).map((x) => parseInt(x, 16)));
}

const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

export async function commitmentOf(seedHex) {
  return hex(await crypto.subtle.digest("SHA-256", bytes(seedHex)));
}

async function stream(seedHex, label) {
  const key = await crypto.subtle.importKey("raw", bytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const ascii = new TextEncoder();
  let block = 0;
  let words = [];
  let i = 0;
  const next = async () => {
    if (i >= words.length) {
      const mac = new DataView(await crypto.subtle.sign("HMAC", key, ascii.encode(`${label}:${block}`)));
      block += 1;
      words = Array.from({ length: 8 }, (_v, j) => mac.getUint32(j * 4, false)); // big-endian
      i = 0;
    }
    return words[i++];
  };
  return async (m) => {
    const limit = TWO32 - (TWO32 % m);
    let w = await next();
    while (w >= limit) w = await next(); // rejection: no modulo bias
    return w % m;
  };
}

export async function shuffle(cards, seedHex, label = "0") {
  const below = await stream(seedHex, label);
  const a = [...cards];
  for (let i = 0; i < a.length - 1; i++) {
    const j = i + (await below(a.length - i));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export async function rollDice(seedHex) {
  const below = await stream(seedHex, "dice");
  return [(await below(6)) + 1, (await below(6)) + 1];
}

/** Everything a hand record lets anyone check: {commitmentOk, segments: [{source, label, order, dealt, ok}], ok}. */
export async function verifyHand({ commitment, seed, dealt, deck, source, reshuffles, dice }) {
  const out = { commitment: await commitmentOf(seed) };
  out.commitmentOk = out.commitment === String(commitment).toLowerCase();
  // The shoe (Seven and a Half) starts from the sorted stock of this hand ("source"), and each
  // reshuffle in the middle of the hand from its own sorted discards and label, from card "at".
  const parts = [{ source: Array.isArray(source) ? source : DECKS[deck], label: "0", at: 0 },
    ...(reshuffles || []).map((r) => ({ source: r.source, label: r.label, at: r.at }))];
  out.segments = [];
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k];
    const end = k + 1 < parts.length ? parts[k + 1].at : dealt.length;
    const cards = dealt.slice(p.at, end);
    const order = await shuffle(p.source, seed, p.label);
    out.segments.push({ label: p.label, order, dealt: cards, ok: cards.every((c, i) => order[i] === c) });
  }
  out.deckOk = out.segments.every((s) => s.ok);
  if (dice) {
    out.dice = await rollDice(seed);
    out.diceOk = out.dice[0] === dice[0] && out.dice[1] === dice[1];
  }
  out.ok = out.commitmentOk && out.deckOk && (dice ? out.diceOk : true);
  return out;
}
