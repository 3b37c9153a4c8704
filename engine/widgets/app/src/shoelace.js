// A contacts page built from Shoelace 2 web components (shadow DOM, slots), as its docs show.
import '@shoelace-style/shoelace/dist/themes/light.css';
import '@shoelace-style/shoelace/dist/components/button/button.js';
import '@shoelace-style/shoelace/dist/components/checkbox/checkbox.js';
import '@shoelace-style/shoelace/dist/components/dialog/dialog.js';
import '@shoelace-style/shoelace/dist/components/input/input.js';
import '@shoelace-style/shoelace/dist/components/option/option.js';
import '@shoelace-style/shoelace/dist/components/select/select.js';
import '@shoelace-style/shoelace/dist/components/switch/switch.js';
import { apiURL, post } from './api.js';

document.getElementById('root').innerHTML = `
  <h1>Contacts</h1>
  <sl-button id="add-contact" variant="primary">Add contact</sl-button>
  <sl-button id="sync">Sync contacts</sl-button>
  <sl-switch id="newsletter">Newsletter</sl-switch>
  <sl-dialog label="Add contact" id="contact-dialog">
    <form id="contact-form">
      <sl-input name="name" label="Full name" required></sl-input>
      <sl-input name="email" type="email" label="Email"></sl-input>
      <sl-select name="department" label="Department" placeholder="Choose one">
        <sl-option value="finance">Finance</sl-option>
        <sl-option value="legal">Legal</sl-option>
        <sl-option value="research">Research</sl-option>
      </sl-select>
      <sl-checkbox name="vip">VIP customer</sl-checkbox>
    </form>
    <sl-button slot="footer" id="save-contact" variant="primary">Save contact</sl-button>
  </sl-dialog>
  <div role="status" id="status"></div>
  <ul aria-label="Contacts" id="contacts"></ul>
`;

const dialog = document.getElementById('contact-dialog');
const form = document.getElementById('contact-form');
const status = document.getElementById('status');
document.getElementById('add-contact').addEventListener('click', () => dialog.show());
document.getElementById('newsletter').addEventListener('sl-change', (e) => post('/api/toggle', { name: 'newsletter', on: e.target.checked }, { form: 'shoelace' }));
document.getElementById('sync').addEventListener('click', () => {
  // The lying toast: the server refuses, the page says it synced.
  fetch(apiURL('/api/fail', { form: 'shoelace-sync' }), { method: 'POST', body: '{}' }).catch(() => {});
  status.textContent = 'Contacts synced';
});
document.getElementById('save-contact').addEventListener('click', async () => {
  const name = form.querySelector('[name=name]');
  if (!name.reportValidity()) return;
  const body = {
    name: name.value,
    email: form.querySelector('[name=email]').value,
    department: form.querySelector('[name=department]').value,
    vip: form.querySelector('[name=vip]').checked,
  };
  const r = await post('/api/save', body, { form: 'shoelace' });
  const li = document.createElement('li');
  li.dataset.testid = 'contact-row';
  li.dataset.id = r.id;
  li.textContent = body.name;
  document.getElementById('contacts').append(li);
  status.textContent = 'Contact saved';
  dialog.hide();
});
