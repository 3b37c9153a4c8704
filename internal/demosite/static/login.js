// /login: signs in with POST /api/login (JSON), then goes to ?next= or /customers.
// Without JavaScript the form still works: it posts to the same endpoint.
import { api, byId, setBusy, withInject } from "./app.js";

const form = byId("login-form");
const button = byId("sign-in");
const alertBox = byId("login-error");
const inputs = { username: byId("username"), password: byId("password") };
const errors = { username: byId("username-error"), password: byId("password-error") };
const params = new URLSearchParams(location.search);
byId("login-next").value = params.get("next") || "";

function clear() {
  alertBox.hidden = true;
  alertBox.textContent = "";
  for (const k of Object.keys(inputs)) {
    errors[k].hidden = true;
    errors[k].textContent = "";
    inputs[k].removeAttribute("aria-invalid");
  }
}

function fail(message, fields = {}) {
  alertBox.textContent = message;
  alertBox.hidden = false;
  let first = null;
  for (const [k, msg] of Object.entries(fields)) {
    if (!inputs[k]) continue;
    errors[k].textContent = msg;
    errors[k].hidden = false;
    inputs[k].setAttribute("aria-invalid", "true");
    first ??= inputs[k];
  }
  (first || inputs.password).focus();
}

if (params.get("error") === "invalid") {
  fail("Invalid username or password.");
} else if (params.get("error") === "expired") {
  fail("Your sign-in has expired. Sign in again.");
}

let busy = false;
form.addEventListener("submit", async (e) => {
  e.preventDefault();
  if (busy) return;
  busy = true;
  clear();
  setBusy(button, true);
  const res = await api("POST", "/api/login", {
    username: inputs.username.value,
    password: inputs.password.value,
    next: params.get("next") || "",
  });
  busy = false;
  if (res.ok) {
    location.assign(withInject(res.data.redirect || "/customers"));
    return;
  }
  setBusy(button, false);
  const err = (res.data && res.data.error) || {};
  fail(err.message || "Sign-in failed. Try again.", err.fields);
});
