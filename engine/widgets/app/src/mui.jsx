// An access-request form built with MUI 9 and MUI X date pickers 9, as their docs show.
import React, { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Autocomplete, Button, Checkbox, CircularProgress, Dialog, DialogActions, DialogContent, DialogTitle, FormControl, FormControlLabel, InputLabel, List, ListItem, MenuItem, Select, Snackbar, TextField } from '@mui/material';
import { AdapterDayjs } from '@mui/x-date-pickers/AdapterDayjs';
import { DatePicker } from '@mui/x-date-pickers/DatePicker';
import { LocalizationProvider } from '@mui/x-date-pickers/LocalizationProvider';
import { apiURL, options, post } from './api.js';

function PersonField({ value, onChange }) {
  const [open, setOpen] = useState(false);
  const [input, setInput] = useState('');
  const [opts, setOpts] = useState([]);
  const [loading, setLoading] = useState(false);
  useEffect(() => {
    if (!open) return undefined;
    let live = true;
    setLoading(true);
    options(input).then((names) => { if (live) { setOpts(names); setLoading(false); } });
    return () => { live = false; };
  }, [open, input]);
  return (
    <Autocomplete open={open} onOpen={() => setOpen(true)} onClose={() => setOpen(false)}
      options={opts} loading={loading} value={value} onChange={(_, v) => onChange(v)}
      inputValue={input} onInputChange={(_, v) => setInput(v)} filterOptions={(x) => x}
      renderInput={(params) => (
        <TextField {...params} label="Requested by" slotProps={{ ...params.slotProps, input: { ...params.slotProps.input,
          endAdornment: (<>{loading ? <CircularProgress size={16} /> : null}{params.slotProps.input.endAdornment}</>) } }} />
      )} />
  );
}

function AccessForm() {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [role, setRole] = useState('');
  const [person, setPerson] = useState(null);
  const [admin, setAdmin] = useState(false);
  const [expires, setExpires] = useState(null);
  const [rows, setRows] = useState([]);
  const [toast, setToast] = useState('');
  const submit = async () => {
    const r = await post('/api/save', { name, role, person, admin, expires: expires ? expires.format('YYYY-MM-DD') : null }, { form: 'mui' });
    setRows((rs) => [...rs, { id: r.id, name }]);
    setOpen(false);
    setToast('Access granted');
  };
  const lie = () => {
    fetch(apiURL('/api/fail', { form: 'mui-renew' }), { method: 'POST', body: '{}' }).catch(() => {});
    setToast('Access renewed');
  };
  return (
    <LocalizationProvider dateAdapter={AdapterDayjs}>
      <h1>Access</h1>
      <Button variant="contained" onClick={() => setOpen(true)}>Request access</Button>{' '}
      <Button onClick={lie}>Renew all</Button>
      <Dialog open={open} onClose={() => setOpen(false)}>
        <DialogTitle>Request access</DialogTitle>
        <DialogContent>
          <TextField label="System" value={name} onChange={(e) => setName(e.target.value)} fullWidth margin="dense" />
          <FormControl fullWidth margin="dense">
            <InputLabel id="role-label">Role</InputLabel>
            <Select labelId="role-label" label="Role" value={role} onChange={(e) => setRole(e.target.value)}>
              {['Viewer', 'Editor', 'Owner'].map((r) => <MenuItem key={r} value={r}>{r}</MenuItem>)}
            </Select>
          </FormControl>
          <PersonField value={person} onChange={setPerson} />
          <FormControlLabel control={<Checkbox checked={admin} onChange={(e) => setAdmin(e.target.checked)} />} label="Administrator" />
          <DatePicker label="Access expires" value={expires} onChange={setExpires} format="YYYY-MM-DD" />
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)}>Cancel</Button>
          <Button onClick={submit} variant="contained">Submit</Button>
        </DialogActions>
      </Dialog>
      <List aria-label="Granted">
        {rows.map((r) => <ListItem key={r.id} data-testid="granted-row">{r.name}</ListItem>)}
      </List>
      <Snackbar open={toast !== ''} message={toast} autoHideDuration={4000} onClose={() => setToast('')} />
    </LocalizationProvider>
  );
}

createRoot(document.getElementById('root')).render(<AccessForm />);
