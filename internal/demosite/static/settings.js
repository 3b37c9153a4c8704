// /settings: three checkboxes saved with PUT /api/settings.
import { api, byId, errorMessage, inject, setBusy, toast } from "./app.js";

const form = byId("settings-form");
const save = byId("save-settings");
const boxes = {
  email_notifications: byId("email-notifications"),
  weekly_report: byId("weekly-report"),
  dark_mode: byId("dark-mode"),
};

function applyTheme(dark) {
  if (dark) document.documentElement.dataset.theme = "dark";
  else delete document.documentElement.dataset.theme;
}

async function load() {
  const res = await api("GET", "/api/settings");
  if (!res.ok) {
    toast(errorMessage(res, "Settings could not be loaded."), { error: true });
    return;
  }
  for (const [k, box] of Object.entries(boxes)) {
    box.checked = Boolean(res.data[k]);
    box.disabled = false;
  }
  form.setAttribute("aria-busy", "false");
}

let saving = false;
form.addEventListener("submit", async (e) => {
  e.preventDefault();
  if (saving || boxes.dark_mode.disabled) return;
  saving = true;
  const body = Object.fromEntries(Object.entries(boxes).map(([k, box]) => [k, box.checked]));
  setBusy(save, true);
  const res = await api("PUT", "/api/settings", body);
  setBusy(save, false);
  saving = false;
  // Under inject=error500 the UI has a bug: it treats a 5xx as a success.
  if (res.ok || (inject.has("error500") && res.status >= 500)) {
    applyTheme(body.dark_mode);
    toast("Settings saved");
    return;
  }
  toast(errorMessage(res, "Settings could not be saved."), { error: true });
});

load();
