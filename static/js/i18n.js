// The translation functions for our modules: Django's JavaScript catalog (/jsi18n/, loaded before them) defines
// them on window; a page or a test without it gets the English text as written. `fmt` fills named placeholders:
// fmt(gettext("%(name)s wins"), { name }).
export const gettext = window.gettext || ((s) => s);
export const ngettext = window.ngettext || ((s, p, n) => (n === 1 ? s : p));
// The contexts keep one English word apart where the languages need two (docs/glossary.md).
export const pgettext = window.pgettext || ((_context, s) => s);
export const npgettext = window.npgettext || ((_context, s, p, n) => (n === 1 ? s : p));
export const fmt = (s, o) =>
  window.interpolate ? window.interpolate(s, o, true) : s.replace(/%\((\w+)\)s/g, (_m, k) => o[k]);

// A part of the catalog that /jsi18n/ leaves out (config/urls.py: the house rules' words, the screen-reader mode's),
// added to the page's catalog once from `url` when a module needs it. An English page (nothing to add) and a page
// whose catalog has that context already (the hand record's /jsi18n/fair/, which has every word) ask for nothing.
// The promise settles either way: without the words the English ones show, and the table still plays.
const parts = {};
export function addWords(context, url) {
  const catalog = (window.django && window.django.catalog) || {};
  if (parts[url]) return parts[url];
  if (document.documentElement.lang.startsWith("en") || !window.gettext
    || Object.keys(catalog).some((k) => k.startsWith(context))) return Promise.resolve();
  const script = document.createElement("script");
  script.src = url;
  parts[url] = new Promise((resolve) => { script.onload = script.onerror = resolve; });
  document.head.append(script);
  return parts[url];
}
