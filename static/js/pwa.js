// The installable app (docs/deploy.md, "Installable app"). Registers the service worker named by this script's
// data-worker, and runs the header's Install entry (templates/base.html): shown when the browser offers to install
// the site (beforeinstallprompt), or on iPhone and iPad, where Safari installs from its Share menu and sends no such
// event, as a short guide. Hidden when the site already runs as an installed app.
const script = document.currentScript;

if ("serviceWorker" in navigator && script && script.dataset.worker) {
  navigator.serviceWorker.register(script.dataset.worker).catch((error) => console.warn("service worker:", error));
}

// The offline page (templates/pwa/offline.html) tries again by itself when the connection comes back.
if (document.body.hasAttribute("data-offline")) window.addEventListener("online", () => window.location.reload());

const entry = document.getElementById("install-app");
const guide = document.getElementById("install-guide");
const standalone = window.matchMedia("(display-mode: standalone)").matches || navigator.standalone === true;
// iPadOS Safari says it is a Mac; a Mac has no touch screen.
const ios = /iPhone|iPad|iPod/.test(navigator.userAgent) || (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);

if (entry && !standalone) {
  let offer = null;  // the browser's install prompt, usable once
  window.addEventListener("beforeinstallprompt", (event) => {
    event.preventDefault();  // no mini-infobar: the header entry asks instead
    offer = event;
    entry.hidden = false;
  });
  window.addEventListener("appinstalled", () => {
    offer = null;
    entry.hidden = true;
  });
  if (ios && guide) entry.hidden = false;
  entry.addEventListener("click", async () => {
    if (offer) {
      const prompt = offer;
      offer = null;
      entry.hidden = true;  // a player who says no is offered again on a later visit
      await prompt.prompt();
    } else if (guide) {
      guide.showModal();
    }
  });
}
