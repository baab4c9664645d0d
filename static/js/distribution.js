// The distribution report (templates/games/distribution.html): a phone shows each game folded under its name, a
// wide screen opens them all; a game with a warning is open everywhere (the server marks it). Times are shown in
// this browser's zone (format.js).
import "./format.js";

if (window.matchMedia("(min-width: 720px)").matches) {
  for (const section of document.querySelectorAll("details.distribution")) section.open = true;
}
