// A box that scrolls sideways (.scroll-fade: the ledger page's table, templates/games/ledger.html) says so whenever
// its content is wider than it: the content fades at an edge with more behind it (the classes more-end and
// more-start, static/css/ledger.css), and its hint line (the element whose id is the box's id and "-hint", e.g.
// "Scroll sideways for every column →") shows. Nothing shows when everything fits.
for (const box of document.querySelectorAll(".scroll-fade")) {
  const hint = box.id ? document.getElementById(`${box.id}-hint`) : null;
  const update = () => {
    const over = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("more-start", over && box.scrollLeft > 1);
    box.classList.toggle("more-end", over && box.scrollLeft + box.clientWidth < box.scrollWidth - 1);
    if (hint) hint.hidden = !over;
  };
  const sizes = new ResizeObserver(update);
  sizes.observe(box);
  if (box.firstElementChild) sizes.observe(box.firstElementChild);
  box.addEventListener("scroll", update, { passive: true });
  update();
}
