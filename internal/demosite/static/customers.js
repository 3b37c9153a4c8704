// /customers: the customer list, search, and the "New customer" dialog.
import { api, byId, errorMessage, formatDate, h, modesFor, setBusy, titleCase, toast } from "./app.js";

const table = byId("customers-table");
const tbody = byId("customers-body");
const summary = byId("customers-summary");
const empty = byId("customers-empty");
const search = byId("customer-search");

// ---- List and search ----------------------------------------------------------

let shown = 0; // rows currently in the table
let query = new URLSearchParams(location.search).get("q") || "";
let seq = 0;
let inflight = null;

function row(c, isNew = false) {
  return h(
    "tr",
    { "data-testid": "customer-row", "data-id": c.id, class: isNew ? "new" : null },
    h("th", { scope: "row", "data-testid": "customer-name" }, c.name),
    h("td", { class: "cell-secondary", "data-testid": "customer-email" }, c.email),
    h("td", {}, h("span", { class: "badge", "data-tier": c.tier, "data-testid": "customer-tier" }, titleCase(c.tier))),
    h("td", { class: "num", "data-testid": "customer-orders" }, String(c.order_count)),
    h("td", { class: "cell-secondary" }, formatDate(c.created_at)),
  );
}

function plural(n) {
  return n === 1 ? "1 customer" : `${n} customers`;
}

function updateSummary() {
  summary.textContent = query ? `${plural(shown)} matching “${query}”` : plural(shown);
  empty.hidden = shown > 0;
  if (shown === 0) {
    empty.replaceChildren(
      h("strong", {}, query ? `No customers match “${query}”.` : "No customers yet."),
      query ? "Try a different name or email." : "Create one with “New customer”.",
    );
  }
}

async function load() {
  const my = ++seq;
  inflight?.abort();
  inflight = new AbortController();
  table.setAttribute("aria-busy", "true");
  let res;
  try {
    res = await api("GET", "/api/customers" + (query ? "?q=" + encodeURIComponent(query) : ""), undefined, { signal: inflight.signal });
  } catch {
    return; // superseded by a newer search
  }
  if (my !== seq) return;
  table.setAttribute("aria-busy", "false");
  if (!res.ok) {
    summary.textContent = "Customers could not be loaded.";
    toast(errorMessage(res, "Customers could not be loaded."), { error: true });
    return;
  }
  tbody.replaceChildren(...res.data.items.map((c) => row(c)));
  shown = res.data.items.length;
  updateSummary();
}

function setQuery(q) {
  q = q.trim();
  if (q === query) return;
  query = q;
  const url = new URL(location.href);
  if (q) url.searchParams.set("q", q);
  else url.searchParams.delete("q");
  history.replaceState(null, "", url.pathname + url.search);
  load();
}

let debounce;
search.value = query;
search.addEventListener("input", () => {
  clearTimeout(debounce);
  debounce = setTimeout(() => setQuery(search.value), 250);
});
search.addEventListener("keydown", (e) => {
  if (e.key === "Enter") {
    e.preventDefault();
    clearTimeout(debounce);
    setQuery(search.value);
  }
});

load();

// ---- Tier: a select-only combobox (button + listbox), not a native <select> ----

function comboSelect(button, listbox) {
  const options = [...listbox.querySelectorAll('[role="option"]')];
  const display = button.querySelector(".select-value");
  let value = button.dataset.value;
  let active = -1;

  const isOpen = () => button.getAttribute("aria-expanded") === "true";
  const indexOf = (v) => options.findIndex((o) => o.dataset.value === v);

  function setActive(i) {
    active = i;
    options.forEach((o, j) => o.classList.toggle("active", j === i));
    if (i >= 0) {
      button.setAttribute("aria-activedescendant", options[i].id);
      options[i].scrollIntoView({ block: "nearest" });
    } else {
      button.removeAttribute("aria-activedescendant");
    }
  }
  function open() {
    listbox.hidden = false;
    button.setAttribute("aria-expanded", "true");
    setActive(Math.max(0, indexOf(value)));
  }
  function close() {
    listbox.hidden = true;
    button.setAttribute("aria-expanded", "false");
    setActive(-1);
  }
  function select(v) {
    const i = indexOf(v);
    if (i < 0) return;
    value = v;
    button.dataset.value = v;
    options.forEach((o, j) => o.setAttribute("aria-selected", String(j === i)));
    display.textContent = options[i].textContent;
  }

  button.addEventListener("click", () => (isOpen() ? close() : open()));
  button.addEventListener("keydown", (e) => {
    const last = options.length - 1;
    switch (e.key) {
      case "ArrowDown":
      case "ArrowUp":
        e.preventDefault();
        if (!isOpen()) open();
        else setActive(Math.min(last, Math.max(0, active + (e.key === "ArrowDown" ? 1 : -1))));
        return;
      case "Home":
      case "End":
        if (!isOpen()) return;
        e.preventDefault();
        setActive(e.key === "Home" ? 0 : last);
        return;
      case "Enter":
      case " ":
        e.preventDefault();
        if (!isOpen()) open();
        else {
          select(options[active].dataset.value);
          close();
        }
        return;
      case "Escape":
        if (isOpen()) {
          e.preventDefault();
          e.stopPropagation(); // close the listbox, not the dialog
          close();
        }
        return;
      case "Tab":
        if (isOpen()) close();
        return;
      default:
        if (e.key.length === 1 && /\S/.test(e.key)) {
          const i = options.findIndex((o) => o.textContent.toLowerCase().startsWith(e.key.toLowerCase()));
          if (i >= 0) {
            if (isOpen()) setActive(i);
            else select(options[i].dataset.value);
          }
        }
    }
  });
  listbox.addEventListener("mousedown", (e) => e.preventDefault()); // keep focus on the button
  options.forEach((o, i) => {
    o.addEventListener("mouseenter", () => setActive(i));
    o.addEventListener("click", () => {
      select(o.dataset.value);
      close();
      button.focus();
    });
  });
  document.addEventListener("pointerdown", (e) => {
    if (isOpen() && !button.contains(e.target) && !listbox.contains(e.target)) close();
  });

  return {
    get value() {
      return value;
    },
    set value(v) {
      select(v);
    },
    close,
  };
}

