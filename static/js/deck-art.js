// The profile's deck art choice (accounts/forms.py, DECK_ART): beside each option, four cards of the Spanish-suited
// deck drawn in its art; "by my language" shows the art the page's language gives. The cards only illustrate the
// option's name, so screen readers skip them.
import { languageArt, paint, setDeck } from "./cards.js";

setDeck("spanish-40");
for (const input of document.querySelectorAll("input[name=deck_art]")) {
  const row = document.createElement("span");
  row.className = "deck-preview";
  row.setAttribute("aria-hidden", "true");
  for (const code of ["1O", "JC", "NE", "KB"]) row.append(paint(document.createElement("span"), code, { art: input.value || languageArt() }));
  input.closest("label").after(row);
}
