package cli

import (
	"net"
	"testing"

	"github.com/macrokit/macrokit-go/internal/natstest"
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

func (n *testNATS) start() { n.srv = natstest.Start(n.t, n.dir, n.port) }

// Shutdown stops the server (again is a no-op).
func (n *testNATS) Shutdown() {
	if n.srv != nil {
		natstest.Shutdown(n.srv)
		n.srv = nil
	}
}

// Restart stops the server and starts it again on the same port and store.
func (n *testNATS) Restart() {
	n.Shutdown()
	n.start()
}
