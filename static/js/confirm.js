// A form with a data-confirm message (translated by the page) asks before it is sent: the CSP allows no
// inline handler such as onsubmit.
document.addEventListener("submit", (event) => {
  const message = event.target.dataset.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});
