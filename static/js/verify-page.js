// The verify page: check record and chain files the player chose, in this browser only (fair-report.js).
import { watchFiles } from "./fair-report.js";

watchFiles(document.getElementById("verify-files"), document.getElementById("verify-files-status"),
  document.getElementById("verify-files-results"), document.getElementById("verify-trust"));
