// /login/verify: sends the one-time code with POST /api/login/verify (JSON;
// the pending sign-in travels in its cookie), then goes to ?next=.
// Without JavaScript the form still works: it posts to the same endpoint.
import { api, byId, setBusy, withInject } from "./app.js";

const form = byId("verify-form");
const button = byId("verify");
const alertBox = byId("verify-error");
const code = byId("code");
const params = new URLSearchParams(location.search);
byId("verify-next").value = params.get("next") || "";

function fail(message) {
  alertBox.textContent = message;
  alertBox.hidden = false;
  code.setAttribute("aria-invalid", "true");
  code.focus();
}

if (params.get("error") === "invalid") {
  fail("Invalid code");
}

let busy = false;
form.addEventListener("submit", async (e) => {
  e.preventDefault();
  if (busy) return;
  busy = true;
  alertBox.hidden = true;
  setBusy(button, true);
  const res = await api("POST", "/api/login/verify", { code: code.value, next: params.get("next") || "" });
  busy = false;
  if (res.ok) {
    location.assign(withInject(res.data.redirect || "/customers"));
    return;
  }
  setBusy(button, false);
  if (res.data && res.data.error && res.data.error.code === "login_expired") {
    location.assign(withInject("/login?error=expired&next=" + encodeURIComponent(params.get("next") || "")));
    return;
  }
  fail((res.data && res.data.error && res.data.error.message) || "Invalid code");
});
