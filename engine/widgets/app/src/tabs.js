// An invoice list whose actions open new tabs the three ways real apps do:
// window.open, a target=_blank link, and an OAuth-style popup that posts its
// result back to the opener and closes itself.
import { apiURL, post } from './api.js';

const s = new URLSearchParams(location.search).get('s') || '';
const view = new URLSearchParams(location.search).get('view') || 'list';
const root = document.getElementById('root');

if (view === 'invoice') {
  document.title = 'Invoice 1001';
  root.innerHTML = `<h1>Invoice 1001</h1><p>Total due: 420.00 EUR</p><button id="pay">Mark as paid</button><div role="status" id="st"></div>`;
  document.getElementById('pay').addEventListener('click', async () => {
    await post('/api/save', { invoice: 1001, paid: true }, { form: 'tabs-pay' });
    document.getElementById('st').textContent = 'Invoice 1001 paid';
  });
} else if (view === 'authorize') {
  document.title = 'Authorize';
  root.innerHTML = `<h1>Connect your bank</h1><button id="allow">Allow</button>`;
  document.getElementById('allow').addEventListener('click', async () => {
    await post('/api/save', { authorized: true }, { form: 'tabs-auth' });
    window.opener?.postMessage({ type: 'authorized', bank: 'Demo Bank' }, location.origin);
    window.close();
  });
} else {
  const invoiceURL = `?view=invoice&s=${encodeURIComponent(s)}`;
  root.innerHTML = `<h1>Invoices</h1>
    <button id="open">Open invoice 1001</button>
    <a href="${invoiceURL}" target="_blank" rel="noopener">Invoice 1001 in a new tab</a>
    <button id="connect">Connect bank</button>
    <div role="status" id="bank">No bank connected</div>`;
  document.getElementById('open').addEventListener('click', () => window.open(invoiceURL, '_blank'));
  document.getElementById('connect').addEventListener('click', () =>
    window.open(`?view=authorize&s=${encodeURIComponent(s)}`, 'authorize', 'popup,width=480,height=600'));
  window.addEventListener('message', (e) => {
    if (e.origin === location.origin && e.data?.type === 'authorized') {
      document.getElementById('bank').textContent = `Connected: ${e.data.bank}`;
    }
  });
}
