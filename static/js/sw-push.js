// Push notifications for the service worker (templates/pwa/sw.js imports this file). A message is JSON
// {title, body, url, tag} that the server wrote in the player's language (games/notify.py): the worker has no
// translation catalog, so it shows the texts as they came. One tag per room: a newer message replaces the older.
// A click focuses a tab already showing the message's page (the table), or opens one.

// The app's icon, from the worker's cache list (templates/pwa/sw.js), where its URL is the one the pages use.
const ICON = (typeof CONFIG !== "undefined" && CONFIG.shell.find((url) => url.includes("/icons/icon-192"))) || undefined;

function samePage(url) {
  // Only a page of this site: a message names a path ("/r/1234/"), never another origin.
  const target = new URL(url || "/", self.location.origin);
  return target.origin === self.location.origin ? target.href : new URL("/", self.location.origin).href;
}

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  // Every push must show a notification (the subscription is userVisibleOnly): one without a title names the site.
  const title = typeof data.title === "string" && data.title ? data.title : "HalfPoint";
  const options = { body: typeof data.body === "string" ? data.body : "", icon: ICON, data: { url: samePage(data.url) } };
  if (typeof data.tag === "string" && data.tag) {
    options.tag = data.tag;
    options.renotify = true; // the same room again (your turn again): alert again, not silently replace
  }
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || samePage("/");
  event.waitUntil((async () => {
    const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const path = new URL(url).pathname;
    const open = tabs.find((tab) => new URL(tab.url).pathname === path && "focus" in tab);
    if (open) return open.focus();
    return self.clients.openWindow(url);
  })());
});
