// /orders: the paged order list with a status filter, "Load more" and export.
import { api, byId, errorMessage, formatDate, formatMoney, h, setBusy, titleCase, toast } from "./app.js";

const PAGE_SIZE = 20;
const STATUSES = ["pending", "paid", "shipped", "cancelled"];

const table = byId("orders-table");
const tbody = byId("orders-body");
const summary = byId("orders-summary");
const pageInfo = byId("orders-page-info");
const empty = byId("orders-empty");
const footer = byId("orders-footer");
const loadMore = byId("load-more");
const filter = byId("order-status-filter");
const exportLink = byId("export-csv");

let status = new URLSearchParams(location.search).get("status") || "";
if (!STATUSES.includes(status)) status = "";
let loaded = 0;
let total = 0;
let seq = 0;

function row(o) {
  return h(
    "tr",
    { "data-testid": "order-row", "data-id": o.id, "data-status": o.status },
    h("th", { scope: "row", class: "id", "data-testid": "order-id" }, o.id),
    h("td", { "data-testid": "order-customer" }, o.customer_name),
    h("td", { class: "cell-secondary" }, formatDate(o.created_at)),
    h("td", { class: "num" }, String(o.items)),
    h("td", { class: "num", "data-testid": "order-total" }, formatMoney(o.total)),
    h("td", {}, h("span", { class: "badge", "data-status": o.status, "data-testid": "order-status" }, titleCase(o.status))),
  );
}

function query(offset) {
  const q = new URLSearchParams({ offset: String(offset), limit: String(PAGE_SIZE) });
  if (status) q.set("status", status);
  return "/api/orders?" + q;
}

function render() {
  const noun = total === 1 ? "order" : "orders";
  summary.textContent = `Showing ${loaded} of ${total} ${noun}`;
  pageInfo.textContent = loaded < total ? `${total - loaded} more` : "All orders shown";
  footer.hidden = total === 0;
  loadMore.hidden = loaded >= total;
  empty.hidden = total > 0;
  if (total === 0) {
    empty.replaceChildren(h("strong", {}, status ? `No ${status} orders.` : "No orders yet."));
  }
}

async function fetchPage(offset) {
  const my = ++seq;
  table.setAttribute("aria-busy", "true");
  const res = await api("GET", query(offset));
  if (my !== seq) return null; // the filter changed meanwhile
  table.setAttribute("aria-busy", "false");
  if (!res.ok) {
    toast(errorMessage(res, "Orders could not be loaded."), { error: true });
    return null;
  }
  return res.data;
}

async function reload() {
  summary.textContent = "Loading orders…";
  const page = await fetchPage(0);
  if (!page) return;
  tbody.replaceChildren(...page.items.map(row));
  loaded = page.items.length;
  total = page.total;
  render();
}

loadMore.addEventListener("click", async () => {
  setBusy(loadMore, true);
  const page = await fetchPage(loaded);
  setBusy(loadMore, false);
  if (!page) return;
  tbody.append(...page.items.map(row));
  loaded += page.items.length;
  total = page.total;
  render();
});

function syncExport() {
  const q = new URLSearchParams({ format: "csv" });
  if (status) q.set("status", status);
  exportLink.setAttribute("href", "/api/orders/export?" + q);
  exportLink.setAttribute("download", status ? `orders-${status}.csv` : "orders.csv");
}

filter.value = status;
filter.addEventListener("change", () => {
  status = filter.value;
  const url = new URL(location.href);
  if (status) url.searchParams.set("status", status);
  else url.searchParams.delete("status");
  history.replaceState(null, "", url.pathname + url.search);
  syncExport();
  reload();
});

syncExport();
reload();
