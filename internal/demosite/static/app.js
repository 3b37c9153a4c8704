// Shared code for every Demo Shop page: the API client, toasts, the account
// area, and the fault-injection modes (see docs/demo-site.md).
//
// The server stamps <html> with what the page needs to know:
//   data-inject="slow flaky ..."  the active ?inject= modes of this page
//   data-inject-delay-ms="1500"   how long slow mode holds back late elements
//   data-inject-rules="fake.example=fakeSuccess flaky.example=flaky"
//                                 modes for submitted data with an email at a domain
//   data-user="admin"             who is signed in, if anyone
//   data-require-login="true"     the site sends anonymous users to /login
//   data-theme="dark"             the saved dark-mode setting

const root = document.documentElement;

/** The active fault-injection modes of this page, e.g. Set {"slow"}. */
export const inject = new Set((root.dataset.inject || "").split(/\s+/).filter(Boolean));

// Rules: "domain=mode+mode" each; see modesFor.
const rules = (root.dataset.injectRules || "")
  .split(/\s+/)
  .filter(Boolean)
  .map((r) => {
    const [domain, modes] = r.split("=");
    return { domain: domain.toLowerCase(), modes: (modes || "").split("+").filter(Boolean) };
  });

/**
 * The fault modes for submitted data: the page's modes plus those of every
 * rule an email among values matches (by its domain), as the server applies
 * them to the same data.
 */
export function modesFor(values) {
  const out = new Set(inject);
  for (const v of values) {
    const at = String(v).trim().lastIndexOf("@");
    if (at < 0) continue;
    const domain = String(v).trim().slice(at + 1).toLowerCase();
    for (const r of rules) if (r.domain === domain) r.modes.forEach((m) => out.add(m));
  }
  return out;
}

/** How long slow mode holds back the page's late elements, in ms. */
const lateDelay = Number(root.dataset.injectDelayMs) || 1500;

// ---- Slow mode: late elements -------------------------------------------
//
// Elements marked data-late (the main action buttons) are not in the DOM at
// first under inject=slow: they are swapped for a placeholder comment and put
// back after the delay, like a component that mounts once its data arrives.
// CSS keeps them hidden until then so they never flash. Page scripts look
// them up with byId(), which also finds them while they are detached.

const detached = new Map();

/** Returns the element with the given id, even while slow mode holds it back. */
export function byId(id) {
  return document.getElementById(id) || detached.get(id) || null;
}

/** Resolves once the page's late elements are in the DOM. */
export const ready = inject.has("slow")
  ? new Promise((resolve) => {
      const held = [];
      for (const el of document.querySelectorAll("[data-late]")) {
        const mark = document.createComment(" rendered late (inject=slow) ");
        el.replaceWith(mark);
        if (el.id) detached.set(el.id, el);
        held.push([mark, el]);
      }
      setTimeout(() => {
        for (const [mark, el] of held) {
          el.dataset.late = "ready";
          mark.replaceWith(el);
          detached.delete(el.id);
        }
        resolve();
      }, lateDelay);
    })
  : Promise.resolve();

// ---- Flaky mode: the first click on each action button is swallowed ------

if (inject.has("flaky")) {
  const primed = new WeakSet();
  window.addEventListener(
    "click",
    (event) => {
      const target = event.target instanceof Element ? event.target.closest("[data-action]") : null;
      if (!target || primed.has(target)) return;
      primed.add(target);
      event.preventDefault();
      event.stopImmediatePropagation();
    },
    true,
  );
}

// Flaky by rule: the first click on a form's submit button is swallowed for
// each distinct set of values a flaky rule matches (so each such record
// needs a second Save, once).
if (!inject.has("flaky") && rules.some((r) => r.modes.includes("flaky"))) {
  const primed = new Set();
  window.addEventListener(
    "click",
    (event) => {
      const target = event.target instanceof Element ? event.target.closest("[data-action][type='submit']") : null;
      const form = target && target.form;
      if (!form) return;
      const values = [...form.elements].filter((el) => "value" in el && el.type !== "submit").map((el) => el.value);
      if (!modesFor(values).has("flaky")) return;
      const key = values.join("\u0000");
      if (primed.has(key)) return;
      primed.add(key);
      event.preventDefault();
      event.stopImmediatePropagation();
    },
    true,
  );
}

