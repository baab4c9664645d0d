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
