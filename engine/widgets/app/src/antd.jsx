// A back-office form built with antd 6 the way its docs show it.
import React, { useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { App, AutoComplete, Button, Cascader, DatePicker, Form, List, Modal, Popconfirm, Select, Spin, Switch, Upload } from 'antd';
import { DeleteOutlined, UploadOutlined } from '@ant-design/icons';
import { apiURL, customers, options, post } from './api.js';

const countries = ['Argentina', 'Australia', 'Austria', 'Belgium', 'Brazil', 'Canada', 'Chile', 'China', 'Colombia', 'Croatia',
  'Czechia', 'Denmark', 'Egypt', 'Estonia', 'Finland', 'France', 'Germany', 'Greece', 'Hungary', 'Iceland', 'India', 'Indonesia',
  'Ireland', 'Israel', 'Italy', 'Japan', 'Kenya', 'Latvia', 'Lithuania', 'Mexico', 'Morocco', 'Netherlands', 'New Zealand',
  'Nigeria', 'Norway', 'Peru', 'Poland', 'Portugal', 'Romania', 'Singapore', 'Slovakia', 'Slovenia', 'South Africa', 'Spain',
  'Sweden', 'Switzerland', 'Thailand', 'Turkey', 'Ukraine', 'Uruguay', 'Vietnam', 'Zambia', 'Zimbabwe'].map((v) => ({ value: v, label: v }));
const regions = ['North', 'South', 'East', 'West'].map((v) => ({ value: v, label: v }));
const cities = ['Amsterdam', 'Berlin', 'Copenhagen', 'Dublin', 'Edinburgh'];
const locations = [
  { value: 'zhejiang', label: 'Zhejiang', children: [{ value: 'hangzhou', label: 'Hangzhou', children: [{ value: 'xihu', label: 'West Lake' }] }] },
  { value: 'jiangsu', label: 'Jiangsu', children: [{ value: 'nanjing', label: 'Nanjing', children: [{ value: 'zhonghuamen', label: 'Zhong Hua Men' }] }] },
];

function ManagerSelect(props) {
  const [fetching, setFetching] = useState(false);
  const [opts, setOpts] = useState([]);
  const seq = useRef(0);
  const search = (q) => {
    const n = ++seq.current;
    setFetching(true);
    options(q).then((names) => {
      if (n !== seq.current) return;
      setOpts(names.map((v) => ({ value: v, label: v })));
      setFetching(false);
    });
  };
  return (
    <Select {...props} showSearch={{ filterOption: false, onSearch: search }} options={opts}
      notFoundContent={fetching ? <Spin size="small" /> : null} placeholder="Search people" />
  );
}

function CustomerForm() {
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const [rows, setRows] = useState([]);
  const [open, setOpen] = useState(false);
  const cityOptions = useMemo(() => cities.map((c) => ({ value: c })), []);
  const save = async (values) => {
    const body = { ...values, start: values.start ? values.start.format('YYYY-MM-DD') : null, invoice: undefined };
    const r = await post('/api/save', body, { form: 'antd' });
    setRows((rs) => [...rs, { id: r.id, name: values.customer }]);
    message.success('Customer saved');
  };
  const saveDraft = async () => {
    // The lying toast: the server refuses the draft, the page says it is saved.
    fetch(apiURL('/api/fail', { form: 'antd-draft' }), { method: 'POST', body: '{}' }).catch(() => {});
    message.success('Draft saved');
  };
  return (
    <>
      <Form form={form} layout="vertical" onFinish={save} style={{ maxWidth: 520 }} initialValues={{ active: false }}>
        <Form.Item label="Customer" name="customer" rules={[{ required: true, message: 'Pick a customer' }]}>
          <Select placeholder="Select a customer" options={customers.map((c) => ({ value: c, label: c }))} />
        </Form.Item>
        <Form.Item label="Country" name="country">
          <Select placeholder="Select a country" options={countries} />
        </Form.Item>
        <Form.Item label="Account manager" name="manager">
          <ManagerSelect />
        </Form.Item>
        <Form.Item label="City" name="city">
          <AutoComplete options={cityOptions} placeholder="Type a city"
            filterOption={(input, option) => option.value.toLowerCase().includes(input.toLowerCase())} />
        </Form.Item>
        <Form.Item label="Tags" name="tags">
          <Select mode="tags" placeholder="Add tags" options={[{ value: 'vip', label: 'vip' }, { value: 'late payer', label: 'late payer' }]} />
        </Form.Item>
        <Form.Item label="Regions" name="regions">
          <Select mode="multiple" placeholder="Pick regions" options={regions} />
        </Form.Item>
        <Form.Item label="Start date" name="start">
          <DatePicker format="YYYY-MM-DD" />
        </Form.Item>
        <Form.Item label="Location" name="location">
          <Cascader options={locations} placeholder="Province / city / district" />
        </Form.Item>
        <Form.Item label="Active" name="active" valuePropName="checked">
          <Switch onChange={(on) => post('/api/toggle', { name: 'active', on }, { form: 'antd' })} />
        </Form.Item>
        <Form.Item label="Invoice" name="invoice">
          <Upload action={apiURL('/api/upload', { form: 'antd' })} name="file" maxCount={3}>
            <Button icon={<UploadOutlined />}>Upload invoice</Button>
          </Upload>
        </Form.Item>
        <Button type="primary" htmlType="submit">Save customer</Button>{' '}
        <Button onClick={saveDraft}>Save draft</Button>{' '}
        <Button onClick={() => setOpen(true)}>Add note</Button>
      </Form>
      <Modal title="Add note" open={open} onOk={() => setOpen(false)} onCancel={() => setOpen(false)} okText="Keep">
        <p>Notes are kept with the customer.</p>
      </Modal>
      <List header="Saved customers" dataSource={rows} data-testid="saved"
        renderItem={(r) => (
          <List.Item data-testid="saved-row" actions={[
            <Popconfirm key="del" title="Delete this customer?" okText="Yes" cancelText="No"
              onConfirm={() => post('/api/delete', { id: r.id }, { form: 'antd' }).then(() => setRows((rs) => rs.filter((x) => x.id !== r.id)))}>
              <Button icon={<DeleteOutlined />} aria-label={`Delete ${r.name}`} />
            </Popconfirm>]}>
            {r.name}
          </List.Item>
        )} />
    </>
  );
}

createRoot(document.getElementById('root')).render(<App><h1>Customers</h1><CustomerForm /></App>);