// ---- Links keep the page's inject modes -----------------------------------

/** Returns href with this page's ?inject= modes added, if it has any. */
export function withInject(href) {
  if (!inject.size) return href;
  const url = new URL(href, location.href);
  url.searchParams.set("inject", [...inject].join(","));
  return url.origin === location.origin ? url.pathname + url.search + url.hash : url.href;
}

for (const a of document.querySelectorAll("a[href^='/']:not([href^='/api/']):not([download])")) {
  a.setAttribute("href", withInject(a.getAttribute("href")));
}

/** The login page URL that comes back to this page afterwards. */
export function loginURL() {
  const here = new URL(location.href);
  here.searchParams.delete("inject");
  return withInject("/login?next=" + encodeURIComponent(here.pathname + here.search));
}

// ---- API client -----------------------------------------------------------

/**
 * Calls the JSON API. It never throws for HTTP errors: it resolves to
 * {ok, status, data}, where data is the parsed JSON body (or null), and
 * status 0 means the request did not reach the server.
 */
export async function api(method, path, body, { signal } = {}) {
  const headers = { Accept: "application/json" };
  if (inject.size) headers["X-Inject"] = [...inject].join(",");
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      signal,
    });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    return { ok: false, status: 0, data: { error: { code: "network", message: "Could not reach the server.", fields: {} } } };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (res.status === 401 && root.dataset.requireLogin === "true" && !location.pathname.startsWith("/login")) {
    location.assign(loginURL());
  }
  return { ok: res.ok, status: res.status, data };
}

/** The human message of a failed api() result. */
export function errorMessage(result, fallback) {
  return (result.data && result.data.error && result.data.error.message) || fallback;
}

// ---- Toasts ---------------------------------------------------------------

const TOAST_MS = 6000;

/**
 * Shows a toast. Success toasts go into the polite status region
 * (role=status); errors are their own role=alert elements.
 */
export function toast(message, { error = false } = {}) {
  const region = document.getElementById(error ? "alerts" : "toasts");
  if (!region) return;
  const el = document.createElement("div");
  el.className = error ? "toast error" : "toast";
  el.dataset.testid = error ? "toast-error" : "toast";
  if (error) el.setAttribute("role", "alert");
  el.textContent = message;
  region.append(el);
  setTimeout(() => el.remove(), error ? TOAST_MS + 2000 : TOAST_MS);
}

// ---- Busy buttons -----------------------------------------------------------

/** Marks a button as busy (disabled, spinner) or not. */
export function setBusy(button, busy) {
  button.disabled = busy;
  if (busy) button.setAttribute("aria-busy", "true");
  else button.removeAttribute("aria-busy");
}

// ---- Formatting -------------------------------------------------------------

const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
const day = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

/** Formats an amount in dollars, e.g. "$1,204.50". */
export const formatMoney = (n) => money.format(n);

/** Formats an RFC 3339 time as a UTC date, e.g. "Mar 4, 2026". */
export const formatDate = (s) => day.format(new Date(s));

/** Capitalises a word: "paid" -> "Paid". */
export const titleCase = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** Creates an element with attributes and children (strings become text). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  el.append(...children.filter((c) => c !== undefined && c !== null));
  return el;
}

// ---- Account area -------------------------------------------------------------

const account = document.getElementById("account");
if (account) {
  const user = root.dataset.user;
  if (user) {
    const signOut = h("button", { type: "button", class: "btn", id: "sign-out", "data-action": true, "data-testid": "sign-out" }, "Sign out");
    signOut.addEventListener("click", async () => {
      setBusy(signOut, true);
      await api("POST", "/api/logout");
      location.assign(withInject("/login"));
    });
    account.append(h("span", { class: "who" }, "Signed in as ", h("strong", { "data-testid": "current-user" }, user)), signOut);
  } else {
    account.append(h("a", { class: "btn", href: loginURL(), "data-testid": "sign-in-link" }, "Sign in"));
  }
}
