package cli

import (
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// testNATS is an embedded nats-server with JetStream file storage that a
// test can restart on the same port and store.
type testNATS struct {
	t    *testing.T
	dir  string
	port int
	srv  *server.Server
	URL  string
}

// startNATS starts one for the test; it shuts down when the test ends.
func startNATS(t *testing.T) *testNATS {
	t.Helper()
	n := &testNATS{t: t, dir: t.TempDir(), port: -1}
	n.start()
	n.port = n.srv.Addr().(*net.TCPAddr).Port
	n.URL = n.srv.ClientURL()
	t.Cleanup(n.Shutdown)
	return n
}

func (n *testNATS) start() {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: n.port, JetStream: true, StoreDir: n.dir, NoLog: true, NoSigs: true})
	if err != nil {
		n.t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		n.t.Fatal("nats-server not ready")
	}
	n.srv = s
}

// Shutdown stops the server (again is a no-op).
func (n *testNATS) Shutdown() {
	if n.srv != nil {
		n.srv.Shutdown()
		n.srv.WaitForShutdown()
		n.srv = nil
	}
}

// Restart stops the server and starts it again on the same port and store.
func (n *testNATS) Restart() {
	n.Shutdown()
	n.start()
}
