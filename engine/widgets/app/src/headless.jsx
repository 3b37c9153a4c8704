// A team page built with Headless UI 2 (Dialog, Listbox, Combobox, Menu, Switch), as its docs show.
import React, { useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Button, Combobox, ComboboxInput, ComboboxOption, ComboboxOptions, Dialog, DialogPanel, DialogTitle, Field, Label, Listbox, ListboxButton, ListboxOption, ListboxOptions, Menu, MenuButton, MenuItem, MenuItems, Switch } from '@headlessui/react';
import { apiURL, customers, post } from './api.js';

const teams = ['Platform', 'Payments', 'Growth', 'Support'];

function TeamPage() {
  const [open, setOpen] = useState(false);
  const [team, setTeam] = useState(teams[0]);
  const [client, setClient] = useState(null);
  const [query, setQuery] = useState('');
  const [oncall, setOncall] = useState(false);
  const [members, setMembers] = useState([]);
  const [status, setStatus] = useState('');
  const filtered = query === '' ? customers : customers.filter((c) => c.toLowerCase().includes(query.toLowerCase()));
  const add = async () => {
    const r = await post('/api/save', { team, client, oncall }, { form: 'headless' });
    setMembers((m) => [...m, { id: r.id, team }]);
    setOpen(false);
    setStatus('Member added');
  };
  const toggle = (on) => { setOncall(on); post('/api/toggle', { name: 'oncall', on }, { form: 'headless' }); };
  return (
    <div style={{ maxWidth: 480 }}>
      <h1>Team</h1>
      <Button onClick={() => setOpen(true)}>Add member</Button>
      <Menu>
        <MenuButton>Actions</MenuButton>
        <MenuItems anchor="bottom">
          <MenuItem><button onClick={() => setStatus('Exported')}>Export</button></MenuItem>
          <MenuItem><button onClick={() => { fetch(apiURL('/api/fail', { form: 'headless-archive' }), { method: 'POST', body: '{}' }).catch(() => {}); setStatus('Archived'); }}>Archive</button></MenuItem>
        </MenuItems>
      </Menu>
      <Dialog open={open} onClose={() => setOpen(false)}>
        <DialogPanel style={{ background: 'white', border: '1px solid #999', padding: 16 }}>
          <DialogTitle>Add member</DialogTitle>
          <Field>
            <Label>Team</Label>
            <Listbox value={team} onChange={setTeam}>
              <ListboxButton>{team}</ListboxButton>
              <ListboxOptions anchor="bottom">
                {teams.map((t) => <ListboxOption key={t} value={t}>{t}</ListboxOption>)}
              </ListboxOptions>
            </Listbox>
          </Field>
          <Field>
            <Label>Client</Label>
            <Combobox value={client} onChange={setClient} onClose={() => setQuery('')}>
              <ComboboxInput displayValue={(c) => c ?? ''} onChange={(e) => setQuery(e.target.value)} />
              <ComboboxOptions anchor="bottom">
                {filtered.map((c) => <ComboboxOption key={c} value={c}>{c}</ComboboxOption>)}
              </ComboboxOptions>
            </Combobox>
          </Field>
          <Field>
            <Label>On call</Label>
            <Switch checked={oncall} onChange={toggle} style={{ width: 40, height: 20, background: oncall ? '#2563eb' : '#ccc' }} />
          </Field>
          <Button onClick={add}>Add</Button> <Button onClick={() => setOpen(false)}>Cancel</Button>
        </DialogPanel>
      </Dialog>
      <div role="status">{status}</div>
      <ul aria-label="Members">{members.map((m) => <li key={m.id} data-testid="member-row">{m.team}</li>)}</ul>
    </div>
  );
}

createRoot(document.getElementById('root')).render(<TeamPage />);
