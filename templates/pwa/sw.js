// HalfPoint's service worker, rendered by config/pwa.py (docs/deploy.md, "Installable app"). It keeps the static
// shell (stylesheets, the scripts every page loads, icons) and the offline page, and nothing else: pages, a table's
// state, JSON and the WebSocket always come from the network, so nothing about a player is ever stored here.
const CONFIG = {{ config }};
const SHELL = new Set(CONFIG.shell);

importScripts(CONFIG.push);  // push notifications (static/js/sw-push.js)

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CONFIG.cache).then((cache) => cache.addAll(CONFIG.shell)).then(() => self.skipWaiting()));
});

// A new deploy or language is a new worker with a new cache name: the old caches go.
self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(CONFIG.cachePrefix) && name !== CONFIG.cache) await caches.delete(name);
    }
    // The page request starts while the worker wakes up, so network first costs no extra wait.
    if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
    await self.clients.claim();
  })());
});

// Only GET requests are answered here: page navigations (network, else the offline page) and the shell's static
// files (cache, else network). Everything else, POSTs and JSON included, goes on to the network untouched.
self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(navigate(event));
  } else if (url.pathname.startsWith(CONFIG.static) && SHELL.has(url.pathname) && !url.search) {
    event.respondWith(shellFile(request));
  }
});

async function navigate(event) {
  try {
    return (await event.preloadResponse) || (await fetch(event.request));
  } catch {
    // No network (a failed fetch rejects; an error page from the server is still an answer and is shown).
    return (await cached(CONFIG.offline)) || Response.error();
  }
}

async function shellFile(request) {
  return (await cached(request)) || fetch(request);
}

async function cached(request) {
  const cache = await caches.open(CONFIG.cache);
  return cache.match(request, { ignoreVary: true });
}
