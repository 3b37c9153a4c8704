// An order form built with react-select 5 (plain, async, creatable, multi), as its docs show.
import React, { useState } from 'react';
import { createRoot } from 'react-dom/client';
import Select from 'react-select';
import AsyncSelect from 'react-select/async';
import CreatableSelect from 'react-select/creatable';
import { apiURL, customers, options, post } from './api.js';

const asOpts = (xs) => xs.map((v) => ({ value: v, label: v }));
const products = asOpts(['Anvil', 'Rocket skates', 'Giant magnet', 'Tornado seeds']);

function OrderForm() {
  const [customer, setCustomer] = useState(null);
  const [account, setAccount] = useState(null);
  const [labels, setLabels] = useState([]);
  const [items, setItems] = useState([]);
  const [orders, setOrders] = useState([]);
  const [status, setStatus] = useState('');
  const place = async (e) => {
    e.preventDefault();
    const r = await post('/api/save', {
      customer: customer?.value ?? null, account: account?.value ?? null,
      labels: labels.map((l) => l.value), items: items.map((i) => i.value),
    }, { form: 'reactselect' });
    setOrders((os) => [...os, { id: r.id, customer: customer?.value }]);
    setStatus('Order placed');
  };
  const quick = () => {
    fetch(apiURL('/api/fail', { form: 'reactselect-quick' }), { method: 'POST', body: '{}' }).catch(() => {});
    setStatus('Quick order placed');
  };
  return (
    <form onSubmit={place} style={{ maxWidth: 480 }}>
      <h1>New order</h1>
      <label htmlFor="customer-input">Customer</label>
      <Select inputId="customer-input" options={asOpts(customers)} value={customer} onChange={setCustomer} />
      <label htmlFor="account-input">Account</label>
      <AsyncSelect inputId="account-input" cacheOptions={false} defaultOptions={false} value={account} onChange={setAccount}
        loadOptions={(q) => options(q).then(asOpts)} />
      <label htmlFor="labels-input">Labels</label>
      <CreatableSelect inputId="labels-input" isMulti options={asOpts(['urgent', 'gift'])} value={labels} onChange={setLabels} />
      <label htmlFor="items-input">Products</label>
      <Select inputId="items-input" isMulti options={products} value={items} onChange={setItems} />
      <p>
        <button type="submit">Place order</button>{' '}
        <button type="button" onClick={quick}>Quick order</button>
      </p>
      <div role="status">{status}</div>
      <ul aria-label="Orders">{orders.map((o) => <li key={o.id} data-testid="order-row">{o.customer}</li>)}</ul>
    </form>
  );
}

createRoot(document.getElementById('root')).render(<OrderForm />);
