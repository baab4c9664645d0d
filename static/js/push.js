// Notifications (Web Push: accounts/push.py; the endpoints in docs/api.md, "Notifications").
// - At the table (templates/games/room.html, #push-offer): once a hand this page watched the player play has finished,
//   a small offer, never on page load. The browser asks for permission only when the player clicks it. table.js
//   loads this module then and calls `tableOffer()`.
// - On the profile (templates/accounts/profile.html, #push-settings): the moments to be told of, saved as they are
//   ticked, and this browser on or off in one click.
// Neither shows without the site's VAPID public key (their data-key: the server leaves them out when push is not set
// up) or in a browser without Push. The service worker (/sw.js, registered by pwa.js) shows what arrives
// (static/js/sw-push.js).
/* global gettext */

const OFFER_KEY = "halfpoint.pushOffer"; // "no": the offer was dismissed on this browser, and is not made again
const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

function csrfToken() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (input) return input.value;
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST", credentials: "same-origin", body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
  });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error((data.error && data.error.code) || String(response.status));
  return data;
}

function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

async function deviceSubscription() {
  const registration = await navigator.serviceWorker.getRegistration();
  return registration ? registration.pushManager.getSubscription() : null;
}

/** Ask for permission (this must follow a click), subscribe this browser and tell the server; `kinds` are turned on
 * with it. Returns false when permission was refused. */
async function subscribe(box, kinds) {
  if ((await Notification.requestPermission()) !== "granted") return false;
  // pwa.js registers the worker on every page; one that never becomes ready (blocked, failed) is an error here.
  const registration = await Promise.race([navigator.serviceWorker.ready,
    new Promise((_resolve, reject) => { setTimeout(() => reject(new Error("no service worker")), 10000); })]);
  const subscription = (await registration.pushManager.getSubscription())
    || (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.key) }));
  await post(box.dataset.subscribe, { subscription: subscription.toJSON(), kinds });
  return true;
}

function remembered() {
  try {
    return localStorage.getItem(OFFER_KEY);
  } catch {
    return null; // storage refused: the offer can still be dismissed for this page
  }
}

function remember(value) {
  try {
    localStorage.setItem(OFFER_KEY, value);
  } catch {
    /* nowhere to keep it */
  }
}

// --- the table's offer --------------------------------------------------------------------------------------------

const offer = document.getElementById("push-offer");

// table.js loads this module and calls this once the first hand the page saw being played is over.
export async function tableOffer() {
  if (!offer || !supported) return;
  if (remembered() === "no" || Notification.permission === "denied") return;
  if (Notification.permission === "granted" && (await deviceSubscription())) return; // notified already
  offer.hidden = false;
}

if (offer) {
  const status = offer.querySelector("#push-offer-status");
  const buttons = offer.querySelectorAll("button");
  offer.querySelector("#push-offer-yes").addEventListener("click", async () => {
    buttons.forEach((b) => { b.disabled = true; });
    try {
      status.textContent = (await subscribe(offer, { your_turn: true }))
        ? gettext("Done: you will get a notification when it is your turn and this page is not in view.")
        : gettext("Notifications are blocked for this site. You can allow them in the browser's site settings.");
    } catch {
      status.textContent = gettext("Notifications could not be turned on. Try again from your profile.");
    }
    offer.querySelector(".push-offer-buttons").hidden = true;
    setTimeout(() => { offer.hidden = true; }, 5000);
  });
  offer.querySelector("#push-offer-no").addEventListener("click", () => {
    remember("no");
    offer.hidden = true;
  });
}

// --- the profile's settings ---------------------------------------------------------------------------------------

const settings = document.getElementById("push-settings");

async function showDevice() {
  const state = settings.querySelector("#push-device-state");
  const on = settings.querySelector("#push-on");
  const off = settings.querySelector("#push-off");
  on.hidden = true;
  off.hidden = true;
  if (!supported) {
    state.textContent = gettext("This browser cannot show notifications.");
  } else if (await deviceSubscription()) {
    state.textContent = gettext("Notifications are on for this browser.");
    off.hidden = false;
  } else if (Notification.permission === "denied") {
    state.textContent = gettext("Notifications are blocked for this site. You can allow them in the browser's site settings.");
  } else {
    state.textContent = gettext("Notifications are off for this browser.");
    on.hidden = false;
  }
}

if (settings) {
  const note = settings.querySelector("#push-note");
  for (const box of settings.querySelectorAll("input[data-kind]")) {
    box.addEventListener("change", async () => {
      note.textContent = "";
      try {
        await post(settings.dataset.preferences, { kinds: { [box.dataset.kind]: box.checked } });
      } catch {
        box.checked = !box.checked;
        note.textContent = gettext("Not saved: try again.");
      }
    });
  }
  settings.querySelector("#push-on").addEventListener("click", async () => {
    note.textContent = "";
    try {
      await subscribe(settings, {});
    } catch {
      note.textContent = gettext("Notifications could not be turned on: try again.");
    }
    showDevice();
  });
  settings.querySelector("#push-off").addEventListener("click", async () => {
    note.textContent = "";
    try {
      const subscription = await deviceSubscription();
      if (subscription) {
        await post(settings.dataset.unsubscribe, { endpoint: subscription.endpoint });
        await subscription.unsubscribe();
      }
    } catch {
      note.textContent = gettext("Not saved: try again.");
    }
    showDevice();
  });
  settings.hidden = false;
  showDevice();
}
