// One element with its attributes and children, for the scripts that draw the table, the replay and the ledger:
// `text` sets textContent (never HTML), `on<event>` adds a listener, `style` goes through the CSSOM (the CSP refuses
// style attributes), a true attribute is present and empty, a false, null or undefined one is left out, and so is
// such a child.
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "style") node.style.cssText = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}
