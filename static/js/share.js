// Sharing a link into a chat (docs/ledger.md, "Sharing into a chat"): the room's invite and a settle-up's share links.
// Each button (templates/games/_share_button.html) carries the server's words in the page's language and the link
// in it (data-share-title, data-share-text, data-share-url), and for a settle-up its card (data-share-file, a PNG).
// The Web Share API hands them to the app the player picks (WeChat, WhatsApp, Telegram…), with the card as a file
// where the browser can share files. Without the API, or when it fails, the link is copied and a line says so; a
// share the player cancelled (AbortError) was their choice, and nothing is said.
import { h } from "./dom.js";
import { gettext } from "./i18n.js";

const STATUS_MS = 4000;
const status = h("div", { class: "share-status", role: "status", hidden: true });
document.body.append(status);

function say(text, kind) {
  status.textContent = text;
  status.className = "share-status " + kind;
  status.hidden = false;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => { status.hidden = true; }, STATUS_MS);
}

// The cards, fetched as the page opens: the share sheet only opens while the click still counts as the player's, and
// waiting for the server to draw the card could outlast that.
const cards = new Map();

function card(button) {
  const url = button.dataset.shareFile;
  if (!url) return Promise.resolve(null);
  if (!cards.has(url)) {
    cards.set(url, fetch(url, { credentials: "same-origin" })
      .then((r) => (r.ok ? r.blob() : null))
      .then((blob) => (blob && blob.size ? new File([blob], button.dataset.shareFileName || "card.png", { type: "image/png" }) : null))
      .catch(() => null));
  }
  return cards.get(url);
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h("textarea", { class: "visually-hidden", readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    let done = false;
    try {
      done = document.execCommand("copy");
    } catch {
      done = false;
    }
    area.remove();
    return done;
  }
}

async function share(button) {
  const data = { title: button.dataset.shareTitle, text: button.dataset.shareText, url: button.dataset.shareUrl };
  if (typeof navigator.share === "function") {
    const file = await card(button);
    if (file && typeof navigator.canShare === "function" && navigator.canShare({ ...data, files: [file] })) {
      data.files = [file];
    }
    try {
      await navigator.share(data);
      return;
    } catch (e) {
      if (e && e.name === "AbortError") return;
      // Anything else (no app takes it, the browser refused): the link is still the player's to paste.
    }
  }
  if (await copy(data.url)) say(gettext("Link copied."), "ok");
  else say(gettext("The link could not be copied: copy it from the page."), "error");
}

for (const button of document.querySelectorAll(".share-button[data-share-url]")) {
  if (typeof navigator.share === "function") card(button);
  button.addEventListener("click", () => share(button));
}
