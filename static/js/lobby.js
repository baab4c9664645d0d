// The create-room form: show the chosen game's knobs (the others are disabled, so they are not
// posted), its rules link, and the settings that only make sense for bots or friends.
const form = document.getElementById("create-form");
if (form) {
  const preset = form.querySelector("[name=preset]");
  const showPreset = () => {
    for (const fs of form.querySelectorAll("fieldset.knobs")) {
      const on = fs.dataset.preset === preset.value;
      fs.hidden = !on;
      fs.disabled = !on;
    }
    for (const a of form.querySelectorAll(".rules-link")) a.hidden = a.dataset.preset !== preset.value;
  };
  const showKind = () => {
    const ai = form.querySelector("[name=kind]:checked")?.value === "ai";
    for (const input of form.querySelectorAll("[name=currency]")) {
      if (ai) input.checked = input.value === "points";
      input.disabled = ai && input.value !== "points";
    }
    document.getElementById("bot-level-field").hidden = !ai;
    document.getElementById("approve-buy-ins-field").hidden = ai; // a practice table asks nobody
  };
  // A house rule's settings show only while the rule is on (games/rules_form.py DEPENDS_ON: off, they change nothing).
  const DEPENDS_ON = { banker_open_from: "banker_opens", matta_natural: "matta", auction_max: "bank_auction",
    auction_sees_first_card: "bank_auction" };
  const showDepends = () => {
    for (const fs of form.querySelectorAll("fieldset.knobs")) {
      for (const [name, master] of Object.entries(DEPENDS_ON)) {
        const field = document.getElementById(`field-${fs.dataset.preset}-${name}`);
        const on = fs.querySelector(`[name="${fs.dataset.preset}-${master}"]`);
        if (field && on) field.hidden = on.type === "checkbox" ? !on.checked : on.value === "off";
      }
    }
  };
  form.addEventListener("change", showDepends);
  showDepends();
  preset.addEventListener("change", showPreset);
  for (const input of form.querySelectorAll("[name=kind]")) input.addEventListener("change", showKind);
  showPreset();
  showKind();
}

// The practice buttons: one click opens one table (a second click while the first loads would open another).
// The click brings this browser's seed for the first deal (docs/fairness.md): 32 random bytes drawn now, after the
// page showed the commitment to the server's seed that the form sends back with it.
const randomSeed = () => [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");

for (const practice of document.querySelectorAll("form.practice-form")) {
  practice.addEventListener("submit", (event) => {
    if (practice.dataset.sent) { event.preventDefault(); return; }
    practice.dataset.sent = "1";
    practice.querySelector("[name=seed]").value = randomSeed();
    for (const button of document.querySelectorAll("form.practice-form button")) button.disabled = true;
  });
}
