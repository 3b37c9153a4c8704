package demosite

import _ "embed"

// SampleCustomersCSV is a small batch input for add_customer (customers.csv
// beside this file): six new customers, one of them at fake.example, the
// domain `demo run` makes the site fake success for, so its batch shows a
// row reported failed.
//
//go:embed customers.csv
var SampleCustomersCSV []byte
