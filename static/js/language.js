// The language menu (templates/_language.html): choosing a language sends the form at once; without this
// script the form's own button does it.
for (const form of document.querySelectorAll(".language-form")) {
  const select = form.querySelector("select");
  const button = form.querySelector(".language-go");
  if (button) button.hidden = true;
  select.addEventListener("change", () => form.requestSubmit ? form.requestSubmit() : form.submit());
}
