// A ticket queue of 5,000 rows virtualized with react-window 2, as its docs show:
// only the rows in the list's own scroller exist in the DOM.
import React, { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { List } from 'react-window';
import { post } from './api.js';

const subjects = ['Printer on fire', 'Password reset', 'VPN drops', 'Invoice missing', 'Laptop slow'];

function Row({ index, style, archived, archive, ariaAttributes }) {
  const n = index + 1;
  const done = archived.has(n);
  return (
    <div style={{ ...style, display: 'flex', gap: 12, alignItems: 'center', borderBottom: '1px solid #eee' }} {...ariaAttributes}>
      <span style={{ width: 120 }}>Ticket #{n}</span>
      <span style={{ flex: 1 }}>{subjects[index % subjects.length]}</span>
      {done ? <span>Archived</span> : <button aria-label={`Archive ticket ${n}`} onClick={() => archive(n)}>Archive</button>}
    </div>
  );
}

function Queue() {
  const [archived, setArchived] = useState(() => new Set());
  const archive = async (n) => {
    await post('/api/archive', { id: n }, { form: 'virtual' });
    setArchived((s) => new Set(s).add(n));
  };
  return (
    <div style={{ maxWidth: 640 }}>
      <h1>Tickets</h1>
      <p>5,000 open tickets</p>
      <div aria-label="Ticket queue" role="region">
        <List rowComponent={Row} rowCount={5000} rowHeight={36} rowProps={{ archived, archive }} style={{ height: 360 }} />
      </div>
    </div>
  );
}

createRoot(document.getElementById('root')).render(<Queue />);
