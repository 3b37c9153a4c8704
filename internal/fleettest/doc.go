// Package fleettest is the end-to-end test of the worker fleet (issue 17):
// a real nats-server process, worker processes of the built macrokit
// binary, a batch --nats process and the demo site, with a worker killed
// with SIGKILL and the NATS server restarted mid-batch. It counts side
// effects on the site (customers stored, POSTs sent, logins), not only
// exit codes. The package holds no code outside its tests.
//
// The nats-server binary is $MACROKIT_NATS_SERVER (CI builds it from the
// module: go build github.com/nats-io/nats-server/v2), else the test
// builds it.
package fleettest
