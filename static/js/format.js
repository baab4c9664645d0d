// Numbers and moments as the page's language writes them (document.documentElement.lang), with the browser's Intl:
// 12,345 in English and Chinese, 12.345 in Italian and Spanish, the same as the server's pages
// (settings.USE_THOUSAND_SEPARATOR, config/formats/). Only for what a player reads: an input's value, a data-*
// attribute and what goes to the server stay plain integers. Card totals (10½) and multipliers (×2) keep the
// game's notation and do not come here.
//
// Imported, it also shows every <time data-local> of the page (accounts/templatetags/formats.py, `local_time`) in
// the browser's time zone; the server's UTC text stays as the element's title.

const formatters = new Map();

function formatter(kind, options) {
  const lang = (typeof document !== "undefined" && document.documentElement.lang) || undefined;
  const key = `${kind}|${lang}`;
  if (!formatters.has(key)) {
    let made;
    try {
      made = kind === "number" ? new Intl.NumberFormat(lang, options) : new Intl.DateTimeFormat(lang, options);
    } catch {
      made = kind === "number" ? new Intl.NumberFormat(undefined, options) : new Intl.DateTimeFormat(undefined, options);
    }
    formatters.set(key, made);
  }
  return formatters.get(key);
}

// Grouping always, also for four digits (1.234): CLDR would leave those ungrouped in Italian and Spanish, Django
// does not, and a page that says 1.234 in one place and 1234 in another reads as two different numbers.
const NUMBER = { useGrouping: true };
const DATE_TIME = { dateStyle: "medium", timeStyle: "short" };
const TIME = { timeStyle: "short" };

/** `n` grouped the page language's way; anything but a finite number comes back as text, unchanged. */
export function number(n) {
  return typeof n === "number" && Number.isFinite(n) ? formatter("number", NUMBER).format(n) : String(n ?? "");
}

/** A result with its sign: "+1,200", "−1,200" (a minus sign), "0". */
export function signed(n) {
  if (typeof n !== "number") return number(n);
  if (!n) return number(0); // never "-0"
  return (n > 0 ? "+" : "−") + number(Math.abs(n));
}

/** A moment (Date, ISO text or epoch milliseconds) as the date and time in the browser's time zone. */
export function dateTime(d) {
  return formatter("dateTime", DATE_TIME).format(d instanceof Date ? d : new Date(d));
}

/** A moment as the time of day only, in the browser's time zone. */
export function time(d) {
  return formatter("time", TIME).format(d instanceof Date ? d : new Date(d));
}

/** Every <time data-local> under `root` in the browser's time zone (the "time" style: the time of day only). */
export function localTimes(root = document) {
  for (const el of root.querySelectorAll("time[data-local]:not([data-shown])")) {
    const when = new Date(el.dateTime);
    if (Number.isNaN(when.getTime())) continue;
    el.title = el.textContent.trim();
    el.textContent = el.dataset.local === "time" ? time(when) : dateTime(when);
    el.dataset.shown = "";
  }
}

if (typeof document !== "undefined") localTimes();