// ---- New customer dialog ------------------------------------------------------

const newButton = byId("new-customer");
const backdrop = byId("new-customer-backdrop");
const dialog = byId("new-customer-dialog");
const form = byId("new-customer-form");
const formError = byId("new-customer-error");
const saveButton = byId("save-customer");
const cancelButton = byId("cancel-customer");
const tier = comboSelect(byId("customer-tier"), byId("customer-tier-listbox"));
const inputs = { name: byId("customer-name"), email: byId("customer-email"), tier: byId("customer-tier") };
const fieldErrors = { name: byId("customer-name-error"), email: byId("customer-email-error"), tier: byId("customer-tier-error") };
const outside = [document.querySelector(".topbar"), document.getElementById("main")];

function clearErrors() {
  formError.hidden = true;
  formError.textContent = "";
  for (const [k, el] of Object.entries(fieldErrors)) {
    el.hidden = true;
    el.textContent = "";
    inputs[k].removeAttribute("aria-invalid");
  }
}

function showErrors(message, fields = {}) {
  formError.textContent = message;
  formError.hidden = false;
  let first = null;
  for (const [k, msg] of Object.entries(fields)) {
    if (!fieldErrors[k]) continue;
    fieldErrors[k].textContent = msg;
    fieldErrors[k].hidden = false;
    inputs[k].setAttribute("aria-invalid", "true");
    first ??= inputs[k];
  }
  (first || inputs.name).focus();
}

for (const k of ["name", "email"]) {
  inputs[k].addEventListener("input", () => {
    fieldErrors[k].hidden = true;
    inputs[k].removeAttribute("aria-invalid");
    if (!form.querySelector('[aria-invalid="true"]')) formError.hidden = true;
  });
}

function openDialog() {
  form.reset();
  tier.value = "free";
  clearErrors();
  setBusy(saveButton, false);
  backdrop.hidden = false;
  outside.forEach((el) => el && (el.inert = true));
  inputs.name.focus();
}

function closeDialog() {
  tier.close();
  backdrop.hidden = true;
  outside.forEach((el) => el && (el.inert = false));
  (byId("new-customer") || document.body).focus();
}

if (newButton.hasAttribute("data-decoy")) {
  // Options.Drift "decoy": the button kept the New customer button's ids but does something else.
  newButton.addEventListener("click", () => toast("Import is not available yet"));
} else {
  newButton.addEventListener("click", openDialog);
}
cancelButton.addEventListener("click", closeDialog);

dialog.addEventListener("keydown", (e) => {
  if (e.key === "Escape") {
    e.preventDefault();
    closeDialog();
    return;
  }
  if (e.key !== "Tab") return;
  // Keep focus inside the dialog.
  const focusable = [...dialog.querySelectorAll("input, button, [tabindex]:not([tabindex='-1'])")].filter(
    (el) => !el.disabled && !el.closest("[hidden]"),
  );
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
});

function appendRow(c) {
  empty.hidden = true;
  tbody.append(row(c, true));
  shown++;
  updateSummary();
}

// What the buggy UI under inject=error500 shows: a row built from the form,
// with the id it guesses the server would have given.
function optimisticCustomer(input) {
  const ids = [...tbody.querySelectorAll("tr[data-id]")].map((tr) => Number(tr.dataset.id.slice(1)) || 0);
  return {
    id: "c" + (Math.max(0, ...ids) + 1),
    name: input.name.trim(),
    email: input.email.trim(),
    tier: input.tier,
    order_count: 0,
    created_at: new Date().toISOString(),
  };
}

let saving = false;
form.addEventListener("submit", async (e) => {
  e.preventDefault();
  if (saving) return;
  saving = true;
  clearErrors();
  const input = { name: inputs.name.value, email: inputs.email.value, tier: tier.value };
  const modes = modesFor(Object.values(input)); // the page's modes and the rules' for this record
  setBusy(saveButton, true);
  const res = await api("POST", "/api/customers", input);
  setBusy(saveButton, false);
  saving = false;

  if (modes.has("error500") && res.status >= 500) {
    // The bug this mode simulates: a 5xx is treated like a success.
    closeDialog();
    toast("Customer saved");
    appendRow(optimisticCustomer(input));
    return;
  }
  if (res.ok) {
    closeDialog();
    toast("Customer saved");
    // Under fakeSuccess the server stored nothing and the list is left alone.
    if (!modes.has("fakeSuccess")) appendRow(res.data);
    return;
  }
  const err = (res.data && res.data.error) || {};
  showErrors(err.message || "The customer could not be saved.", err.fields);
});
